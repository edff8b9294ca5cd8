package rowenc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// --- integers ---

// parseCanonicalInt parses the text int2out/int4out/int8out print: an
// optional '-', then "0" or digits without a leading zero; no "-0".
func parseCanonicalInt(text []byte, min, max int64) (int64, bool) {
	s := text
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 || len(s) > 19 || (s[0] == '0' && (len(s) > 1 || neg)) {
		return 0, false
	}
	// Accumulate as a negative number so that math.MinInt64 fits.
	var v int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if v < (math.MinInt64+d)/10 {
			return 0, false
		}
		v = v*10 - d
	}
	if !neg {
		if v == math.MinInt64 {
			return 0, false
		}
		v = -v
	}
	if v < min || v > max {
		return 0, false
	}
	return v, true
}

func appendInt(dst, text []byte, width int) ([]byte, error) {
	bits := uint(8 * width)
	max := int64(1)<<(bits-1) - 1
	v, ok := parseCanonicalInt(text, -max-1, max)
	if !ok {
		return dst, fmt.Errorf("%w: int%d %q", ErrKeyText, width, clip(text))
	}
	u := uint64(v) ^ (1 << (bits - 1))
	for i := width - 1; i >= 0; i-- {
		dst = append(dst, byte(u>>(8*uint(i))))
	}
	return dst, nil
}

func decodeInt(dst, key []byte, width int) ([]byte, []byte, error) {
	if len(key) < width {
		return dst, key, fmt.Errorf("%w: int%d needs %d bytes, have %d", ErrCorruptKey, width, width, len(key))
	}
	var u uint64
	for i := range width {
		u = u<<8 | uint64(key[i])
	}
	bits := uint(8 * width)
	u ^= 1 << (bits - 1)
	// Sign-extend from the column width.
	v := int64(u<<(64-bits)) >> (64 - bits)
	return strconv.AppendInt(dst, v, 10), key[width:], nil
}

// --- numeric ---

// Numeric tags, in PostgreSQL's order (NaN sorts above every other value).
const (
	numNegInf byte = 0x01
	numNeg    byte = 0x02
	numZero   byte = 0x03
	numPos    byte = 0x04
	numPosInf byte = 0x05
	numNaN    byte = 0x06
)

// maxNumericScale bounds the display scale: PostgreSQL's is at most 0x3FFF.
const maxNumericScale = 0x3FFF

// maxNumericIntDigits bounds the digits before the point (PostgreSQL's
// limit); maxNumericScale bounds those after it.
const maxNumericIntDigits = 131072

// appendNumeric encodes numeric_out text: "NaN", "Infinity", "-Infinity",
// or -?(0|[1-9][0-9]*)(\.[0-9]+)? with no negative zero.
//
// Layout for a non-zero finite value x = ±0.d1d2d3… × 10^exp (d1 ≠ 0, last
// digit ≠ 0): tag, exp as a sign-flipped big-endian int32, the digits in
// pairs as bytes 1..100 (pair value + 1; an odd last digit is padded with
// 0), a 0x00 terminator, then the display scale as big-endian uint16.
// Negative values complement the exponent, pairs and terminator, which
// reverses their order; the scale is never complemented (see KindNumeric).
// Zero is its tag and the scale.
func appendNumeric(dst, text []byte) ([]byte, error) {
	switch string(text) {
	case "NaN":
		return append(dst, numNaN), nil
	case "Infinity":
		return append(dst, numPosInf), nil
	case "-Infinity":
		return append(dst, numNegInf), nil
	}
	bad := func() ([]byte, error) { return dst, fmt.Errorf("%w: numeric %q", ErrKeyText, clip(text)) }
	s := text
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	intPart := s
	var frac []byte
	hasPoint := false
	for i, c := range s {
		if c == '.' {
			intPart, frac, hasPoint = s[:i], s[i+1:], true
			break
		}
	}
	if len(intPart) == 0 || (intPart[0] == '0' && len(intPart) > 1) || (hasPoint && len(frac) == 0) {
		return bad()
	}
	if !allDigits(intPart) || !allDigits(frac) || len(frac) > maxNumericScale || len(intPart) > maxNumericIntDigits {
		return bad()
	}
	scale := len(frac)
	// Significant digits: intPart (unless it is "0") followed by frac,
	// without leading or trailing zeros.
	ip := intPart
	if len(ip) == 1 && ip[0] == '0' {
		ip = nil
	}
	exp := len(ip)
	// digit(i) indexes the concatenation ip ++ frac without building it.
	total := len(ip) + len(frac)
	digit := func(i int) byte {
		if i < len(ip) {
			return ip[i] - '0'
		}
		return frac[i-len(ip)] - '0'
	}
	first := 0
	for first < total && digit(first) == 0 {
		first++
	}
	if first == total { // zero
		if neg {
			return bad() // PostgreSQL never prints "-0"
		}
		dst = append(dst, numZero)
		return binary.BigEndian.AppendUint16(dst, uint16(scale)), nil
	}
	last := total - 1
	for digit(last) == 0 {
		last--
	}
	exp -= first // only when ip is empty can first be > 0 before the point
	var flip byte
	tag := numPos
	if neg {
		flip, tag = 0xFF, numNeg
	}
	dst = append(dst, tag)
	e := uint32(int32(exp)) ^ (1 << 31)
	dst = append(dst, byte(e>>24)^flip, byte(e>>16)^flip, byte(e>>8)^flip, byte(e)^flip)
	for i := first; i <= last; i += 2 {
		p := digit(i) * 10
		if i+1 <= last {
			p += digit(i + 1)
		}
		dst = append(dst, (p+1)^flip)
	}
	dst = append(dst, 0^flip)
	return binary.BigEndian.AppendUint16(dst, uint16(scale)), nil
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func decodeNumeric(dst, key []byte) ([]byte, []byte, error) {
	if len(key) == 0 {
		return dst, key, fmt.Errorf("%w: empty numeric", ErrCorruptKey)
	}
	corrupt := func(why string) ([]byte, []byte, error) {
		return dst, key, fmt.Errorf("%w: numeric: %s", ErrCorruptKey, why)
	}
	switch key[0] {
	case numNaN:
		return append(dst, "NaN"...), key[1:], nil
	case numPosInf:
		return append(dst, "Infinity"...), key[1:], nil
	case numNegInf:
		return append(dst, "-Infinity"...), key[1:], nil
	case numZero:
		if len(key) < 3 {
			return corrupt("truncated scale")
		}
		scale := int(binary.BigEndian.Uint16(key[1:]))
		if scale > maxNumericScale {
			return corrupt("scale out of range")
		}
		dst = append(dst, '0')
		if scale > 0 {
			dst = append(dst, '.')
			dst = appendZeros(dst, scale)
		}
		return dst, key[3:], nil
	case numPos, numNeg:
	default:
		return corrupt(fmt.Sprintf("bad tag 0x%02x", key[0]))
	}
	var flip byte
	if key[0] == numNeg {
		flip = 0xFF
	}
	if len(key) < 1+4+1 {
		return corrupt("truncated")
	}
	e := uint32(key[1]^flip)<<24 | uint32(key[2]^flip)<<16 | uint32(key[3]^flip)<<8 | uint32(key[4]^flip)
	exp := int(int32(e ^ (1 << 31)))
	// Collect the pairs up to the terminator.
	p := 5
	for p < len(key) && key[p]^flip != 0 {
		if v := key[p] ^ flip; v > 100 {
			return corrupt("bad digit pair")
		}
		p++
	}
	if p >= len(key) {
		return corrupt("unterminated digits")
	}
	pairs := key[5:p]
	if len(key) < p+3 {
		return corrupt("truncated scale")
	}
	scale := int(binary.BigEndian.Uint16(key[p+1:]))
	if len(pairs) == 0 || scale > maxNumericScale {
		return corrupt("no digits or scale out of range")
	}
	nd := 2 * len(pairs)
	lastPair := key[p-1] ^ flip - 1
	if lastPair%10 == 0 {
		nd-- // an odd digit count, padded with a 0
		if lastPair == 0 {
			return corrupt("trailing zero pair")
		}
	}
	if (key[5]^flip-1)/10 == 0 {
		return corrupt("leading zero digit")
	}
	digit := func(i int) byte {
		v := pairs[i/2] ^ flip - 1
		if i%2 == 0 {
			return '0' + v/10
		}
		return '0' + v%10
	}
	// Digits after the point: -exp zeros (if exp < 0), then digits from
	// max(exp, 0). They must fit in the scale.
	fracDigits := nd - max(exp, 0)
	if exp < 0 {
		fracDigits = nd - exp
	}
	if fracDigits > scale || exp > maxNumericIntDigits || exp < -maxNumericScale {
		return corrupt("digits beyond the display scale")
	}
	if flip != 0 {
		dst = append(dst, '-')
	}
	if exp <= 0 {
		dst = append(dst, '0')
	} else {
		for i := range exp {
			if i < nd {
				dst = append(dst, digit(i))
			} else {
				dst = append(dst, '0')
			}
		}
	}
	if scale > 0 {
		dst = append(dst, '.')
		n := 0
		if exp < 0 {
			dst = appendZeros(dst, -exp)
			n = -exp
		}
		for i := max(exp, 0); i < nd; i++ {
			dst = append(dst, digit(i))
			n++
		}
		dst = appendZeros(dst, scale-n)
	}
	return dst, key[p+3:], nil
}

func appendZeros(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, '0')
	}
	return dst
}
