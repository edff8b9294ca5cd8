package heap

import (
	"bytes"
	"math"
	"math/big"
	"math/bits"
)

// Int128 is an exact two's-complement 128-bit integer: the sum of any
// number of int64 values that a table can hold (PostgreSQL's sum(int8) is
// numeric for the same reason).
type Int128 struct {
	Hi int64
	Lo uint64
}

// Add adds v.
func (a *Int128) Add(v int64) {
	lo, carry := bits.Add64(a.Lo, uint64(v), 0)
	a.Lo = lo
	a.Hi += v>>63 + int64(carry)
}

// Sub subtracts v.
func (a *Int128) Sub(v int64) {
	lo, borrow := bits.Sub64(a.Lo, uint64(v), 0)
	a.Lo = lo
	a.Hi -= v>>63 + int64(borrow)
}

// AddInt128 adds b.
func (a *Int128) AddInt128(b Int128) {
	lo, carry := bits.Add64(a.Lo, b.Lo, 0)
	a.Lo = lo
	a.Hi += b.Hi + int64(carry)
}

// Big returns the value as a big.Int.
func (a Int128) Big() *big.Int {
	v := new(big.Int).SetInt64(a.Hi)
	v.Lsh(v, 64)
	return v.Add(v, new(big.Int).SetUint64(a.Lo))
}

// String prints the value in decimal.
func (a Int128) String() string { return a.Big().String() }

// Decimal is an exact decimal: Unscaled / 10^Scale.
type Decimal struct {
	Unscaled big.Int
	Scale    int32
}

// add adds u/10^s to d (s ≥ 0), rescaling d when s is larger.
func (d *Decimal) add(u int64, s int32, tmp *big.Int) {
	tmp.SetInt64(u)
	d.addBig(tmp, s)
}

func (d *Decimal) addBig(u *big.Int, s int32) {
	switch {
	case s > d.Scale:
		d.Unscaled.Mul(&d.Unscaled, pow10(s-d.Scale))
		d.Scale = s
		d.Unscaled.Add(&d.Unscaled, u)
	case s < d.Scale:
		t := new(big.Int).Mul(u, pow10(d.Scale-s))
		d.Unscaled.Add(&d.Unscaled, t)
	default:
		d.Unscaled.Add(&d.Unscaled, u)
	}
}

// smallPow10 holds 10^0 … 10^38, read-only: the rescalings of sums of
// ordinary scales need no exponentiation.
var smallPow10 = func() (t [39]*big.Int) {
	for i := range t {
		t[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
	}
	return t
}()

// pow10 returns 10^n; the result must not be modified.
func pow10(n int32) *big.Int {
	if int(n) < len(smallPow10) {
		return smallPow10[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// String prints the decimal as numeric_out would print a value of that
// scale.
func (d *Decimal) String() string {
	s := d.Unscaled.String()
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if d.Scale > 0 {
		for int32(len(s)) <= d.Scale {
			s = "0" + s
		}
		s = s[:int32(len(s))-d.Scale] + "." + s[int32(len(s))-d.Scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func (d *Decimal) clone() *Decimal {
	if d == nil {
		return nil
	}
	c := &Decimal{Scale: d.Scale}
	c.Unscaled.Set(&d.Unscaled)
	return c
}

// ColStats summarises the live values of one column over a page or a
// table, maintained on every apply, so that unfiltered count, sum, min and
// max need no value and filters can skip pages (zone maps).
//
// Min and max are exact (recomputed at the end of every batch where a
// deletion or update removed the last value equal to one of them): MinI/
// MaxI for the integer kinds, bool, dates and timestamps, MinF/MaxF for
// floats, MinB/MaxB for text (bytewise: PostgreSQL's order under COLLATE
// "C"), MinN/MaxN for numeric (by value). Sums are kept for the integer kinds (Sum,
// exact in 128 bits) and numeric (NumSum, exact; NaN and ±Infinity are
// counted apart, as they absorb any sum). Float sums are not kept:
// PostgreSQL's float sum depends on the order of addition, so a kernel
// sums in scan order.
type ColStats struct {
	Count int64 // non-NULL live values
	Nulls int64 // NULL live values

	Sum        Int128  // integer kinds and bool
	MinI, MaxI int64   // integer kinds, bool, date, timestamp (valid when Count > 0)
	MinF, MaxF float64 // float kinds, PostgreSQL order: NaN above +Infinity (valid when Count > 0)

	MinB, MaxB []byte  // text; shared, never modified once published (see ownMin)
	MinN, MaxN Numeric // numeric

	NumSum                       *Decimal // numeric: sum of the finite values (its Scale never shrinks: it can exceed the largest scale among the live values, which is what PostgreSQL prints)
	NumNaN, NumPosInf, NumNegInf int64    // numeric specials among the values

	// nMin, nMax count the live values equal to the min and the max, so
	// that removing one of them makes min/max stale only when it was the
	// last.
	nMin, nMax int64
	stale      bool // min/max may be wider than the values: recompute
	// ownMin, ownMax: MinB (MaxB) is a buffer this ColStats allocated
	// itself and nobody else holds, so widening may overwrite it in place
	// instead of cloning per value (a copy's rows arrive in key order, so
	// a text key is a new max on every insert). clone clears them: a
	// published version's stats are shared, and the next batch writes a
	// clone.
	ownMin, ownMax bool
}

// HasMinMax reports whether the min/max fields of kind k are meaningful.
func (s *ColStats) HasMinMax(k Kind) bool { return s.Count > 0 }

// Numeric is one numeric value: Unscaled / 10^Scale, or, when Text is
// set, the value Text prints (NaN, Infinity, -Infinity, or a finite value
// of more than 18 digits).
type Numeric struct {
	Unscaled int64
	Scale    uint8
	Text     []byte
}

// numClass orders the numeric specials as PostgreSQL does:
// -Infinity < finite < Infinity < NaN.
func numClass(n *Numeric) int {
	switch string(n.Text) {
	case "-Infinity":
		return -1
	case "Infinity":
		return 1
	case "NaN":
		return 2
	}
	return 0
}

// CompareNumeric compares two numerics by value in PostgreSQL's order
// (NaN equals NaN and is above every other value).
func CompareNumeric(a, b *Numeric) int {
	ca, cb := numClass(a), numClass(b)
	if ca != cb || ca != 0 {
		return ca - cb
	}
	if a.Text == nil && b.Text == nil && a.Scale == b.Scale {
		switch {
		case a.Unscaled < b.Unscaled:
			return -1
		case a.Unscaled > b.Unscaled:
			return 1
		}
		return 0
	}
	return numRat(a).Cmp(numRat(b))
}

func numRat(n *Numeric) *big.Rat {
	if n.Text != nil {
		u, scale, ok := ParseNumeric(n.Text)
		if !ok {
			return new(big.Rat)
		}
		return new(big.Rat).SetFrac(u, pow10(scale))
	}
	return new(big.Rat).SetFrac(big.NewInt(n.Unscaled), pow10(int32(n.Scale)))
}

func (s *ColStats) clone() ColStats {
	c := *s
	c.NumSum = s.NumSum.clone()
	c.ownMin, c.ownMax = false, false
	return c
}

// floatLess orders floats as PostgreSQL does: NaN equals NaN and is above
// everything; -0 equals 0.
func floatLess(a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	if math.IsNaN(b) {
		return true
	}
	return a < b
}

// addValue accounts one live value (null or typed/text).
func (s *ColStats) addValue(k Kind, null bool, v *typed, text []byte, tmp *big.Int) {
	if null {
		s.Nulls++
		return
	}
	first := s.Count == 0
	s.Count++
	switch {
	case k == KindText:
		s.extendB(text, first, 1)
	case k == KindNumeric:
		s.addNumeric(v, text, 1, tmp)
		n := numericOf(v, text)
		s.extendN(&n, first, 1)
	case k.IsInt():
		if k != KindDate && k != KindTimestamp && k != KindTimestampTZ {
			s.Sum.Add(v.i)
		}
		s.extendI(v.i, first, 1)
	case k.IsFloat():
		s.extendF(v.f, first, 1)
	}
}

// extendI widens the integer min/max by n values equal to v.
func (s *ColStats) extendI(v int64, first bool, n int64) {
	switch {
	case first || v < s.MinI:
		s.MinI, s.nMin = v, n
	case v == s.MinI:
		s.nMin += n
	}
	switch {
	case first || v > s.MaxI:
		s.MaxI, s.nMax = v, n
	case v == s.MaxI:
		s.nMax += n
	}
}

func numericOf(v *typed, text []byte) Numeric {
	if v.exc {
		return Numeric{Text: text}
	}
	return Numeric{Unscaled: v.i, Scale: v.scale}
}

// extendB widens the text min/max by n values equal to v (copied when
// kept: into the buffer the side already owns when it is large enough).
func (s *ColStats) extendB(v []byte, first bool, n int64) {
	switch c := bytes.Compare(v, s.MinB); {
	case first || c < 0:
		s.MinB, s.ownMin, s.nMin = keepB(s.MinB, s.ownMin, v), true, n
	case c == 0:
		s.nMin += n
	}
	switch c := bytes.Compare(v, s.MaxB); {
	case first || c > 0:
		s.MaxB, s.ownMax, s.nMax = keepB(s.MaxB, s.ownMax, v), true, n
	case c == 0:
		s.nMax += n
	}
}

// keepB returns a private copy of v (never nil): old's buffer when own
// says nobody else holds it and it is large enough, else a new one.
func keepB(old []byte, own bool, v []byte) []byte {
	if own && cap(old) >= len(v) {
		return append(old[:0], v...)
	}
	b := make([]byte, len(v), max(len(v), 16))
	copy(b, v)
	return b
}

// extendN widens the numeric min/max by n values equal to v (its text
// copied when kept).
func (s *ColStats) extendN(v *Numeric, first bool, n int64) {
	keep := func() Numeric {
		c := *v
		if c.Text != nil {
			c.Text = bytes.Clone(c.Text)
		}
		return c
	}
	switch c := CompareNumeric(v, &s.MinN); {
	case first || c < 0:
		s.MinN, s.nMin = keep(), n
	case c == 0:
		s.nMin += n
	}
	switch c := CompareNumeric(v, &s.MaxN); {
	case first || c > 0:
		s.MaxN, s.nMax = keep(), n
	case c == 0:
		s.nMax += n
	}
}

func floatEq(a, b float64) bool { return !floatLess(a, b) && !floatLess(b, a) }

// extendF widens the float min/max by n values equal to v.
func (s *ColStats) extendF(v float64, first bool, n int64) {
	switch {
	case first || floatLess(v, s.MinF):
		s.MinF, s.nMin = v, n
	case floatEq(v, s.MinF):
		s.nMin += n
	}
	switch {
	case first || floatLess(s.MaxF, v):
		s.MaxF, s.nMax = v, n
	case floatEq(v, s.MaxF):
		s.nMax += n
	}
}

// removeValue un-accounts one live value.
func (s *ColStats) removeValue(k Kind, null bool, v *typed, text []byte, tmp *big.Int) {
	if null {
		s.Nulls--
		return
	}
	s.Count--
	switch {
	case k == KindText:
		if bytes.Equal(text, s.MinB) {
			s.nMin--
		}
		if bytes.Equal(text, s.MaxB) {
			s.nMax--
		}
		if s.Count > 0 && (s.nMin <= 0 || s.nMax <= 0) {
			s.stale = true
		}
	case k == KindNumeric:
		s.addNumeric(v, text, -1, tmp)
		n := numericOf(v, text)
		if CompareNumeric(&n, &s.MinN) == 0 {
			s.nMin--
		}
		if CompareNumeric(&n, &s.MaxN) == 0 {
			s.nMax--
		}
		if s.Count > 0 && (s.nMin <= 0 || s.nMax <= 0) {
			s.stale = true
		}
	case k.IsInt():
		if k != KindDate && k != KindTimestamp && k != KindTimestampTZ {
			s.Sum.Sub(v.i)
		}
		if v.i == s.MinI {
			s.nMin--
		}
		if v.i == s.MaxI {
			s.nMax--
		}
		if s.Count > 0 && (s.nMin <= 0 || s.nMax <= 0) {
			s.stale = true
		}
	case k.IsFloat():
		if floatEq(v.f, s.MinF) {
			s.nMin--
		}
		if floatEq(v.f, s.MaxF) {
			s.nMax--
		}
		if s.Count > 0 && (s.nMin <= 0 || s.nMax <= 0) {
			s.stale = true
		}
	}
}

// addNumeric adds sign × the value to the numeric sum.
func (s *ColStats) addNumeric(v *typed, text []byte, sign int64, tmp *big.Int) {
	if !v.exc {
		if s.NumSum == nil {
			s.NumSum = &Decimal{}
		}
		s.NumSum.add(sign*v.i, int32(v.scale), tmp)
		return
	}
	switch string(text) {
	case "NaN":
		s.NumNaN += sign
		return
	case "Infinity":
		s.NumPosInf += sign
		return
	case "-Infinity":
		s.NumNegInf += sign
		return
	}
	u, scale, ok := ParseNumeric(text)
	if !ok {
		return // parseNumeric accepted it: cannot happen
	}
	if sign < 0 {
		u.Neg(u)
	}
	if s.NumSum == nil {
		s.NumSum = &Decimal{}
	}
	s.NumSum.addBig(u, scale)
}

// ParseNumeric parses a finite numeric text of any length into its
// unscaled value and scale (for the exceptions of a numeric segment).
func ParseNumeric(text []byte) (*big.Int, int32, bool) {
	var digits []byte
	scale := int32(-1)
	neg := false
	for i, c := range text {
		switch {
		case c == '-' && i == 0:
			neg = true
		case c == '.' && scale < 0:
			scale = 0
		case c >= '0' && c <= '9':
			digits = append(digits, c)
			if scale >= 0 {
				scale++
			}
		default:
			return nil, 0, false
		}
	}
	if len(digits) == 0 {
		return nil, 0, false
	}
	if scale < 0 {
		scale = 0
	}
	u, ok := new(big.Int).SetString(string(digits), 10)
	if !ok {
		return nil, 0, false
	}
	if neg {
		u.Neg(u)
	}
	return u, scale, true
}

// merge adds the counts and sums of o into s and widens min/max (table
// totals from page summaries).
func (s *ColStats) merge(k Kind, o *ColStats) {
	if o.Count > 0 {
		first := s.Count == 0
		// Neither side may widen in place here: mx shares s's buffers.
		s.ownMin, s.ownMax = false, false
		mx := *s // the max side, merged apart from the min side
		switch {
		case k == KindText:
			s.extendB(o.MinB, first, o.nMin)
			mx.extendB(o.MaxB, first, o.nMax)
		case k == KindNumeric:
			s.extendN(&o.MinN, first, o.nMin)
			mx.extendN(&o.MaxN, first, o.nMax)
		case k.IsFloat():
			s.extendF(o.MinF, first, o.nMin)
			mx.extendF(o.MaxF, first, o.nMax)
		case k.IsInt():
			s.extendI(o.MinI, first, o.nMin)
			mx.extendI(o.MaxI, first, o.nMax)
		}
		s.MaxI, s.MaxF, s.MaxB, s.MaxN, s.nMax = mx.MaxI, mx.MaxF, mx.MaxB, mx.MaxN, mx.nMax
		s.ownMax = false
	}
	s.Count += o.Count
	s.Nulls += o.Nulls
	s.Sum.AddInt128(o.Sum)
	if o.NumSum != nil {
		if s.NumSum == nil {
			s.NumSum = &Decimal{}
		}
		s.NumSum.addBig(&o.NumSum.Unscaled, o.NumSum.Scale)
	}
	s.NumNaN += o.NumNaN
	s.NumPosInf += o.NumPosInf
	s.NumNegInf += o.NumNegInf
}
