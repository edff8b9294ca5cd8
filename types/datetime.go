package types

import (
	"math"
	"strconv"
	"strings"
)

// DateVal is a date: days since 2000-01-01; -infinity and infinity are
// the int32 bounds, as PostgreSQL's DateADT.
type DateVal int32

// TimeVal is a time of day: microseconds since midnight (0 to 24:00:00).
type TimeVal int64

// TimeTZVal is a time with time zone: the local time and the zone as
// PostgreSQL keeps it (seconds WEST of UTC).
type TimeTZVal struct {
	Micros int64
	Zone   int32
}

// TimestampVal is a timestamp or timestamptz: microseconds since
// 2000-01-01 00:00:00 (UTC for timestamptz); ±infinity are the int64
// bounds.
type TimestampVal int64

// IntervalVal is an interval: months, days and microseconds, kept apart
// as PostgreSQL keeps them.
type IntervalVal struct {
	Months int32
	Days   int32
	Micros int64
}

// Date and timestamp bounds and constants, as PostgreSQL's.
const (
	postgresEpochJDate = 2451545 // date2j(2000, 1, 1)
	usecsPerDay        = 86400 * 1000000
	usecsPerHour       = 3600 * 1000000
	usecsPerMinute     = 60 * 1000000
	usecsPerSec        = 1000000
	DateNegInf         = DateVal(math.MinInt32)
	DatePosInf         = DateVal(math.MaxInt32)
	TimestampNegInf    = TimestampVal(math.MinInt64)
	TimestampPosInf    = TimestampVal(math.MaxInt64)
	// Julian-day bounds of dates (4713-11-24 BC .. 5874897-12-31).
	dateEndJulian = 2147483494
	// timestamps end at 294277-01-01 00:00:00 (exclusive).
	timestampEndJulian = 109203528
)

// Date2J is PostgreSQL's date2j: the Julian day of a proleptic Gregorian
// date (astronomical year: 1 BC is 0).
func Date2J(year, month, day int64) int64 { return date2j(year, month, day) }

// J2Date is PostgreSQL's j2date, Date2J's inverse.
func J2Date(jd int64) (year, month, day int64) { return j2date(jd) }

// date2j is PostgreSQL's date2j (proleptic Gregorian; astronomical year).
func date2j(year, month, day int64) int64 {
	if month > 2 {
		month++
		year += 4800
	} else {
		month += 13
		year += 4799
	}
	century := year / 100
	julian := year*365 - 32167
	julian += year/4 - century + century/4
	julian += 7834*month/256 + day
	return julian
}

// j2date is PostgreSQL's j2date.
func j2date(jd int64) (year, month, day int64) {
	julian := uint64(jd)
	julian += 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := julian * 4 / 1461
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += quad * 4
	year = int64(y) - 4800
	quad = julian * 2141 / 65536
	day = int64(julian - 7834*quad/256)
	month = int64((quad+10)%12 + 1)
	return year, month, day
}

var daysInMonth = [13]int64{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// dtParts is a decoded date/time string.
type dtParts struct {
	y, m, d       int64 // astronomical year after BC
	hasDate       bool
	hasTime       bool
	us            int64 // time of day
	hasZone       bool
	zoneEast      int64 // seconds east of UTC
	special       int   // -1 -infinity, +1 infinity, 2 epoch
	yearHasDigits int
}

// dtRefused is the 0A000 for date/time spellings the catalog does not
// read (PostgreSQL reads more forms than ISO 8601).
func dtRefused(oid OID, s string) *Error {
	return errorf(CodeUnsupported, "sidecar reads %s input in ISO 8601 form only (YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM]]): \"%s\"", NameOf(oid), s)
}

func fieldRange(s string) *Error {
	return errorf(CodeDatetimeField, "date/time field value out of range: \"%s\"", s)
}

// decodeDateTime parses the ISO forms of date, timestamp, timestamptz,
// time and timetz input: [YYYY-MM-DD][( |T)HH:MM[:SS[.f]]][zone][ BC|AD].
func decodeDateTime(oid OID, s string, wantDate bool) (dtParts, *Error) {
	var p dtParts
	t := strings.ToLower(strings.Trim(s, " \t\n\r\v\f"))
	switch t {
	case "infinity", "+infinity":
		p.special = 1
		return p, nil
	case "-infinity":
		p.special = -1
		return p, nil
	case "epoch":
		p.special = 2
		return p, nil
	case "now", "today", "tomorrow", "yesterday", "current":
		return p, errorf(CodeUnsupported, "sidecar does not read the special %s input \"%s\" (it depends on the current time)", NameOf(oid), s)
	case "allballs":
		if !wantDate {
			p.hasTime = true
			return p, nil
		}
	}
	bc := false
	if strings.HasSuffix(t, " bc") {
		bc, t = true, strings.TrimSpace(t[:len(t)-3])
	} else if strings.HasSuffix(t, " ad") {
		t = strings.TrimSpace(t[:len(t)-3])
	}
	i := 0
	num := func() (int64, int, bool) {
		j := i
		var v int64
		for i < len(t) && t[i] >= '0' && t[i] <= '9' && i-j < 10 {
			v = v*10 + int64(t[i]-'0')
			i++
		}
		return v, i - j, i > j
	}
	if wantDate || strings.Count(t, "-") >= 2 && strings.IndexByte(t, '-') > 2 {
		y, ny, ok := num()
		if !ok || ny < 4 || i >= len(t) || t[i] != '-' {
			return p, dtRefused(oid, s)
		}
		i++
		m, nm, ok := num()
		if !ok || nm > 2 || i >= len(t) || t[i] != '-' {
			return p, dtRefused(oid, s)
		}
		i++
		d, nd, ok := num()
		if !ok || nd > 2 {
			return p, dtRefused(oid, s)
		}
		if y == 0 || m < 1 || m > 12 || d < 1 {
			return p, fieldRange(s)
		}
		if bc {
			y = 1 - y
		}
		dim := daysInMonth[m]
		if m == 2 && isLeap(y) {
			dim = 29
		}
		if d > dim {
			return p, fieldRange(s)
		}
		p.y, p.m, p.d, p.hasDate, p.yearHasDigits = y, m, d, true, ny
		if i < len(t) && (t[i] == ' ' || t[i] == 't') {
			i++
			for i < len(t) && t[i] == ' ' {
				i++
			}
		}
	} else if bc {
		return p, dtRefused(oid, s)
	}
	if i < len(t) && t[i] >= '0' && t[i] <= '9' {
		h, nh, _ := num()
		if nh > 2 || i >= len(t) || t[i] != ':' {
			return p, dtRefused(oid, s)
		}
		i++
		mi, nmi, ok := num()
		if !ok || nmi > 2 {
			return p, dtRefused(oid, s)
		}
		var sec, frac int64
		if i < len(t) && t[i] == ':' {
			i++
			var nsec int
			sec, nsec, ok = num()
			if !ok || nsec > 2 {
				return p, dtRefused(oid, s)
			}
			if i < len(t) && t[i] == '.' {
				j := i
				i++
				for i < len(t) && t[i] >= '0' && t[i] <= '9' {
					i++
				}
				// ParseFractionalSecond: rint(strtod("0.fff") * 1e6).
				f, err := strconv.ParseFloat("0"+t[j:i], 64)
				if err != nil {
					return p, dtRefused(oid, s)
				}
				frac = int64(math.RoundToEven(f * 1e6))
			}
		}
		if h < 0 || mi < 0 || mi > 59 || sec < 0 || sec > 60 || frac < 0 || frac > usecsPerSec ||
			h > 24 || h == 24 && (mi > 0 || sec > 0 || frac > 0) {
			return p, fieldRange(s)
		}
		p.us = ((h*60+mi)*60+sec)*usecsPerSec + frac
		p.hasTime = true
	}
	for i < len(t) && t[i] == ' ' {
		i++
	}
	if i < len(t) {
		z := t[i:]
		switch z {
		case "z", "utc", "gmt", "zulu", "ut":
			p.hasZone = true
		default:
			east, ok := parseOffset(z)
			if !ok {
				if h, err := strconv.Atoi(strings.TrimLeft(strings.SplitN(z, ":", 2)[0], "+-")); err == nil && h > 15 && len(z) <= 9 {
					return p, errorf("22009", "time zone displacement out of range: \"%s\"", s)
				}
				return p, dtRefused(oid, s)
			}
			p.hasZone, p.zoneEast = true, east
		}
	}
	if !p.hasDate && !p.hasTime {
		return p, dtRefused(oid, s)
	}
	return p, nil
}

// parseOffset reads +HH, +HHMM, +HH:MM, +HH:MM:SS (and -) as seconds east.
func parseOffset(z string) (int64, bool) {
	if len(z) < 2 || z[0] != '+' && z[0] != '-' {
		return 0, false
	}
	neg := z[0] == '-'
	parts := strings.Split(z[1:], ":")
	if len(parts) == 1 && len(parts[0]) == 4 {
		parts = []string{parts[0][:2], parts[0][2:]}
	}
	if len(parts) > 3 {
		return 0, false
	}
	var secs int64
	mult := []int64{3600, 60, 1}
	for k, part := range parts {
		if part == "" || len(part) > 2 {
			return 0, false
		}
		v, err := strconv.Atoi(part)
		if err != nil {
			return 0, false
		}
		if k > 0 && v > 59 {
			return 0, false
		}
		secs += int64(v) * mult[k]
	}
	if secs > 15*3600+59*60 {
		return 0, false
	}
	if neg {
		secs = -secs
	}
	return secs, true
}

// parseDate is date_in.
func parseDate(s string) (DateVal, error) {
	p, err := decodeDateTime(Date, s, true)
	if err != nil {
		// The ISO reader refuses other forms, and its field-range
		// errors on them (22008) are not always PostgreSQL's (22007 for
		// '7541-61-3-0473 AD'): the full decoder answers both when the
		// DateStyle orders agree.
		if v, ok, err := parseDateAnyOrder(s); ok { // datein.go
			return v, err
		}
		return 0, err
	}
	switch p.special {
	case 1:
		return DatePosInf, nil
	case -1:
		return DateNegInf, nil
	case 2:
		return DateVal(date2j(1970, 1, 1) - postgresEpochJDate), nil
	}
	j := date2j(p.y, p.m, p.d)
	if j < 0 || j >= dateEndJulian {
		return 0, errorf(CodeDatetimeField, "date out of range: \"%s\"", s)
	}
	return DateVal(j - postgresEpochJDate), nil
}

// parseTimestamp is timestamp_in / timestamptz_in (TimeZone=UTC): a zone
// in timestamp input is ignored, as PostgreSQL ignores it.
func parseTimestamp(oid OID, s string) (TimestampVal, error) {
	p, err := decodeDateTime(oid, s, true)
	if err != nil {
		return 0, err
	}
	switch p.special {
	case 1:
		return TimestampPosInf, nil
	case -1:
		return TimestampNegInf, nil
	case 2:
		return TimestampVal((date2j(1970, 1, 1) - postgresEpochJDate) * usecsPerDay), nil
	}
	j := date2j(p.y, p.m, p.d)
	us := (j-postgresEpochJDate)*usecsPerDay + p.us
	if oid == Timestamptz {
		us -= p.zoneEast * usecsPerSec
	}
	// IS_VALID_JULIAN checks the year and month only (4714-11-23 BC at
	// -08 is 4714-11-24 00:00 UTC BC, the first valid instant), then
	// IS_VALID_TIMESTAMP the instant.
	if p.y < -4713 || p.y == -4713 && p.m < 11 || !tsInRange(us) {
		return 0, errorf(CodeDatetimeField, "timestamp out of range: \"%s\"", s)
	}
	return TimestampVal(us), nil
}

// tsInRange is IS_VALID_TIMESTAMP.
func tsInRange(us int64) bool {
	return us >= -postgresEpochJDate*usecsPerDay && us < (timestampEndJulian-postgresEpochJDate)*usecsPerDay
}

// parseTime is time_in (a zone is ignored) and timetz_in.
func parseTime(oid OID, s string) (Value, error) {
	t := strings.Trim(s, " \t\n\r\v\f")
	if len(t) > 0 && (t[0] < '0' || t[0] > '9') && !strings.EqualFold(t, "allballs") {
		return nil, dtRefused(oid, s)
	}
	p, err := decodeDateTime(oid, s, false)
	if err != nil {
		return nil, err
	}
	if p.special != 0 || !p.hasTime {
		return nil, dtRefused(oid, s)
	}
	if p.us > usecsPerDay {
		return nil, fieldRange(s)
	}
	if oid == Timetz {
		return TimeTZVal{Micros: p.us, Zone: int32(-p.zoneEast)}, nil
	}
	return TimeVal(p.us), nil
}

// appendYMD appends the ISO date of Julian day jd; it reports BC.
func appendYMD(dst []byte, jd int64) ([]byte, bool) {
	y, m, d := j2date(jd)
	isBC := y <= 0
	if isBC {
		y = 1 - y
	}
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, '-')
	return appendPadded(dst, d, 2), isBC
}

func appendPadded(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	b := strconv.AppendInt(buf[:0], v, 10)
	for i := len(b); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, b...)
}

// appendDate is date_out (DateStyle ISO).
func appendDate(dst []byte, d DateVal) []byte {
	switch d {
	case DatePosInf:
		return append(dst, "infinity"...)
	case DateNegInf:
		return append(dst, "-infinity"...)
	}
	dst, bc := appendYMD(dst, int64(d)+postgresEpochJDate)
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendClock appends HH:MM:SS[.ffffff without trailing zeros].
func appendClock(dst []byte, us int64) []byte {
	h := us / usecsPerHour
	us -= h * usecsPerHour
	m := us / usecsPerMinute
	us -= m * usecsPerMinute
	dst = appendPadded(dst, h, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, ':')
	return appendSeconds(dst, us)
}

// appendSeconds appends SS[.ffffff trimmed] of us microseconds (< 1 min).
func appendSeconds(dst []byte, us int64) []byte {
	dst = appendPadded(dst, us/usecsPerSec, 2)
	if f := us % usecsPerSec; f != 0 {
		dst = append(dst, '.')
		b := appendPadded(nil, f, 6)
		for len(b) > 0 && b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
		dst = append(dst, b...)
	}
	return dst
}

// appendTimestamp is timestamp_out, or timestamptz_out under TimeZone=UTC.
func appendTimestamp(dst []byte, ts TimestampVal, tz bool) []byte {
	switch ts {
	case TimestampPosInf:
		return append(dst, "infinity"...)
	case TimestampNegInf:
		return append(dst, "-infinity"...)
	}
	us := int64(ts)
	days := us / usecsPerDay
	rem := us % usecsPerDay
	if rem < 0 {
		rem += usecsPerDay
		days--
	}
	dst, bc := appendYMD(dst, days+postgresEpochJDate)
	dst = append(dst, ' ')
	dst = appendClock(dst, rem)
	if tz {
		dst = append(dst, "+00"...)
	}
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendZone appends a zone (seconds west) as +HH[:MM[:SS]] east.
func appendZone(dst []byte, west int32) []byte {
	east := -int64(west)
	if east < 0 {
		dst = append(dst, '-')
		east = -east
	} else {
		dst = append(dst, '+')
	}
	dst = appendPadded(dst, east/3600, 2)
	if m := east % 3600 / 60; m != 0 || east%60 != 0 {
		dst = append(dst, ':')
		dst = appendPadded(dst, m, 2)
	}
	if s := east % 60; s != 0 {
		dst = append(dst, ':')
		dst = appendPadded(dst, s, 2)
	}
	return dst
}

// adjustPrecision rounds microseconds to p fractional digits, half away
// from zero, as AdjustTimestampForTypmod / AdjustTimeForTypmod.
func adjustPrecision(us int64, p int32) int64 {
	if p < 0 || p >= 6 {
		return us
	}
	scale := int64(math.Pow10(int(6 - p)))
	off := scale / 2
	if us >= 0 {
		return (us + off) / scale * scale
	}
	return -((-us + off) / scale * scale)
}

// appendInterval is interval_out with IntervalStyle=postgres.
func appendInterval(dst []byte, iv IntervalVal) []byte {
	year := int64(iv.Months / 12)
	mon := int64(iv.Months % 12)
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !isZero {
			dst = append(dst, ' ')
		}
		if isBefore && v > 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, v, 10)
		dst = append(dst, ' ')
		dst = append(dst, unit...)
		if v != 1 {
			dst = append(dst, 's')
		}
		isBefore, isZero = v < 0, false
	}
	part(year, "year")
	part(mon, "mon")
	part(int64(iv.Days), "day")
	us := iv.Micros
	if isZero || us != 0 {
		if !isZero {
			dst = append(dst, ' ')
		}
		switch {
		case us < 0:
			dst = append(dst, '-')
		case isBefore:
			dst = append(dst, '+')
		}
		a := uint64(us)
		if us < 0 {
			a = uint64(-us)
		}
		h := a / usecsPerHour
		a -= h * usecsPerHour
		m := a / usecsPerMinute
		a -= m * usecsPerMinute
		dst = appendPadded(dst, int64(h), 2)
		dst = append(dst, ':')
		dst = appendPadded(dst, int64(m), 2)
		dst = append(dst, ':')
		dst = appendSeconds(dst, int64(a))
	}
	return dst
}
