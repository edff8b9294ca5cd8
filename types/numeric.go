package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is an exact numeric value: V × 10^-Scale with Scale the display
// scale (≥ 0), or NaN, or ±Infinity (Inf = +1 / -1). The zero value is 0.
type Decimal struct {
	V     big.Int
	Scale int32
	NaN   bool
	Inf   int8
}

// Numeric limits: NUMERIC_MAX_DISPLAY_SCALE (results of division and the
// like), NUMERIC_DSCALE_MAX and the digits NUMERIC_WEIGHT_MAX allows
// before the point (what a value can hold at all).
const (
	maxNumericScale = 1000
	maxDscale       = 0x3FFF
	maxIntDigits    = 131072
)

// DecimalFromInt is i as a numeric of scale 0.
func DecimalFromInt(i int64) *Decimal { n := &Decimal{}; n.V.SetInt64(i); return n }

// finite reports whether n is neither NaN nor infinite.
func (n *Decimal) finite() bool { return !n.NaN && n.Inf == 0 }

// parseDecimal is numeric_in (without a typmod).
func parseDecimal(s string) (*Decimal, error) {
	if d, ok := parsePlainDecimal(s); ok {
		return d, nil
	}
	t := strings.Trim(s, " \t\n\r\v\f")
	switch strings.ToLower(t) {
	case "nan":
		return &Decimal{NaN: true}, nil
	case "infinity", "+infinity", "inf", "+inf":
		return &Decimal{Inf: 1}, nil
	case "-infinity", "-inf":
		return &Decimal{Inf: -1}, nil
	}
	bad := func() error { return syntaxErr(Numeric, s) } // built only when returned
	if strings.ContainsAny(t, "_xXoObB") {
		// PostgreSQL 16's integer forms; underscores also between the
		// digits of a decimal fraction.
		if lit, ok := nonDecimal(t); ok {
			t = lit
		} else if strings.ContainsAny(t, "xXoObB") || strings.Contains(t, "__") || strings.Contains(t, "_.") || strings.Contains(t, "._") {
			return nil, bad()
		} else {
			t = strings.ReplaceAll(t, "_", "")
		}
	}
	i := 0
	neg := false
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		neg = t[i] == '-'
		i++
	}
	var digits []byte
	scale, nd, dot := 0, 0, false
	for ; i < len(t); i++ {
		c := t[i]
		if c == '.' && !dot {
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		nd++
		digits = append(digits, c)
		if dot {
			scale++
		}
	}
	if nd == 0 {
		return nil, bad()
	}
	exp := 0
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		j := i
		if j < len(t) && (t[j] == '+' || t[j] == '-') {
			j++
		}
		k := j
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		if k == j {
			return nil, bad()
		}
		e, err := strconv.Atoi(t[i:k])
		if err != nil || e > 1<<30 || e < -(1<<30) {
			return nil, errorf(CodeOutOfRange, "value overflows numeric format")
		}
		exp, i = e, k
	}
	if i != len(t) {
		return nil, bad()
	}
	sig := strings.TrimLeft(string(digits), "0")
	sc := scale - exp
	// NUMERIC_DSCALE_MAX and NUMERIC_WEIGHT_MAX bound what numeric holds.
	if max(sc, 0) > maxDscale || sig != "" && len(sig)-sc > maxIntDigits {
		return nil, errorf(CodeOutOfRange, "value overflows numeric format")
	}
	n := &Decimal{}
	n.V.SetString(string(digits), 10)
	if sc < 0 {
		n.V.Mul(&n.V, pow10(-sc))
		sc = 0
	}
	n.Scale = int32(sc)
	if neg {
		n.V.Neg(&n.V)
	}
	return n, nil
}

var pow10Cache [64]*big.Int

// pow10 is 10^n (shared; do not modify).
func pow10(n int) *big.Int {
	if n < len(pow10Cache) && pow10Cache[n] != nil {
		return pow10Cache[n]
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	if n < len(pow10Cache) {
		pow10Cache[n] = p
	}
	return p
}

func init() {
	for i := range pow10Cache {
		pow10Cache[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
	}
}

// Rescaled is n's unscaled value at scale s ≥ n.Scale.
func (n *Decimal) Rescaled(s int32) *big.Int {
	if s == n.Scale {
		return &n.V
	}
	return new(big.Int).Mul(&n.V, pow10(int(s-n.Scale)))
}

// String is numeric_out.
func (n *Decimal) String() string {
	switch {
	case n.NaN:
		return "NaN"
	case n.Inf > 0:
		return "Infinity"
	case n.Inf < 0:
		return "-Infinity"
	}
	s := n.V.String()
	if n.Scale <= 0 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if len(s) <= int(n.Scale) {
		s = strings.Repeat("0", int(n.Scale)-len(s)+1) + s
	}
	s = s[:len(s)-int(n.Scale)] + "." + s[len(s)-int(n.Scale):]
	if neg {
		s = "-" + s
	}
	return s
}

// Float64 is n as the nearest float64 (numeric_float8).
func (n *Decimal) Float64() float64 {
	switch {
	case n.NaN:
		return math.NaN()
	case n.Inf != 0:
		return math.Inf(int(n.Inf))
	}
	f, _ := strconv.ParseFloat(n.String(), 64)
	return f
}

// class orders the kinds of numeric: -Infinity < finite < Infinity < NaN.
func (n *Decimal) class() int {
	switch {
	case n.NaN:
		return 2
	case n.Inf != 0:
		return int(n.Inf)
	}
	return 0
}

// CompareDecimal is numeric_cmp: by value (1.5 = 1.50), -Infinity below
// every number, Infinity above, NaN above everything and equal to itself.
func CompareDecimal(a, b *Decimal) int {
	ca, cb := a.class(), b.class()
	if ca != cb || ca != 0 {
		return cmpInt(int64(ca), int64(cb))
	}
	if a.Scale == b.Scale {
		return a.V.Cmp(&b.V)
	}
	s := max(a.Scale, b.Scale)
	return a.Rescaled(s).Cmp(b.Rescaled(s))
}

// round rounds n to scale s (half away from zero), as numeric's round.
func (n *Decimal) round(s int32) *Decimal {
	if !n.finite() || n.Scale <= s {
		if n.finite() && s > n.Scale && s >= 0 {
			return &Decimal{V: *new(big.Int).Set(n.Rescaled(s)), Scale: s}
		}
		return n
	}
	den := pow10(int(n.Scale - s))
	q := roundDiv(&n.V, den)
	if s < 0 {
		q.Mul(q, pow10(int(-s)))
		s = 0
	}
	return &Decimal{V: *q, Scale: s}
}

// roundDiv is num/den rounded half away from zero.
func roundDiv(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	r.Abs(r)
	r.Lsh(r, 1)
	if r.CmpAbs(den) >= 0 {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// applyNumericMod is apply_typmod for numeric(p,s): round to s, then 22003
// when more than p-s digits remain before the point.
func applyNumericMod(n *Decimal, mod int32) (*Decimal, error) {
	p, s, ok := NumericMod(mod)
	if !ok || n.NaN {
		return n, nil
	}
	if n.Inf != 0 {
		return nil, errorf(CodeOutOfRange, "numeric field overflow").detail("A field with precision %d, scale %d cannot hold an infinite value.", p, s)
	}
	r := n.round(int32(s))
	// digits before the decimal point must be ≤ p - s.
	intDigits := 0
	if r.V.Sign() != 0 {
		abs := new(big.Int).Abs(&r.V)
		nd := len(abs.String())
		intDigits = nd - int(r.Scale)
	}
	if intDigits > p-s {
		msg := "A field with precision %d, scale %d must round to an absolute value less than %s%d."
		if p-s <= 0 {
			return nil, errorf(CodeOutOfRange, "numeric field overflow").detail("A field with precision %d, scale %d must round to an absolute value less than 1.", p, s)
		}
		return nil, errorf(CodeOutOfRange, "numeric field overflow").detail(msg, p, s, "10^", p-s)
	}
	return r, nil
}

// AddDecimal, SubDecimal, MulDecimal are numeric_add/sub/mul.
func AddDecimal(a, b *Decimal) *Decimal { return addNumeric(a, b, false) }

// SubDecimal is a - b.
func SubDecimal(a, b *Decimal) *Decimal { return addNumeric(a, b, true) }

func addNumeric(a, b *Decimal, sub bool) *Decimal {
	if a.NaN || b.NaN {
		return &Decimal{NaN: true}
	}
	bi := b.Inf
	if sub {
		bi = -bi
	}
	switch {
	case a.Inf != 0 && bi != 0:
		if a.Inf != bi {
			return &Decimal{NaN: true}
		}
		return &Decimal{Inf: a.Inf}
	case a.Inf != 0:
		return &Decimal{Inf: a.Inf}
	case bi != 0:
		return &Decimal{Inf: bi}
	}
	s := max(a.Scale, b.Scale)
	r := &Decimal{Scale: s}
	if sub {
		r.V.Sub(a.Rescaled(s), b.Rescaled(s))
	} else {
		r.V.Add(a.Rescaled(s), b.Rescaled(s))
	}
	return r
}

// MulDecimal is a * b.
func MulDecimal(a, b *Decimal) *Decimal {
	if a.NaN || b.NaN {
		return &Decimal{NaN: true}
	}
	if a.Inf != 0 || b.Inf != 0 {
		sa, sb := a.sign(), b.sign()
		if sa == 0 || sb == 0 {
			return &Decimal{NaN: true}
		}
		return &Decimal{Inf: int8(sa * sb)}
	}
	r := &Decimal{Scale: a.Scale + b.Scale}
	r.V.Mul(&a.V, &b.V)
	if r.Scale > maxNumericScale {
		return r.round(maxNumericScale)
	}
	return r
}

func (n *Decimal) sign() int {
	if n.Inf != 0 {
		return int(n.Inf)
	}
	return n.V.Sign()
}

// nbaseFirst returns the weight and value of the first non-zero base-10000
// digit of n, as PostgreSQL's numeric stores it (0, 0 for zero).
func nbaseFirst(n *Decimal) (weight, first int) {
	s := new(big.Int).Abs(&n.V).String()
	if s == "0" {
		return 0, 0
	}
	sc := int(n.Scale)
	var ip, fp string
	if len(s) > sc {
		ip, fp = s[:len(s)-sc], s[len(s)-sc:]
	} else {
		fp = strings.Repeat("0", sc-len(s)) + s
	}
	ip = strings.TrimLeft(ip, "0")
	if ip != "" {
		lead := (len(ip)-1)%4 + 1
		f, _ := strconv.Atoi(ip[:lead])
		return (len(ip) - 1) / 4, f
	}
	for len(fp)%4 != 0 {
		fp += "0"
	}
	for g := 0; g*4 < len(fp); g++ {
		if f, _ := strconv.Atoi(fp[g*4 : g*4+4]); f != 0 {
			return -(g + 1), f
		}
	}
	return 0, 0
}

// DivDecimal is numeric_div: the result scale of select_div_scale,
// rounded half away from zero.
func DivDecimal(a, b *Decimal) (*Decimal, error) {
	if a.NaN || b.NaN {
		return &Decimal{NaN: true}, nil
	}
	if b.finite() && b.V.Sign() == 0 {
		return nil, errorf(CodeDivByZero, "division by zero")
	}
	if a.Inf != 0 {
		if b.Inf != 0 {
			return &Decimal{NaN: true}, nil
		}
		return &Decimal{Inf: int8(int(a.Inf) * b.V.Sign())}, nil
	}
	if b.Inf != 0 {
		return &Decimal{}, nil
	}
	w1, f1 := nbaseFirst(a)
	w2, f2 := nbaseFirst(b)
	qw := w1 - w2
	if f1 <= f2 {
		qw--
	}
	rs := int32(16 - qw*4)
	rs = max(rs, a.Scale, b.Scale, 0)
	rs = min(rs, maxNumericScale)
	num := new(big.Int).Set(&a.V)
	shift := int(rs - a.Scale + b.Scale)
	den := new(big.Int).Set(&b.V)
	if shift >= 0 {
		num.Mul(num, pow10(shift))
	} else {
		den.Mul(den, pow10(-shift))
	}
	return &Decimal{V: *roundDiv(num, den), Scale: rs}, nil
}

// ModDecimal is numeric_mod.
func ModDecimal(a, b *Decimal) (*Decimal, error) {
	if a.NaN || b.NaN {
		return &Decimal{NaN: true}, nil
	}
	if b.finite() && b.V.Sign() == 0 {
		return nil, errorf(CodeDivByZero, "division by zero")
	}
	if a.Inf != 0 {
		return &Decimal{NaN: true}, nil
	}
	if b.Inf != 0 {
		return a, nil
	}
	s := max(a.Scale, b.Scale)
	r := &Decimal{Scale: s}
	r.V.Rem(a.Rescaled(s), b.Rescaled(s))
	return r, nil
}

// NegDecimal is -n.
func NegDecimal(n *Decimal) *Decimal {
	r := &Decimal{Scale: n.Scale, NaN: n.NaN, Inf: -n.Inf}
	r.V.Neg(&n.V)
	return r
}

// decimalFromFloat is float8_numeric: the float's shortest decimal
// (PostgreSQL prints it with DBL_DIG digits, then reads it back).
func decimalFromFloat(f float64, bits int) *Decimal {
	switch {
	case math.IsNaN(f):
		return &Decimal{NaN: true}
	case math.IsInf(f, 0):
		if f > 0 {
			return &Decimal{Inf: 1}
		}
		return &Decimal{Inf: -1}
	}
	digits := 15
	if bits == 32 {
		digits = 6
	}
	n, _ := parseDecimal(strconv.FormatFloat(f, 'g', digits, bits))
	return n
}

// normalizedKey is n's value with trailing zeros stripped, for hashing:
// numerics equal by value hash alike.
func (n *Decimal) normalizedKey() string {
	if !n.finite() {
		return n.String()
	}
	v := new(big.Int).Set(&n.V)
	s := n.Scale
	ten := big.NewInt(10)
	m := new(big.Int)
	for s > 0 && v.Sign() != 0 {
		q, r := new(big.Int).QuoRem(v, ten, m)
		if r.Sign() != 0 {
			break
		}
		v, s = q, s-1
	}
	if v.Sign() == 0 {
		return "0"
	}
	return v.String() + "e-" + strconv.Itoa(int(s))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
