package types

import (
	"math"
	"strconv"
	"strings"
)

// FormatFloatDigits prints f as float8out (bits 64) or float4out (bits
// 32) do with extra_float_digits = efd ≤ 0: C's "%.*g" with DBL_DIG
// (15) or FLT_DIG (6) plus efd significant digits (at least 1) —
// correctly rounded, trailing zeros dropped, fixed notation when the
// decimal exponent is in [-4, precision) — and NaN, Infinity, -Infinity.
// For efd > 0 it is Out's shortest form.
func FormatFloatDigits(f float64, bits, efd int) string {
	if efd > 0 {
		return string(appendFloat(nil, f, bits))
	}
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	p := 15 + efd
	if bits == 32 {
		p = 6 + efd
		f = float64(float32(f))
	}
	p = max(p, 1)
	// %e at precision p-1 gives the digits and the exponent X that C's
	// %g chooses the notation by.
	e := strconv.FormatFloat(f, 'e', p-1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	if x < -4 || x >= p {
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		sign := "+"
		if x < 0 {
			sign, x = "-", -x
		}
		xs := strconv.Itoa(x)
		if len(xs) < 2 {
			xs = "0" + xs
		}
		return mant + "e" + sign + xs
	}
	s := strconv.FormatFloat(f, 'f', p-1-x, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// ByteaEscape is byteaout under bytea_output = escape: \\ for a
// backslash, \ooo for a byte below 0x20 or above 0x7e, the byte itself
// otherwise.
func ByteaEscape(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		switch {
		case c == '\\':
			sb.WriteString(`\\`)
		case c < 0x20 || c > 0x7e:
			sb.WriteByte('\\')
			sb.WriteByte('0' + c>>6)
			sb.WriteByte('0' + c>>3&7)
			sb.WriteByte('0' + c&7)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
