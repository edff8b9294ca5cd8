package rowenc

import (
	"fmt"
)

// Tags for dates and timestamps: -infinity < finite < infinity.
const (
	timeNegInf byte = 0x01
	timeFinite byte = 0x02
	timePosInf byte = 0x03
)

// parseISODate parses "YYYY-MM-DD" (4 or more year digits, no leading zero
// beyond four) at the start of s and returns the rest. The BC suffix comes
// after the time in timestamps, so the caller applies it.
func parseISODate(s []byte) (year int32, month, day byte, rest []byte, ok bool) {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n < 4 || n > 9 || (n > 4 && s[0] == '0') || len(s) < n+6 || s[n] != '-' || s[n+3] != '-' {
		return 0, 0, 0, nil, false
	}
	var y int32
	for _, c := range s[:n] {
		y = y*10 + int32(c-'0')
	}
	m, ok1 := twoDigits(s[n+1:], 1, 12)
	d, ok2 := twoDigits(s[n+4:], 1, 31)
	if y < 1 || !ok1 || !ok2 {
		return 0, 0, 0, nil, false
	}
	return y, m, d, s[n+6:], true
}

func twoDigits(s []byte, lo, hi byte) (byte, bool) {
	if len(s) < 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0, false
	}
	v := (s[0]-'0')*10 + s[1] - '0'
	return v, v >= lo && v <= hi
}

const bcSuffix = " BC"

func trimBC(s []byte) ([]byte, bool) {
	if len(s) >= len(bcSuffix) && string(s[len(s)-len(bcSuffix):]) == bcSuffix {
		return s[:len(s)-len(bcSuffix)], true
	}
	return s, false
}

func astronomical(y int32, bc bool) int32 {
	if bc {
		return 1 - y
	}
	return y
}

func appendYearDate(dst []byte, astro int32, month, day byte) []byte {
	y := astro
	if astro <= 0 {
		y = 1 - astro
	}
	return fmt.Appendf(dst, "%04d-%02d-%02d", y, month, day)
}

func appendOrdInt32(dst []byte, v int32) []byte {
	u := uint32(v) ^ (1 << 31)
	return append(dst, byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
}

func readOrdInt32(b []byte) int32 {
	u := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	return int32(u ^ (1 << 31))
}

func appendTimeTag(dst, text []byte) ([]byte, bool) {
	switch string(text) {
	case "infinity":
		return append(dst, timePosInf), true
	case "-infinity":
		return append(dst, timeNegInf), true
	}
	return dst, false
}

func decodeTimeTag(dst, key []byte) ([]byte, []byte, bool) {
	switch key[0] {
	case timePosInf:
		return append(dst, "infinity"...), key[1:], true
	case timeNegInf:
		return append(dst, "-infinity"...), key[1:], true
	}
	return dst, key, false
}

// Date layout: tag; finite: astronomical year (sign-flipped int32), month,
// day.
func appendDate(dst, text []byte) ([]byte, error) {
	if out, ok := appendTimeTag(dst, text); ok {
		return out, nil
	}
	s, bc := trimBC(text)
	y, m, d, rest, ok := parseISODate(s)
	if !ok || len(rest) != 0 {
		return dst, fmt.Errorf("%w: date %q", ErrKeyText, clip(text))
	}
	dst = append(dst, timeFinite)
	dst = appendOrdInt32(dst, astronomical(y, bc))
	return append(dst, m, d), nil
}

const dateKeyLen = 1 + 4 + 2

func decodeDate(dst, key []byte) ([]byte, []byte, error) {
	if len(key) == 0 {
		return dst, key, fmt.Errorf("%w: empty date", ErrCorruptKey)
	}
	if out, rest, ok := decodeTimeTag(dst, key); ok {
		return out, rest, nil
	}
	if key[0] != timeFinite || len(key) < dateKeyLen {
		return dst, key, fmt.Errorf("%w: bad date", ErrCorruptKey)
	}
	astro := readOrdInt32(key[1:])
	m, d := key[5], key[6]
	if !validAstroYear(astro) || m < 1 || m > 12 || d < 1 || d > 31 {
		return dst, key, fmt.Errorf("%w: date out of range", ErrCorruptKey)
	}
	dst = appendYearDate(dst, astro, m, d)
	if astro <= 0 {
		dst = append(dst, bcSuffix...)
	}
	return dst, key[dateKeyLen:], nil
}

// validAstroYear mirrors parseISODate's bounds (1..999999999, AD or BC).
func validAstroYear(a int32) bool { return a <= 999999999 && a >= 1-999999999 }

// Timestamp layout: tag; finite: astronomical year (sign-flipped int32),
// month, day, hour, minute, second, microseconds (big-endian uint32), then
// the printed UTC offset as an escaped, terminated byte string (empty for
// timestamp without time zone, "+00" under TimeZone=UTC).
func appendTimestamp(dst, text []byte) ([]byte, error) {
	if out, ok := appendTimeTag(dst, text); ok {
		return out, nil
	}
	bad := func() ([]byte, error) { return dst, fmt.Errorf("%w: timestamp %q", ErrKeyText, clip(text)) }
	s, bc := trimBC(text)
	y, mo, d, rest, ok := parseISODate(s)
	if !ok || len(rest) < 9 || rest[0] != ' ' || rest[3] != ':' || rest[6] != ':' {
		return bad()
	}
	h, ok1 := twoDigits(rest[1:], 0, 23)
	mi, ok2 := twoDigits(rest[4:], 0, 59)
	se, ok3 := twoDigits(rest[7:], 0, 59)
	if !ok1 || !ok2 || !ok3 {
		return bad()
	}
	rest = rest[9:]
	var micros uint32
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		digits := rest[1:n]
		if len(digits) == 0 || len(digits) > 6 || digits[len(digits)-1] == '0' {
			return bad()
		}
		for i := range 6 {
			micros *= 10
			if i < len(digits) {
				micros += uint32(digits[i] - '0')
			}
		}
		rest = rest[n:]
	}
	if !validOffset(rest) {
		return bad()
	}
	dst = append(dst, timeFinite)
	dst = appendOrdInt32(dst, astronomical(y, bc))
	dst = append(dst, mo, d, h, mi, se, byte(micros>>24), byte(micros>>16), byte(micros>>8), byte(micros))
	return appendEscaped(dst, rest), nil
}

// validOffset accepts what PostgreSQL prints after a timestamptz: "" (for
// timestamp) or [+-]HH, [+-]HH:MM, [+-]HH:MM:SS.
func validOffset(s []byte) bool {
	switch len(s) {
	case 0:
		return true
	case 3, 6, 9:
	default:
		return false
	}
	if s[0] != '+' && s[0] != '-' {
		return false
	}
	for i := 1; i < len(s); i += 3 {
		if _, ok := twoDigits(s[i:], 0, 99); !ok {
			return false
		}
		if i+2 < len(s) && s[i+2] != ':' {
			return false
		}
	}
	return true
}

const timestampFixedLen = 1 + 4 + 5 + 4

func decodeTimestamp(dst, key []byte) ([]byte, []byte, error) {
	if len(key) == 0 {
		return dst, key, fmt.Errorf("%w: empty timestamp", ErrCorruptKey)
	}
	if out, rest, ok := decodeTimeTag(dst, key); ok {
		return out, rest, nil
	}
	corrupt := func(why string) ([]byte, []byte, error) {
		return dst, key, fmt.Errorf("%w: timestamp: %s", ErrCorruptKey, why)
	}
	if key[0] != timeFinite || len(key) < timestampFixedLen {
		return corrupt("bad tag or truncated")
	}
	astro := readOrdInt32(key[1:])
	mo, d, h, mi, se := key[5], key[6], key[7], key[8], key[9]
	micros := uint32(key[10])<<24 | uint32(key[11])<<16 | uint32(key[12])<<8 | uint32(key[13])
	if !validAstroYear(astro) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59 || micros > 999999 {
		return corrupt("field out of range")
	}
	start := len(dst)
	dst = appendYearDate(dst, astro, mo, d)
	dst = fmt.Appendf(dst, " %02d:%02d:%02d", h, mi, se)
	if micros > 0 {
		frac := fmt.Appendf(nil, "%06d", micros)
		for frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		dst = append(append(dst, '.'), frac...)
	}
	offStart := len(dst)
	dst, rest, err := decodeEscaped(dst, key[timestampFixedLen:])
	if err != nil {
		return dst[:start], key, err
	}
	if !validOffset(dst[offStart:]) {
		return corrupt("bad UTC offset")
	}
	if astro <= 0 {
		dst = append(dst, bcSuffix...)
	}
	return dst, rest, nil
}
