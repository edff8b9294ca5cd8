package types

import (
	"encoding/binary"
	"hash/maphash"
	"strings"
)

// This file is the built-in range types (int4range, int8range, numrange,
// daterange, tsrange, tstzrange): PostgreSQL's rangetypes.c — range_in's
// parser and make_range's checks and canonicalization (the discrete
// types int4range, int8range and daterange to [) form), range_out's
// quoting, range_send/range_recv, range_cmp's ordering, and the set
// operations the SQL operators and functions compute. The multirange
// types are not kept (IsMultirange: refused by callers, 0A000).

// The range types' OIDs (fixed across PostgreSQL versions).
const (
	Int4range OID = 3904
	Numrange  OID = 3906
	Tsrange   OID = 3908
	Tstzrange OID = 3910
	Daterange OID = 3912
	Int8range OID = 3926
)

// CatRange is pg_type.typcategory 'R' of the range types.
const CatRange Category = 'R'

// RangeVal is one range value in make_range's canonical form: Flags are
// PostgreSQL's flag byte (RangeEmpty, RangeLBInc, …, as range_send
// sends it); Lower and Upper are the bounds' values of the element type
// (nil for an infinite bound or an empty range).
type RangeVal struct {
	Flags        byte
	Lower, Upper Value
}

// The flag bits of a range (rangetypes.h).
const (
	RangeEmpty byte = 0x01
	RangeLBInc byte = 0x02
	RangeUBInc byte = 0x04
	RangeLBInf byte = 0x08
	RangeUBInf byte = 0x10
)

// rangeElems maps each range type to its subtype.
var rangeElems = map[OID]OID{
	Int4range: Int4, Int8range: Int8, Numrange: Numeric,
	Daterange: Date, Tsrange: Timestamp, Tstzrange: Timestamptz,
}

// multiranges are the multirange types (PostgreSQL 14+) and their
// arrays: known by name so they are refused, never read as text.
var multiranges = map[OID]string{
	4451: "int4multirange", 4536: "int8multirange", 4532: "nummultirange",
	4535: "datemultirange", 4533: "tsmultirange", 4534: "tstzmultirange",
	6150: "_int4multirange", 6157: "_int8multirange", 6151: "_nummultirange",
	6155: "_datemultirange", 6152: "_tsmultirange", 6153: "_tstzmultirange",
}

// IsRange says whether oid is one of the built-in range types.
func IsRange(oid OID) bool { _, ok := rangeElems[oid]; return ok }

// RangeElem is the subtype of range type oid (0 if oid is not a range).
func RangeElem(oid OID) OID { return rangeElems[oid] }

// RangeOf is the built-in range type over subtype elem (0: none).
func RangeOf(elem OID) OID {
	for r, e := range rangeElems {
		if e == elem {
			return r
		}
	}
	return 0
}

// IsMultirange says whether oid is a multirange type or an array of one,
// and its name.
func IsMultirange(oid OID) (string, bool) { n, ok := multiranges[oid]; return n, ok }

// MultirangeNamed says whether name (a typname or one with [] after it)
// is a multirange type's.
func MultirangeNamed(name string) bool {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), "[]")
	for _, m := range multiranges {
		if m == n {
			return true
		}
	}
	return false
}

// IsEmpty says whether r is the empty range.
func (r RangeVal) IsEmpty() bool { return r.Flags&RangeEmpty != 0 }

// bound is RangeBound: one end of a range.
type bound struct {
	val             Value
	inf, inc, lower bool
}

func (r RangeVal) bounds() (lo, hi bound) {
	return bound{r.Lower, r.Flags&RangeLBInf != 0, r.Flags&RangeLBInc != 0, true},
		bound{r.Upper, r.Flags&RangeUBInf != 0, r.Flags&RangeUBInc != 0, false}
}

// cmpBounds is range_cmp_bounds.
func cmpBounds(elem OID, b1, b2 bound) int {
	if c, done := cmpInfinite(b1, b2); done {
		return c
	}
	c := Compare(elem, b1.val, b2.val)
	if c != 0 {
		return c
	}
	switch {
	case !b1.inc && !b2.inc:
		if b1.lower == b2.lower {
			return 0
		}
		return pick(b1.lower, 1, -1)
	case !b1.inc:
		return pick(b1.lower, 1, -1)
	case !b2.inc:
		return pick(b2.lower, -1, 1)
	}
	return 0
}

// cmpBoundValues is range_cmp_bound_values (the inclusive flags ignored).
func cmpBoundValues(elem OID, b1, b2 bound) int {
	if c, done := cmpInfinite(b1, b2); done {
		return c
	}
	return Compare(elem, b1.val, b2.val)
}

func cmpInfinite(b1, b2 bound) (int, bool) {
	switch {
	case b1.inf && b2.inf:
		if b1.lower == b2.lower {
			return 0, true
		}
		return pick(b1.lower, -1, 1), true
	case b1.inf:
		return pick(b1.lower, -1, 1), true
	case b2.inf:
		return pick(b2.lower, 1, -1), true
	}
	return 0, false
}

func pick(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

// makeRange is make_range: range_serialize's checks (lower above upper
// is 22000; equal bounds not both inclusive make the empty range;
// infinite bounds are never inclusive), then the type's canonical
// function for the discrete types.
func makeRange(oid OID, lo, hi bound, empty bool) (RangeVal, error) {
	r, err := serializeRange(oid, lo, hi, empty)
	if err != nil || r.IsEmpty() {
		return r, err
	}
	switch oid {
	case Int4range, Int8range, Daterange:
		return canonicalRange(oid, r)
	}
	return r, nil
}

func serializeRange(oid OID, lo, hi bound, empty bool) (RangeVal, error) {
	if empty {
		return RangeVal{Flags: RangeEmpty}, nil
	}
	elem := rangeElems[oid]
	c := cmpBoundValues(elem, lo, hi)
	if c > 0 {
		return RangeVal{}, errorf("22000", "range lower bound must be less than or equal to range upper bound")
	}
	if c == 0 && !(lo.inc && hi.inc) {
		return RangeVal{Flags: RangeEmpty}, nil
	}
	var r RangeVal
	if lo.inf {
		r.Flags |= RangeLBInf
	} else {
		r.Lower = lo.val
		if lo.inc {
			r.Flags |= RangeLBInc
		}
	}
	if hi.inf {
		r.Flags |= RangeUBInf
	} else {
		r.Upper = hi.val
		if hi.inc {
			r.Flags |= RangeUBInc
		}
	}
	return r, nil
}

// canonicalRange is int4range_canonical, int8range_canonical and
// daterange_canonical: an exclusive lower bound and an inclusive upper
// bound move up by one (an infinite date stays), then range_serialize.
func canonicalRange(oid OID, r RangeVal) (RangeVal, error) {
	lo, hi := r.bounds()
	next := func(v Value) (Value, error) {
		switch oid {
		case Int4range:
			if v.(int64) == 1<<31-1 {
				return nil, errorf(CodeOutOfRange, "integer out of range")
			}
			return v.(int64) + 1, nil
		case Int8range:
			if v.(int64) == 1<<63-1 {
				return nil, errorf(CodeOutOfRange, "bigint out of range")
			}
			return v.(int64) + 1, nil
		}
		d := v.(DateVal) + 1
		if d > maxValidDate {
			return nil, errorf(CodeDatetimeField, "date out of range")
		}
		return d, nil
	}
	finite := func(b bound) bool {
		if b.inf {
			return false
		}
		if d, ok := b.val.(DateVal); ok && (d == DatePosInf || d == DateNegInf) {
			return false
		}
		return true
	}
	var err error
	if finite(lo) && !lo.inc {
		if lo.val, err = next(lo.val); err != nil {
			return RangeVal{}, err
		}
		lo.inc = true
	}
	if finite(hi) && hi.inc {
		if hi.val, err = next(hi.val); err != nil {
			return RangeVal{}, err
		}
		hi.inc = false
	}
	return serializeRange(oid, lo, hi, false)
}

// maxValidDate is the last date IS_VALID_DATE accepts (5874897-12-31)
// as days since 2000-01-01.
const maxValidDate = DateVal(2147483494 - 2451545 - 1)

// MakeRange is the range constructors (int4range(a, b [, flags])): a nil
// bound is infinite; flags is "[)" for the two-argument form.
func MakeRange(oid OID, lower, upper Value, flags string) (RangeVal, error) {
	if len(flags) != 2 || (flags[0] != '[' && flags[0] != '(') || (flags[1] != ']' && flags[1] != ')') {
		e := errorf(CodeSyntax, "invalid range bound flags")
		e.Hint = `Valid values are "[]", "[)", "(]", and "()".`
		return RangeVal{}, e
	}
	return makeRange(oid, bound{val: lower, inf: lower == nil, inc: flags[0] == '[', lower: true},
		bound{val: upper, inf: upper == nil, inc: flags[1] == ']'}, false)
}

// ParseRange is range_in: the literal's syntax (22P02 "malformed range
// literal"), each bound read by the subtype's input function (a
// timestamptz without an offset in zone z), then make_range.
func ParseRange(oid OID, s string, z *Zone) (RangeVal, error) {
	malformed := func(detail string) error {
		return errorf(CodeInvalidText, "malformed range literal: \"%s\"", s).detail("%s", detail)
	}
	p := 0
	for p < len(s) && isCSpace(s[p]) {
		p++
	}
	if len(s)-p >= 5 && strings.EqualFold(s[p:p+5], "empty") {
		p += 5
		for p < len(s) && isCSpace(s[p]) {
			p++
		}
		if p != len(s) {
			return RangeVal{}, malformed(`Junk after "empty" key word.`)
		}
		return RangeVal{Flags: RangeEmpty}, nil
	}
	var lo, hi bound
	lo.lower = true
	switch {
	case p < len(s) && s[p] == '[':
		lo.inc = true
		p++
	case p < len(s) && s[p] == '(':
		p++
	default:
		return RangeVal{}, malformed("Missing left parenthesis or bracket.")
	}
	var loText, hiText string
	var err error
	if loText, lo.inf, p, err = parseRangeBound(s, p, malformed); err != nil {
		return RangeVal{}, err
	}
	if p >= len(s) || s[p] != ',' {
		return RangeVal{}, malformed("Missing comma after lower bound.")
	}
	p++
	if hiText, hi.inf, p, err = parseRangeBound(s, p, malformed); err != nil {
		return RangeVal{}, err
	}
	switch {
	case p < len(s) && s[p] == ']':
		hi.inc = true
		p++
	case p < len(s) && s[p] == ')':
		p++
	default:
		return RangeVal{}, malformed("Too many commas.")
	}
	for p < len(s) && isCSpace(s[p]) {
		p++
	}
	if p != len(s) {
		return RangeVal{}, malformed("Junk after right parenthesis or bracket.")
	}
	elem := rangeElems[oid]
	if !lo.inf {
		if lo.val, err = InIn(elem, -1, loText, z); err != nil {
			return RangeVal{}, err
		}
	}
	if !hi.inf {
		if hi.val, err = InIn(elem, -1, hiText, z); err != nil {
			return RangeVal{}, err
		}
	}
	return makeRange(oid, lo, hi, false)
}

// parseRangeBound is range_parse_bound: an empty bound is infinite;
// double quotes group, a doubled quote inside them is one, a backslash
// takes the next character.
func parseRangeBound(s string, p int, malformed func(string) error) (string, bool, int, error) {
	if p < len(s) && (s[p] == ',' || s[p] == ')' || s[p] == ']') {
		return "", true, p, nil
	}
	var b strings.Builder
	inQuote := false
	for inQuote || p >= len(s) || !(s[p] == ',' || s[p] == ')' || s[p] == ']') {
		if p >= len(s) {
			return "", false, p, malformed("Unexpected end of input.")
		}
		c := s[p]
		p++
		switch {
		case c == '\\':
			if p >= len(s) {
				return "", false, p, malformed("Unexpected end of input.")
			}
			b.WriteByte(s[p])
			p++
		case c == '"':
			if !inQuote {
				inQuote = true
			} else if p < len(s) && s[p] == '"' {
				b.WriteByte('"')
				p++
			} else {
				inQuote = false
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), false, p, nil
}

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// AppendRangeOut is range_out: each bound printed by the subtype's output
// function (a timestamptz in zone z), quoted by range_bound_escape.
func AppendRangeOut(dst []byte, oid OID, r RangeVal, z *Zone) []byte {
	if r.IsEmpty() {
		return append(dst, "empty"...)
	}
	elem := rangeElems[oid]
	dst = append(dst, "(["[b2i(r.Flags&RangeLBInc != 0)])
	if r.Flags&RangeLBInf == 0 {
		dst = appendRangeBound(dst, OutIn(elem, r.Lower, z))
	}
	dst = append(dst, ',')
	if r.Flags&RangeUBInf == 0 {
		dst = appendRangeBound(dst, OutIn(elem, r.Upper, z))
	}
	return append(dst, ")]"[b2i(r.Flags&RangeUBInc != 0)])
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendRangeBound is range_bound_escape.
func appendRangeBound(dst []byte, v string) []byte {
	quote := v == "" || strings.ContainsAny(v, "\"\\()[],") || strings.IndexFunc(v, func(r rune) bool { return r < 0x80 && isCSpace(byte(r)) }) >= 0
	if quote {
		dst = append(dst, '"')
	}
	for i := 0; i < len(v); i++ {
		if v[i] == '"' || v[i] == '\\' {
			dst = append(dst, v[i])
		}
		dst = append(dst, v[i])
	}
	if quote {
		dst = append(dst, '"')
	}
	return dst
}

// appendRangeSend is range_send: the flag byte, then each finite bound
// as a 4-byte length and the subtype's send form.
func appendRangeSend(dst []byte, oid OID, r RangeVal) ([]byte, error) {
	dst = append(dst, r.Flags)
	elem := rangeElems[oid]
	for i, v := range []Value{r.Lower, r.Upper} {
		if r.IsEmpty() || r.Flags&[]byte{RangeLBInf, RangeUBInf}[i] != 0 {
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		var err error
		if dst, err = AppendSend(dst, elem, v); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst, nil
}

// recvRange is range_recv: the flags (unknown bits masked off), the
// bounds by the subtype's receive function, then make_range.
func recvRange(oid OID, b []byte) (Value, error) {
	bad := errorf(CodeInvalidBinary, "insufficient data left in message")
	if len(b) < 1 {
		return nil, bad
	}
	flags := b[0] & (RangeEmpty | RangeLBInc | RangeLBInf | RangeUBInc | RangeUBInf)
	b = b[1:]
	elem := rangeElems[oid]
	var vals [2]Value
	for i, inf := range []byte{RangeLBInf, RangeUBInf} {
		if flags&(RangeEmpty|inf) != 0 {
			continue
		}
		if len(b) < 4 {
			return nil, bad
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(n) > uint64(len(b)-4) {
			return nil, bad
		}
		v, err := recv(elem, b[4:4+n])
		if err != nil {
			return nil, err
		}
		vals[i], b = v, b[4+n:]
	}
	if len(b) != 0 {
		return nil, errorf(CodeInvalidBinary, "incorrect binary data format")
	}
	return makeRange(oid, bound{vals[0], flags&RangeLBInf != 0, flags&RangeLBInc != 0, true},
		bound{vals[1], flags&RangeUBInf != 0, flags&RangeUBInc != 0, false}, flags&RangeEmpty != 0)
}

// CompareRange is range_cmp: the empty range first, then by lower bound,
// then by upper bound.
func CompareRange(oid OID, a, b RangeVal) int {
	switch ea, eb := a.IsEmpty(), b.IsEmpty(); {
	case ea && eb:
		return 0
	case ea:
		return -1
	case eb:
		return 1
	}
	elem := rangeElems[oid]
	l1, u1 := a.bounds()
	l2, u2 := b.bounds()
	if c := cmpBounds(elem, l1, l2); c != 0 {
		return c
	}
	return cmpBounds(elem, u1, u2)
}

// hashRange hashes the flags and each finite bound by the subtype's
// hash, so ranges CompareRange finds equal hash alike (their canonical
// forms have equal flags and bounds).
func hashRange(h *maphash.Hash, seed maphash.Seed, oid OID, r RangeVal) {
	elem := rangeElems[oid]
	h.WriteByte(r.Flags)
	var b [8]byte
	for i, v := range []Value{r.Lower, r.Upper} {
		if r.IsEmpty() || r.Flags&[]byte{RangeLBInf, RangeUBInf}[i] != 0 {
			continue
		}
		binary.BigEndian.PutUint64(b[:], Hash(seed, elem, v))
		h.Write(b[:])
	}
}

// RangeContainsElem is range_contains_elem_internal (@> element).
func RangeContainsElem(oid OID, r RangeVal, v Value) bool {
	if r.IsEmpty() {
		return false
	}
	elem := rangeElems[oid]
	if r.Flags&RangeLBInf == 0 {
		c := Compare(elem, r.Lower, v)
		if c > 0 || c == 0 && r.Flags&RangeLBInc == 0 {
			return false
		}
	}
	if r.Flags&RangeUBInf == 0 {
		c := Compare(elem, r.Upper, v)
		if c < 0 || c == 0 && r.Flags&RangeUBInc == 0 {
			return false
		}
	}
	return true
}

// RangeContains is range_contains_internal (r1 @> r2).
func RangeContains(oid OID, r1, r2 RangeVal) bool {
	if r2.IsEmpty() {
		return true
	}
	if r1.IsEmpty() {
		return false
	}
	elem := rangeElems[oid]
	l1, u1 := r1.bounds()
	l2, u2 := r2.bounds()
	return cmpBounds(elem, l1, l2) <= 0 && cmpBounds(elem, u1, u2) >= 0
}

// RangeOverlaps is range_overlaps_internal (&&).
func RangeOverlaps(oid OID, r1, r2 RangeVal) bool {
	if r1.IsEmpty() || r2.IsEmpty() {
		return false
	}
	elem := rangeElems[oid]
	l1, u1 := r1.bounds()
	l2, u2 := r2.bounds()
	return cmpBounds(elem, l1, l2) >= 0 && cmpBounds(elem, l1, u2) <= 0 ||
		cmpBounds(elem, l2, l1) >= 0 && cmpBounds(elem, l2, u1) <= 0
}

// RangeBefore is range_before_internal (<<); RangeAfter (>>),
// RangeOverleft (&<) and RangeOverright (&>) likewise: false when either
// range is empty.
func RangeBefore(oid OID, r1, r2 RangeVal) bool {
	return rangePosition(oid, r1, r2, func(l1, u1, l2, u2 bound, e OID) bool { return cmpBounds(e, u1, l2) < 0 })
}

// RangeAfter is range_after_internal (>>).
func RangeAfter(oid OID, r1, r2 RangeVal) bool {
	return rangePosition(oid, r1, r2, func(l1, u1, l2, u2 bound, e OID) bool { return cmpBounds(e, l1, u2) > 0 })
}

// RangeOverleft is range_overleft_internal (&<).
func RangeOverleft(oid OID, r1, r2 RangeVal) bool {
	return rangePosition(oid, r1, r2, func(l1, u1, l2, u2 bound, e OID) bool { return cmpBounds(e, u1, u2) <= 0 })
}

// RangeOverright is range_overright_internal (&>).
func RangeOverright(oid OID, r1, r2 RangeVal) bool {
	return rangePosition(oid, r1, r2, func(l1, u1, l2, u2 bound, e OID) bool { return cmpBounds(e, l1, l2) >= 0 })
}

func rangePosition(oid OID, r1, r2 RangeVal, f func(l1, u1, l2, u2 bound, e OID) bool) bool {
	if r1.IsEmpty() || r2.IsEmpty() {
		return false
	}
	l1, u1 := r1.bounds()
	l2, u2 := r2.bounds()
	return f(l1, u1, l2, u2, rangeElems[oid])
}

// boundsAdjacent is bounds_adjacent: upper bound a and lower bound b
// touch with no point between (a discrete type's a..b canonicalizes to
// empty) and none in both.
func boundsAdjacent(oid OID, a, b bound) bool {
	c := cmpBoundValues(rangeElems[oid], a, b)
	switch {
	case c < 0:
		switch oid {
		case Int4range, Int8range, Daterange:
		default:
			return false
		}
		a.inc, b.inc = !a.inc, !b.inc
		a.lower, b.lower = true, false
		r, err := makeRange(oid, a, b, false)
		return err == nil && r.IsEmpty()
	case c == 0:
		return a.inc != b.inc
	}
	return false
}

// RangeAdjacent is range_adjacent_internal (-|-).
func RangeAdjacent(oid OID, r1, r2 RangeVal) bool {
	if r1.IsEmpty() || r2.IsEmpty() {
		return false
	}
	l1, u1 := r1.bounds()
	l2, u2 := r2.bounds()
	return boundsAdjacent(oid, u1, l2) || boundsAdjacent(oid, u2, l1)
}

// RangeUnion is range_union_internal: + (strict: 22000 when the ranges
// neither overlap nor touch) and range_merge (not strict).
func RangeUnion(oid OID, r1, r2 RangeVal, strict bool) (RangeVal, error) {
	if r1.IsEmpty() {
		return r2, nil
	}
	if r2.IsEmpty() {
		return r1, nil
	}
	if strict && !RangeOverlaps(oid, r1, r2) && !RangeAdjacent(oid, r1, r2) {
		return RangeVal{}, errorf("22000", "result of range union would not be contiguous")
	}
	elem := rangeElems[oid]
	l1, u1 := r1.bounds()
	l2, u2 := r2.bounds()
	lo, hi := l2, u2
	if cmpBounds(elem, l1, l2) < 0 {
		lo = l1
	}
	if cmpBounds(elem, u1, u2) > 0 {
		hi = u1
	}
	return makeRange(oid, lo, hi, false)
}

// RangeIntersect is range_intersect_internal (*).
func RangeIntersect(oid OID, r1, r2 RangeVal) (RangeVal, error) {
	if r1.IsEmpty() || r2.IsEmpty() || !RangeOverlaps(oid, r1, r2) {
		return RangeVal{Flags: RangeEmpty}, nil
	}
	elem := rangeElems[oid]
	l1, u1 := r1.bounds()
	l2, u2 := r2.bounds()
	lo, hi := l2, u2
	if cmpBounds(elem, l1, l2) >= 0 {
		lo = l1
	}
	if cmpBounds(elem, u1, u2) <= 0 {
		hi = u1
	}
	return makeRange(oid, lo, hi, false)
}

// RangeMinus is range_minus_internal (-): 22000 when r2 splits r1.
func RangeMinus(oid OID, r1, r2 RangeVal) (RangeVal, error) {
	if r1.IsEmpty() || r2.IsEmpty() {
		return r1, nil
	}
	elem := rangeElems[oid]
	l1, u1 := r1.bounds()
	l2, u2 := r2.bounds()
	cl1l2, cl1u2 := cmpBounds(elem, l1, l2), cmpBounds(elem, l1, u2)
	cu1l2, cu1u2 := cmpBounds(elem, u1, l2), cmpBounds(elem, u1, u2)
	switch {
	case cl1l2 < 0 && cu1u2 > 0:
		return RangeVal{}, errorf("22000", "result of range difference would not be contiguous")
	case cl1u2 > 0 || cu1l2 < 0:
		return r1, nil
	case cl1l2 >= 0 && cu1u2 <= 0:
		return RangeVal{Flags: RangeEmpty}, nil
	case cl1l2 <= 0 && cu1l2 >= 0 && cu1u2 <= 0:
		l2.inc, l2.lower = !l2.inc, false
		return makeRange(oid, l1, l2, false)
	case cl1l2 >= 0 && cu1u2 >= 0 && cl1u2 <= 0:
		u2.inc, u2.lower = !u2.inc, true
		return makeRange(oid, u2, u1, false)
	}
	return RangeVal{}, errorf("XX000", "unexpected case in range_minus")
}

// convertTstzrangeIn is the I/O cast between tstzrange and a string type
// in zone z: the bounds read and print local time of z.
func convertTstzrangeIn(v Value, from, to OID, mod int32, z *Zone) (Value, error) {
	switch {
	case from == Tstzrange && isStringType(to):
		return Convert(OutIn(Tstzrange, v, z), Text, to, mod)
	case to == Tstzrange && isStringType(from):
		if s, ok := v.(string); ok {
			return ParseRange(Tstzrange, s, z)
		}
	}
	return Convert(v, from, to, mod)
}
