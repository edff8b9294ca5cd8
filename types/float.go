package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// AppendFloat prints f as PostgreSQL's float4out (bits 32) or float8out
// (bits 64) do with extra_float_digits > 0: the one float printer of the
// project.
func AppendFloat(dst []byte, f float64, bits int) []byte { return appendFloat(dst, f, bits) }

// canonicalNaN is C's NAN, the NaN PostgreSQL's float input gives (Go's
// math.NaN has another payload, which binary output would show).
var canonicalNaN = math.Float64frombits(0x7ff8000000000000)

// parseFloat is float4in / float8in: strtod's syntax with surrounding
// whitespace, NaN and [+-]Inf[inity] in any case; a value that overflows
// or underflows to zero is 22003.
func parseFloat(oid OID, s string) (float64, error) {
	t := strings.Trim(s, " \t\n\r\v\f")
	bits := 64
	if oid == Float4 {
		bits = 32
	}
	switch strings.ToLower(t) {
	case "nan", "+nan", "-nan":
		return canonicalNaN, nil
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	g := t
	if h := strings.TrimLeft(t, "+-"); len(h) > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		// strtod reads hexadecimal floats; Go's parser wants the p exponent.
		if !strings.ContainsAny(h, "pP") {
			g += "p0"
		}
		if strings.Contains(h, "_") {
			return 0, syntaxErr(oid, s)
		}
	} else if t == "" || !floatSyntax(t) {
		return 0, syntaxErr(oid, s)
	}
	f, err := strconv.ParseFloat(g, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, errorf(CodeOutOfRange, "\"%s\" is out of range for type %s", t, NameOf(oid))
		}
		return 0, syntaxErr(oid, s)
	}
	if f == 0 && nonZeroMantissa(t) {
		// strtod reports ERANGE for an underflow to zero.
		return 0, errorf(CodeOutOfRange, "\"%s\" is out of range for type %s", t, NameOf(oid))
	}
	return f, nil
}

// floatSyntax reports whether t is a decimal float as strtod reads it
// ([+-]digits[.digits][e[+-]digits]); hexadecimal floats and Go's
// underscores are not accepted.
func floatSyntax(t string) bool {
	i := 0
	if t[i] == '+' || t[i] == '-' {
		i++
	}
	nd := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i, nd = i+1, nd+1
	}
	if i < len(t) && t[i] == '.' {
		i++
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i, nd = i+1, nd+1
		}
	}
	if nd == 0 {
		return false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		ne := 0
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i, ne = i+1, ne+1
		}
		if ne == 0 {
			return false
		}
	}
	return i == len(t)
}

// nonZeroMantissa reports whether a decimal float's digits before the
// exponent include a non-zero one.
func nonZeroMantissa(t string) bool {
	for _, c := range t {
		if c == 'e' || c == 'E' {
			break
		}
		if c >= '1' && c <= '9' {
			return true
		}
	}
	return false
}

// appendFloat prints f as PostgreSQL's float4out/float8out do with
// extra_float_digits > 0: the shortest decimal that reads back exactly,
// in fixed notation when the decimal exponent is in [-4, 15) (float8) or
// [-4, 6) (float4), else d.ddde±XX; NaN, Infinity, -Infinity, -0.
func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	var buf [32]byte
	e := shortestFloat(buf[:0], f, bits) // [-]d[.ddd]e±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
		dst = append(dst, '-')
	}
	ei := 0
	for e[ei] != 'e' {
		ei++
	}
	var digits [24]byte
	nd := 0
	for _, c := range e[:ei] {
		if c != '.' {
			digits[nd] = c
			nd++
		}
	}
	exp := 0
	expNeg := e[ei+1] == '-'
	for _, c := range e[ei+2:] {
		exp = exp*10 + int(c-'0')
	}
	if expNeg {
		exp = -exp
	}
	hi := 15
	if bits == 32 {
		hi = 6
	}
	if exp >= -4 && exp < hi {
		if exp < 0 {
			dst = append(dst, '0', '.')
			for i := 0; i < -exp-1; i++ {
				dst = append(dst, '0')
			}
			return append(dst, digits[:nd]...)
		}
		if nd <= exp+1 {
			dst = append(dst, digits[:nd]...)
			for i := nd; i < exp+1; i++ {
				dst = append(dst, '0')
			}
			return dst
		}
		dst = append(dst, digits[:exp+1]...)
		dst = append(dst, '.')
		return append(dst, digits[exp+1:nd]...)
	}
	dst = append(dst, digits[0])
	if nd > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:nd]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
		exp = -exp
	} else {
		dst = append(dst, '+')
	}
	if exp < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}

// shortestFloat appends f in 'e' format with the fewest digits that read
// back as f, excluding (as PostgreSQL's Ryu does) a decimal lying exactly
// halfway between f and a neighbour, which strconv accepts under
// round-half-even. Only values of magnitude 2^22 (float4) or 2^52 (float8)
// and above can have such a short halfway decimal: for smaller ones a
// midpoint needs more fraction digits than a shortest decimal has.
func shortestFloat(dst []byte, f float64, bits int) []byte {
	out := strconv.AppendFloat(dst, f, 'e', -1, bits)
	limit := float64(1 << 52)
	if bits == 32 {
		limit = 1 << 22
	}
	if math.Abs(f) < limit || !isMidpoint(out[len(dst):], f, bits) {
		return out
	}
	nd := 0
	for _, c := range out[len(dst):] {
		if c == 'e' {
			break
		}
		if c >= '0' && c <= '9' {
			nd++
		}
	}
	for p := nd + 1; p <= 17; p++ {
		out = strconv.AppendFloat(dst, f, 'e', p-1, bits)
		g, err := strconv.ParseFloat(string(out[len(dst):]), bits)
		if err == nil && g == f && !isMidpoint(out[len(dst):], f, bits) {
			return out
		}
	}
	return out
}

// isMidpoint reports whether the decimal text d is exactly halfway
// between f and its next float (of the given width) toward or away from
// zero.
func isMidpoint(d []byte, f float64, bits int) bool {
	const prec = 256
	x, _, err := big.ParseFloat(string(d), 10, prec, big.ToNearestEven)
	if err != nil {
		return false
	}
	var up, down float64
	if bits == 32 {
		up = float64(math.Nextafter32(float32(f), float32(math.Inf(1))))
		down = float64(math.Nextafter32(float32(f), float32(math.Inf(-1))))
	} else {
		up, down = math.Nextafter(f, math.Inf(1)), math.Nextafter(f, math.Inf(-1))
	}
	for _, n := range []float64{up, down} {
		if math.IsInf(n, 0) {
			continue
		}
		m := new(big.Float).SetPrec(prec).SetFloat64(f)
		m.Add(m, new(big.Float).SetPrec(prec).SetFloat64(n))
		m.Quo(m, big.NewFloat(2))
		if m.Cmp(x) == 0 {
			return true
		}
	}
	return false
}
