package builtin

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

const (
	tx  = types.Text
	bpc = types.Bpchar
	bya = types.Bytea
	bo  = types.Bool
)

// maxResultBytes bounds the text a function builds (lpad, repeat,
// format widths): past it sidecar refuses rather than allocate by a
// client's number.
const maxResultBytes = 64 << 20

// allocLimit is PostgreSQL's MaxAllocSize test: a result of n bytes plus
// the varlena header that cannot be allocated is 54000.
func allocLimit(n int64) error {
	if n+4 > 0x3fffffff {
		return errorf(CodeProgramLimit, "requested length too large")
	}
	if n > maxResultBytes {
		return &Error{Code: CodeProgramLimit, Message: "sidecar limits a function's result to 64 MiB"}
	}
	return nil
}

func str(a types.Value) string { return a.(string) }
func i64(a types.Value) int64  { return a.(int64) }

func textFn(fn func(s string) (types.Value, error)) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return fn(str(a[0])) }
}

// isASCII says whether s has only 7-bit characters.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// caseMap is lower, upper or initcap under the context's case mapping
// (casemap.go): non-ASCII text is refused when it is not known.
func caseMap(fn func(m *CaseMap, s string) (string, error)) Impl {
	return func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		out, err := fn(caseOf(c), str(a[0]))
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func initcap(s string) string {
	b := []byte(s)
	prev := false
	for i, c := range b {
		switch {
		case prev && c >= 'A' && c <= 'Z':
			b[i] = c + 32
		case !prev && c >= 'a' && c <= 'z':
			b[i] = c - 32
		}
		prev = isAlnum(c)
	}
	return string(b)
}

// runeSlice is s[from:to) counted in characters (clamped).
func runeSlice(s string, from, to int64) string {
	if from < 0 {
		from = 0
	}
	if to <= from {
		return ""
	}
	i, start, end := int64(0), -1, len(s)
	for pos := range s {
		if i == from {
			start = pos
		}
		if i == to {
			end = pos
			break
		}
		i++
	}
	if start < 0 {
		return ""
	}
	return s[start:end]
}

// substr is text_substring: characters start … start+length-1 (1-based),
// length < 0 is 22011, no length is to the end.
func substr(s string, start int64, length int64, hasLen bool) (types.Value, error) {
	if !hasLen {
		return runeSlice(s, max(start, 1)-1, math.MaxInt64), nil
	}
	if length < 0 {
		return nil, errorf(CodeSubstringError, "negative substring length not allowed")
	}
	end := start + length
	if end < 1 {
		return "", nil
	}
	return runeSlice(s, max(start, 1)-1, end-1), nil
}

// strpos is the 1-based character position of sub in s (0: absent).
func strpos(s, sub string) int64 {
	i := strings.Index(s, sub)
	if i < 0 {
		return 0
	}
	return int64(utf8.RuneCountInString(s[:i])) + 1
}

// trimSet trims the characters of set from s's ends.
func trimSet(s, set string, left, right bool) string {
	in := func(r rune) bool { return strings.ContainsRune(set, r) }
	if left {
		s = strings.TrimLeftFunc(s, in)
	}
	if right {
		s = strings.TrimRightFunc(s, in)
	}
	return s
}

// pad is lpad/rpad.
func pad(s string, n int64, fill string, left bool) (types.Value, error) {
	n = max(n, 0)
	slen := int64(utf8.RuneCountInString(s))
	if slen > n {
		s = runeSlice(s, 0, n)
		slen = n
	}
	if fill == "" {
		n = slen
	}
	if n > math.MaxInt32/4 || allocLimit(4*n) != nil {
		if err := allocLimit(4 * n); err != nil {
			return nil, err
		}
	}
	fr := []rune(fill)
	var b strings.Builder
	if !left {
		b.WriteString(s)
	}
	for i := int64(0); i < n-slen; i++ {
		b.WriteRune(fr[i%int64(len(fr))])
	}
	if left {
		b.WriteString(s)
	}
	return b.String(), nil
}

// splitPart is split_part (field n, negative from the end).
func splitPart(s, sep string, n int64) (types.Value, error) {
	if n == 0 {
		return nil, errorf(CodeInvalidParameter, "field position must not be zero")
	}
	if s == "" {
		return "", nil
	}
	if sep == "" || !strings.Contains(s, sep) {
		if n == 1 || n == -1 {
			return s, nil
		}
		return "", nil
	}
	f := strings.Split(s, sep)
	if n < 0 {
		n += int64(len(f)) + 1
	}
	if n < 1 || n > int64(len(f)) {
		return "", nil
	}
	return f[n-1], nil
}

// quoteLiteral is quote_literal_cstr: '…' doubling quotes and
// backslashes, E'…' when there is a backslash.
func quoteLiteral(s string) string {
	var b strings.Builder
	if strings.Contains(s, `\`) {
		b.WriteByte('E')
	}
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' || s[i] == '\\' {
			b.WriteByte(s[i])
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
	return b.String()
}

// quoteIdent is quote_identifier: unquoted when all lower-case letters,
// digits and underscores, not starting with a digit, and not a keyword
// PostgreSQL reserves (any category but unreserved).
func quoteIdent(s string) string {
	safe := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; safe && i < len(s); i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && reservedKeywords[s] {
		safe = false
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// reservedKeywords are PostgreSQL 15's keywords of every category but
// unreserved (pg_get_keywords() with catcode <> 'U'): quote_ident quotes
// them.
var reservedKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization between bigint binary bit boolean both case cast char character check coalesce collate collation column concurrently constraint create cross current_catalog current_date current_role current_schema current_time current_timestamp current_user dec decimal default deferrable desc distinct do else end except exists extract false fetch float for foreign freeze from full grant greatest group grouping having ilike in initially inner inout int integer intersect interval into is isnull join lateral leading least left like limit localtime localtimestamp national natural nchar none normalize not notnull null nullif numeric offset on only or order out outer overlaps overlay placing position precision primary real references returning right row select session_user setof similar smallint some substring symmetric table tablesample then time timestamp to trailing treat trim true union unique user using values varchar variadic verbose when where window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		m[w] = true
	}
	return m
}()

// likeEscape is like_escape: a LIKE pattern with escape character esc
// rewritten to use backslash.
func likeEscape(p, esc string) (types.Value, error) {
	var b strings.Builder
	if esc == "" {
		for _, r := range p {
			if r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String(), nil
	}
	e, n := utf8.DecodeRuneInString(esc)
	if n != len(esc) {
		return nil, &Error{Code: CodeInvalidEscape, Message: "invalid escape string", Hint: "Escape string must be empty or one character."}
	}
	if e == '\\' {
		return p, nil
	}
	after := false
	for _, r := range p {
		switch {
		case r == e && !after:
			b.WriteByte('\\')
			after = true
		case r == '\\':
			b.WriteByte('\\')
			if !after {
				b.WriteByte('\\')
			}
			after = false
		default:
			b.WriteRune(r)
			after = false
		}
	}
	return b.String(), nil
}

// outText is the output function's text of v of type t (bool is t/f).
func outText(v types.Value, t OID) string {
	if s, ok := v.(string); ok && (t == types.Text || t == types.Varchar || t == types.Unknown || t == types.Name) {
		return s
	}
	return types.Out(t, v)
}

// castText is v::text (bool is true/false, bpchar without its blanks).
func castText(v types.Value, t OID) (string, error) {
	r, err := types.Convert(v, t, types.Text, -1)
	if err != nil {
		return "", err
	}
	return r.(string), nil
}

func (r *Registry) addStrings() {
	charLen := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return int64(utf8.RuneCountInString(str(a[0]))), nil
	}
	bpcharLen := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return int64(utf8.RuneCountInString(strings.TrimRight(str(a[0]), " "))), nil
	}
	for _, n := range []string{"length", "char_length", "character_length"} {
		r.def(n, i4, charLen, tx)
		r.def(n, i4, bpcharLen, bpc)
	}
	r.def("length", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return int64(len(a[0].([]byte))), nil }, bya)
	octets := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return int64(len(str(a[0]))), nil }
	r.def("octet_length", i4, octets, tx)
	// bpcharoctetlen is the stored size: a character(n) value holds its
	// padding (ApplyMod pads, replication and COPY send it padded), so
	// the blanks count, unlike length's bpcharlen.
	r.def("octet_length", i4, octets, bpc)
	r.def("octet_length", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return int64(len(a[0].([]byte))), nil }, bya)
	r.def("bit_length", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return 8 * int64(len(str(a[0]))), nil }, tx)

	r.def("upper", tx, caseMap((*CaseMap).Upper), tx)
	r.def("lower", tx, caseMap((*CaseMap).Lower), tx)
	r.def("initcap", tx, caseMap((*CaseMap).Initcap), tx)

	sub2 := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return substr(str(a[0]), i64(a[1]), 0, false)
	}
	sub3 := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return substr(str(a[0]), i64(a[1]), i64(a[2]), true)
	}
	for _, n := range []string{"substr", "substring"} {
		r.def(n, tx, sub2, tx, i4)
		r.def(n, tx, sub3, tx, i4, i4)
	}
	r.def("substring", tx, func(c *Context, a []types.Value, _ []OID) (types.Value, error) { // regexfuncs.go
		return regexSubstring(c, str(a[0]), str(a[1]))
	}, tx, tx)
	r.def("substring", tx, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		return similarSubstring(c, str(a[0]), str(a[1]), str(a[2]))
	}, tx, tx, tx)
	r.def("overlay", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return overlay(str(a[0]), str(a[1]), i64(a[2]), int64(utf8.RuneCountInString(str(a[1]))))
	}, tx, tx, i4)
	r.def("overlay", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return overlay(str(a[0]), str(a[1]), i64(a[2]), i64(a[3]))
	}, tx, tx, i4, i4)

	pos := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return strpos(str(a[0]), str(a[1])), nil
	}
	r.def("strpos", i4, pos, tx, tx)
	r.def("position", i4, pos, tx, tx)
	r.def("starts_with", bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return strings.HasPrefix(str(a[0]), str(a[1])), nil
	}, tx, tx)
	r.def("replace", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s, from := str(a[0]), str(a[1])
		if from == "" {
			return s, nil
		}
		n := strings.Count(s, from)
		if err := allocLimit(int64(len(s)) + int64(n)*(int64(len(str(a[2])))-int64(len(from)))); err != nil {
			return nil, err
		}
		return strings.ReplaceAll(s, from, str(a[2])), nil
	}, tx, tx, tx)

	for _, t := range []struct {
		name        string
		left, right bool
	}{{"btrim", true, true}, {"ltrim", true, false}, {"rtrim", false, true}} {
		t := t
		r.def(t.name, tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return trimSet(str(a[0]), " ", t.left, t.right), nil
		}, tx)
		r.def(t.name, tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return trimSet(str(a[0]), str(a[1]), t.left, t.right), nil
		}, tx, tx)
	}
	for _, p := range []struct {
		name string
		left bool
	}{{"lpad", true}, {"rpad", false}} {
		p := p
		r.def(p.name, tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return pad(str(a[0]), i64(a[1]), " ", p.left)
		}, tx, i4)
		r.def(p.name, tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return pad(str(a[0]), i64(a[1]), str(a[2]), p.left)
		}, tx, i4, tx)
	}
	r.def("repeat", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s, n := str(a[0]), max(i64(a[1]), 0)
		if n*int64(len(s)) > math.MaxInt32 || allocLimit(n*int64(len(s))) != nil {
			if n*int64(len(s)) > math.MaxInt32 {
				return nil, errorf(CodeProgramLimit, "requested length too large")
			}
			return nil, allocLimit(n * int64(len(s)))
		}
		return strings.Repeat(s, int(n)), nil
	}, tx, i4)
	r.def("reverse", tx, textFn(func(s string) (types.Value, error) {
		rs := []rune(s)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	}), tx)
	r.def("left", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s, n := str(a[0]), i64(a[1])
		if n < 0 {
			n += int64(utf8.RuneCountInString(s))
		}
		return runeSlice(s, 0, n), nil
	}, tx, i4)
	r.def("right", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s, n := str(a[0]), i64(a[1])
		l := int64(utf8.RuneCountInString(s))
		if n < 0 {
			return runeSlice(s, -n, l), nil
		}
		return runeSlice(s, l-n, l), nil
	}, tx, i4)
	r.def("split_part", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return splitPart(str(a[0]), str(a[1]), i64(a[2]))
	}, tx, tx, i4)
	r.def("translate", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		from, to := []rune(str(a[1])), []rune(str(a[2]))
		var b strings.Builder
		for _, c := range str(a[0]) {
			i := -1
			for k, f := range from {
				if f == c {
					i = k
					break
				}
			}
			switch {
			case i < 0:
				b.WriteRune(c)
			case i < len(to):
				b.WriteRune(to[i])
			}
		}
		return b.String(), nil
	}, tx, tx, tx)

	r.def("concat", tx, func(_ *Context, a []types.Value, p []OID) (types.Value, error) {
		var b strings.Builder
		for i, v := range a {
			if v != nil {
				b.WriteString(outText(v, p[i]))
			}
		}
		return b.String(), nil
	}, Any).variadic().nonStrict().stable()
	r.def("concat_ws", tx, func(_ *Context, a []types.Value, p []OID) (types.Value, error) {
		if a[0] == nil {
			return nil, nil
		}
		var b strings.Builder
		first := true
		for i, v := range a[1:] {
			if v == nil {
				continue
			}
			if !first {
				b.WriteString(str(a[0]))
			}
			first = false
			b.WriteString(outText(v, p[i+1]))
		}
		return b.String(), nil
	}, tx, Any).variadic().nonStrict().stable()
	r.def("format", tx, formatImpl, tx).nonStrict().stable()
	r.def("format", tx, formatImpl, tx, Any).variadic().nonStrict().stable()

	r.def("md5", tx, textFn(func(s string) (types.Value, error) {
		h := md5.Sum([]byte(s))
		return hex.EncodeToString(h[:]), nil
	}), tx)
	r.def("md5", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		h := md5.Sum(a[0].([]byte))
		return hex.EncodeToString(h[:]), nil
	}, bya)
	r.def("ascii", i4, textFn(func(s string) (types.Value, error) {
		if s == "" {
			return int64(0), nil
		}
		c, _ := utf8.DecodeRuneInString(s)
		return int64(c), nil
	}), tx)
	r.def("chr", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		if a[0].(int64) < 0 {
			return nil, r.chrNegative(a[0].(int64))
		}
		c := uint32(a[0].(int64))
		switch {
		case c == 0:
			return nil, errorf(CodeProgramLimit, "null character not permitted")
		case c > 0x10ffff:
			return nil, errorf(CodeProgramLimit, "requested character too large for encoding: %d", c)
		case c >= 0xd800 && c <= 0xdfff:
			return nil, errorf(CodeProgramLimit, "requested character not valid for encoding: %d", c)
		}
		return string(rune(c)), nil
	}, i4)
	r.def("to_hex", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return strconv.FormatUint(uint64(uint32(a[0].(int64))), 16), nil
	}, i4)
	r.def("to_hex", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return strconv.FormatUint(uint64(a[0].(int64)), 16), nil
	}, i8)
	r.def("quote_ident", tx, textFn(r.quoteIdentFor), tx)
	r.def("quote_literal", tx, textFn(func(s string) (types.Value, error) { return quoteLiteral(s), nil }), tx)
	r.def("quote_literal", tx, func(_ *Context, a []types.Value, p []OID) (types.Value, error) {
		s, err := castText(a[0], p[0])
		if err != nil {
			return nil, err
		}
		return quoteLiteral(s), nil
	}, AnyElement).stable()
	r.def("quote_nullable", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		if a[0] == nil {
			return "NULL", nil
		}
		return quoteLiteral(str(a[0])), nil
	}, tx).nonStrict()
	r.def("quote_nullable", tx, func(_ *Context, a []types.Value, p []OID) (types.Value, error) {
		if a[0] == nil {
			return "NULL", nil
		}
		s, err := castText(a[0], p[0])
		if err != nil {
			return nil, err
		}
		return quoteLiteral(s), nil
	}, AnyElement).nonStrict().stable()
	r.def("like_escape", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return likeEscape(str(a[0]), str(a[1]))
	}, tx, tx)
}

// overlay is textoverlay: s with n characters from position from replaced
// by placing.
func overlay(s, placing string, from, n int64) (types.Value, error) {
	if from+n > math.MaxInt32 || from+n < math.MinInt32 {
		return nil, outOfRange(i4)
	}
	if from <= 0 {
		return nil, errorf(CodeSubstringError, "negative substring length not allowed")
	}
	head, err := substr(s, 1, from-1, true)
	if err != nil {
		return nil, err
	}
	tail, _ := substr(s, from+n, 0, false)
	return head.(string) + placing + tail.(string), nil
}
