package heap

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/sidecar-dev/sidecar/types"
)

// Parsing and printing of the typed kinds.
//
// A value is parsed once, when its row is applied, from the canonical text
// PostgreSQL's output function printed (under rowenc.SessionParams), and
// printed again when the row is read back. The printers below reproduce
// PostgreSQL's output functions; a value whose text they would not
// reproduce byte for byte (a float printed differently, a timestamptz with
// an offset other than +00) is still parsed, but its text is kept as an
// exception beside it, so a row always gives back exactly its vrow1 bytes.

// ErrValue is wrapped by errors about column text that the column's kind
// cannot parse at all.
var ErrValue = errors.New("column text does not parse")

// typed is one parsed value.
type typed struct {
	i     int64
	f     float64
	scale uint8
	exc   bool // keep the text: it is not what appendTyped prints, or (numeric) not representable
}

// bstr views b as a string without copying; the result must not outlive b
// and is only passed to functions that do not retain it.
func bstr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// parseTyped parses text for kind k (k != KindText).
func parseTyped(k Kind, text []byte) (typed, error) {
	var v typed
	var ok bool
	switch k {
	case KindInt2:
		v.i, ok = parseInt(text, math.MinInt16, math.MaxInt16)
	case KindInt4:
		v.i, ok = parseInt(text, math.MinInt32, math.MaxInt32)
	case KindInt8:
		v.i, ok = parseInt(text, math.MinInt64, math.MaxInt64)
	case KindBool:
		switch string(text) {
		case "t":
			v.i, ok = 1, true
		case "f":
			v.i, ok = 0, true
		}
	case KindFloat4, KindFloat8:
		bits := 64
		if k == KindFloat4 {
			bits = 32
		}
		f, err := strconv.ParseFloat(bstr(text), bits)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			break
		}
		v.f, ok = f, err == nil
		if ok {
			var buf [32]byte
			v.exc = string(appendFloat(buf[:0], f, bits)) != string(text)
		}
	case KindNumeric:
		v, ok = parseNumeric(text)
	case KindDate:
		v.i, ok = parseDate(text)
		if ok {
			var buf [32]byte
			v.exc = string(appendDate(buf[:0], v.i)) != string(text)
		}
	case KindTimestamp, KindTimestampTZ:
		v.i, ok = parseTimestamp(text, k == KindTimestampTZ)
		if ok {
			var buf [48]byte
			v.exc = string(appendTimestamp(buf[:0], v.i, k == KindTimestampTZ)) != string(text)
		}
	default:
		return v, fmt.Errorf("parse: kind %v has no typed value", k)
	}
	if !ok {
		return v, fmt.Errorf("%w: %v %q", ErrValue, k, clip(text))
	}
	return v, nil
}

// appendTyped appends the canonical text of a typed, non-exception value.
func appendTyped(dst []byte, k Kind, i int64, f float64, scale uint8) []byte {
	switch k {
	case KindInt2, KindInt4, KindInt8:
		return strconv.AppendInt(dst, i, 10)
	case KindBool:
		if i != 0 {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case KindFloat4:
		return appendFloat(dst, f, 32)
	case KindFloat8:
		return appendFloat(dst, f, 64)
	case KindNumeric:
		return appendNumeric(dst, i, scale)
	case KindDate:
		return appendDate(dst, i)
	case KindTimestamp:
		return appendTimestamp(dst, i, false)
	case KindTimestampTZ:
		return appendTimestamp(dst, i, true)
	}
	return dst
}

func clip(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}

// parseInt parses a canonical decimal integer ("-12", never "+12", "012"
// or "-0") within [min, max].
func parseInt(b []byte, min, max int64) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := b[0] == '-'
	d := b
	if neg {
		d = b[1:]
	}
	if len(d) == 0 || (d[0] == '0' && (len(d) > 1 || neg)) {
		return 0, false
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > uint64(-(min+1))+1 {
			return 0, false
		}
		return -int64(u-1) - 1, true
	}
	if u > uint64(max) {
		return 0, false
	}
	return int64(u), true
}

// appendFloat prints f as PostgreSQL's float4out/float8out do: the type
// catalog's printer.
func appendFloat(dst []byte, f float64, bits int) []byte { return types.AppendFloat(dst, f, bits) }

// maxNumericDigits is how many decimal digits always fit an int64.
const maxNumericDigits = 18

// parseNumeric parses numeric_out's text: [-]digits[.digits], or NaN,
// Infinity, -Infinity. Values with more than 18 significant digits or a
// scale above 255, and the three specials, are exceptions (kept as text).
// Text that is not a number at all is an error.
func parseNumeric(b []byte) (typed, bool) {
	var v typed
	switch string(b) {
	case "NaN", "Infinity", "-Infinity":
		v.exc = true
		return v, true
	}
	d := b
	neg := len(d) > 0 && d[0] == '-'
	if neg {
		d = d[1:]
	}
	if len(d) == 0 {
		return v, false
	}
	var u uint64
	nd, scale, dot := 0, 0, false
	for i, c := range d {
		if c == '.' {
			if dot || i == 0 || i == len(d)-1 {
				return v, false
			}
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			return v, false
		}
		if dot {
			scale++
		}
		if nd == 0 && c == '0' {
			continue // leading zero: not significant
		}
		nd++
		if nd <= maxNumericDigits {
			u = u*10 + uint64(c-'0')
		}
	}
	if nd > maxNumericDigits || scale > math.MaxUint8 {
		v.exc = true
		return v, true
	}
	v.i = int64(u)
	if neg {
		v.i = -v.i
	}
	v.scale = uint8(scale)
	var buf [48]byte
	if string(appendNumeric(buf[:0], v.i, v.scale)) != string(b) {
		v.exc = true // "-0", "007", …: not numeric_out's text; keep it
	}
	return v, true
}

// appendNumeric prints unscaled/10^scale as numeric_out does.
func appendNumeric(dst []byte, unscaled int64, scale uint8) []byte {
	u := uint64(unscaled)
	if unscaled < 0 {
		dst = append(dst, '-')
		u = uint64(-unscaled) // also right for MinInt64
	}
	var buf [24]byte
	digits := strconv.AppendUint(buf[:0], u, 10)
	s := int(scale)
	if s == 0 {
		return append(dst, digits...)
	}
	if len(digits) <= s {
		dst = append(dst, '0', '.')
		for i := len(digits); i < s; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-s]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-s:]...)
}

// Dates and timestamps count from PostgreSQL's epoch, 2000-01-01.
const (
	postgresEpochJDate = 2451545 // date2j(2000, 1, 1)
	usecsPerDay        = 86400 * 1000000
	dateNegInf         = math.MinInt32
	datePosInf         = math.MaxInt32
	tsNegInf           = math.MinInt64
	tsPosInf           = math.MaxInt64
	// Julian day bounds PostgreSQL accepts for dates (4713 BC .. 5874897 AD).
	minJulian = 0
	maxJulian = 2147483494
)

// date2j and j2date are PostgreSQL's, from the type catalog.
func date2j(year, month, day int64) int64 { return types.Date2J(year, month, day) }

func j2date(jd int64) (year, month, day int64) { return types.J2Date(jd) }

// parseYMD parses "YYYY-MM-DD" (at least 4 year digits) at the start of b.
func parseYMD(b []byte) (y, m, d int64, rest []byte, ok bool) {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n < 4 || n > 9 || len(b) < n+6 || b[n] != '-' || b[n+3] != '-' {
		return 0, 0, 0, nil, false
	}
	for _, c := range b[:n] {
		y = y*10 + int64(c-'0')
	}
	m, ok1 := two(b[n+1:])
	d, ok2 := two(b[n+4:])
	if !ok1 || !ok2 || y < 1 || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, 0, 0, nil, false
	}
	return y, m, d, b[n+6:], true
}

func two(b []byte) (int64, bool) {
	if len(b) < 2 || b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' {
		return 0, false
	}
	return int64(b[0]-'0')*10 + int64(b[1]-'0'), true
}

const bc = " BC"

func trimBC(b []byte) ([]byte, bool) {
	if len(b) >= len(bc) && string(b[len(b)-len(bc):]) == bc {
		return b[:len(b)-len(bc)], true
	}
	return b, false
}

// parseDate parses date_out's ISO text into days since 2000-01-01.
func parseDate(b []byte) (int64, bool) {
	switch string(b) {
	case "infinity":
		return datePosInf, true
	case "-infinity":
		return dateNegInf, true
	}
	s, isBC := trimBC(b)
	y, m, d, rest, ok := parseYMD(s)
	if !ok || len(rest) != 0 {
		return 0, false
	}
	if isBC {
		y = 1 - y
	}
	j := date2j(y, m, d)
	if j < minJulian || j > maxJulian {
		return 0, false
	}
	return j - postgresEpochJDate, true
}

// appendYear appends the date part of a Julian day in ISO form; it reports
// whether the year is BC (the suffix comes after the time).
func appendYMD(dst []byte, jd int64) ([]byte, bool) {
	y, m, d := j2date(jd)
	isBC := y <= 0
	if isBC {
		y = 1 - y
	}
	if y < 1000 {
		for p := int64(1000); p > y && p > 1; p /= 10 {
			dst = append(dst, '0')
		}
	}
	dst = strconv.AppendInt(dst, y, 10)
	dst = append(dst, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
	return dst, isBC
}

// appendDate prints days since 2000-01-01 as date_out does (DateStyle ISO).
func appendDate(dst []byte, days int64) []byte {
	switch days {
	case datePosInf:
		return append(dst, "infinity"...)
	case dateNegInf:
		return append(dst, "-infinity"...)
	}
	dst, isBC := appendYMD(dst, days+postgresEpochJDate)
	if isBC {
		dst = append(dst, bc...)
	}
	return dst
}

// parseTimestamp parses timestamp_out's / timestamptz_out's ISO text into
// microseconds since 2000-01-01 00:00:00 (UTC for timestamptz: the printed
// offset is subtracted).
func parseTimestamp(b []byte, tz bool) (int64, bool) {
	switch string(b) {
	case "infinity":
		return tsPosInf, true
	case "-infinity":
		return tsNegInf, true
	}
	s, isBC := trimBC(b)
	y, mo, d, rest, ok := parseYMD(s)
	if !ok || len(rest) < 9 || rest[0] != ' ' || rest[3] != ':' || rest[6] != ':' {
		return 0, false
	}
	h, ok1 := two(rest[1:])
	mi, ok2 := two(rest[4:])
	se, ok3 := two(rest[7:])
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || se > 59 {
		return 0, false
	}
	rest = rest[9:]
	var frac int64
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 || n > 7 {
			return 0, false
		}
		for i := 1; i < 7; i++ {
			frac *= 10
			if i < n {
				frac += int64(rest[i] - '0')
			}
		}
		rest = rest[n:]
	}
	var off int64 // seconds east of UTC
	if tz {
		var ok bool
		if off, ok = parseOffset(rest); !ok {
			return 0, false
		}
	} else if len(rest) != 0 {
		return 0, false
	}
	if isBC {
		y = 1 - y
	}
	j := date2j(y, mo, d)
	if j < minJulian || j > maxJulian {
		return 0, false
	}
	days := j - postgresEpochJDate
	us := days*usecsPerDay + ((h*60+mi)*60+se-off)*1000000 + frac
	return us, true
}

// parseOffset parses "+HH", "-HH:MM", "+HH:MM:SS" into seconds east of
// UTC.
func parseOffset(b []byte) (int64, bool) {
	if len(b) < 3 || (b[0] != '+' && b[0] != '-') {
		return 0, false
	}
	neg := b[0] == '-'
	h, ok := two(b[1:])
	if !ok {
		return 0, false
	}
	secs := h * 3600
	b = b[3:]
	for mul := int64(60); len(b) > 0; mul /= 60 {
		if mul == 0 || len(b) < 3 || b[0] != ':' {
			return 0, false
		}
		v, ok := two(b[1:])
		if !ok || v > 59 {
			return 0, false
		}
		secs += v * mul
		b = b[3:]
	}
	if neg {
		secs = -secs
	}
	return secs, true
}

// appendTimestamp prints microseconds since 2000-01-01 as timestamp_out
// (tz false) or timestamptz_out under TimeZone=UTC (tz true) do.
func appendTimestamp(dst []byte, us int64, tz bool) []byte {
	switch us {
	case tsPosInf:
		return append(dst, "infinity"...)
	case tsNegInf:
		return append(dst, "-infinity"...)
	}
	days := us / usecsPerDay
	t := us % usecsPerDay
	if t < 0 {
		t += usecsPerDay
		days--
	}
	dst, isBC := appendYMD(dst, days+postgresEpochJDate)
	secs := t / 1000000
	frac := t % 1000000
	h, mi, se := secs/3600, secs/60%60, secs%60
	dst = append(dst, ' ', byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+se/10), byte('0'+se%10))
	if frac != 0 {
		var f [7]byte
		f[0] = '.'
		for i := 6; i >= 1; i-- {
			f[i] = byte('0' + frac%10)
			frac /= 10
		}
		n := 7
		for f[n-1] == '0' {
			n--
		}
		dst = append(dst, f[:n]...)
	}
	if tz {
		dst = append(dst, '+', '0', '0')
	}
	if isBC {
		dst = append(dst, bc...)
	}
	return dst
}

// AppendFloat prints f as PostgreSQL's float4out (bits 32) or float8out
// (bits 64) do: the type catalog's printer (types.AppendFloat).
func AppendFloat(dst []byte, f float64, bits int) []byte { return types.AppendFloat(dst, f, bits) }

// AppendText appends the canonical text of a typed value of kind k (not
// KindText, not a numeric exception), as PostgreSQL's output function
// prints it under rowenc.SessionParams: for query results.
func AppendText(dst []byte, k Kind, i int64, f float64, scale uint8) []byte {
	return appendTyped(dst, k, i, f, scale)
}

// ParseText parses a value of kind k (not KindText) from the text its
// output function prints: for query literals.
func ParseText(k Kind, text []byte) (i int64, f float64, err error) {
	v, err := parseTyped(k, text)
	return v.i, v.f, err
}
