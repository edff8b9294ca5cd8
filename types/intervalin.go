package types

import (
	"math"
	"strconv"
	"strings"
)

// interval_in as PostgreSQL 15's (datetime.c) with IntervalStyle
// postgres and no field qualifier: ParseDateTime splits the text into
// fields, DecodeInterval reads them right to left (units before their
// quantities, fractional units spilling into the lower ones: '1.5
// months' is 1 mon 15 days), and when that finds a bad format
// DecodeISO8601Interval reads the ISO 8601 forms (P1Y2M3DT4H5M6S, the
// alternative P0001-02-03T04:05:06). Integer parts are exact with
// PostgreSQL's overflow checks; fractions are doubles rounded as its
// AdjustFract* functions round them. Inputs whose reading differs
// between PostgreSQL's majors or that the port does not reproduce
// (infinity, non-ASCII bytes, the field buffer's limits) are refused.

// The field types of ParseDateTime.
const (
	ivNumber = iota
	ivTime
	ivDate
	ivTZ
	ivString
	ivSpecial
)

// The units of interval input (DecodeInterval's DTK_* it handles).
const (
	ivNone = iota
	ivMicrosec
	ivMillisec
	ivSecond
	ivMinute
	ivHour
	ivDay
	ivWeek
	ivMonth
	ivYear
	ivDecade
	ivCentury
	ivMillennium
	ivOther // a unit DecodeInterval does not take (quarter, timezone, …)
	ivAgo
)

// ivUnits is deltatktbl: the unit words, matched on their first ten
// letters (TOKMAXLEN).
var ivUnits = map[string]int{
	"c": ivCentury, "cent": ivCentury, "centuries": ivCentury, "century": ivCentury,
	"d": ivDay, "day": ivDay, "days": ivDay,
	"dec": ivDecade, "decade": ivDecade, "decades": ivDecade, "decs": ivDecade,
	"h": ivHour, "hour": ivHour, "hours": ivHour, "hr": ivHour, "hrs": ivHour,
	"m": ivMinute, "min": ivMinute, "mins": ivMinute, "minute": ivMinute, "minutes": ivMinute,
	"microsecon": ivMicrosec, "us": ivMicrosec, "usec": ivMicrosec, "usecond": ivMicrosec, "useconds": ivMicrosec, "usecs": ivMicrosec,
	"mil": ivMillennium, "millennia": ivMillennium, "millennium": ivMillennium, "mils": ivMillennium,
	"millisecon": ivMillisec, "ms": ivMillisec, "msec": ivMillisec, "msecond": ivMillisec, "mseconds": ivMillisec, "msecs": ivMillisec,
	"mon": ivMonth, "mons": ivMonth, "month": ivMonth, "months": ivMonth,
	"qtr": ivOther, "quarter": ivOther, "timezone": ivOther, "timezone_h": ivOther, "timezone_m": ivOther,
	"s": ivSecond, "sec": ivSecond, "second": ivSecond, "seconds": ivSecond, "secs": ivSecond,
	"w": ivWeek, "week": ivWeek, "weeks": ivWeek,
	"y": ivYear, "year": ivYear, "years": ivYear, "yr": ivYear, "yrs": ivYear,
	"ago": ivAgo,
}

// The unit masks DecodeInterval keeps to refuse a unit given twice
// (DTK_M(…); DTK_TIME_M for a clock field).
const (
	mSecond = 1 << iota
	mMillisec
	mMicrosec
	mMinute
	mHour
	mDay
	mWeek
	mMonth
	mYear
	mDecade
	mCentury
	mMillennium
	mAllSecs = mSecond | mMillisec | mMicrosec
	mTime    = mHour | mMinute | mAllSecs
)

// itmIn is struct pg_itm_in.
type itmIn struct {
	usec      int64
	mday, mon int32
	year      int32
}

// ivErr are DecodeInterval's outcomes besides success.
type ivErr int

const (
	ivOK ivErr = iota
	ivBadFormat
	ivFieldOverflow
	ivRefused
)

// parseInterval is interval_in without a typmod.
func parseInterval(s string) (IntervalVal, error) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return IntervalVal{}, errorf(CodeUnsupported, "sidecar does not read interval input with non-ASCII characters: \"%s\"", s)
		}
	}
	if strings.Contains(strings.ToLower(s), "infinity") {
		return IntervalVal{}, errorf(CodeUnsupported, "sidecar does not read infinite interval input (PostgreSQL 17 reads it, earlier majors do not): \"%s\"", s)
	}
	var itm itmIn
	fields, ftypes, e := ivParseFields(s)
	if e == ivOK {
		e = decodeInterval(fields, ftypes, &itm)
	}
	if e == ivBadFormat {
		itm = itmIn{}
		e = decodeISO8601Interval(s, &itm)
	}
	switch e {
	case ivBadFormat:
		return IntervalVal{}, errorf(CodeDatetimeFormat, "invalid input syntax for type interval: \"%s\"", s)
	case ivFieldOverflow:
		return IntervalVal{}, errorf("22015", "interval field value out of range: \"%s\"", s)
	case ivRefused:
		return IntervalVal{}, errorf(CodeUnsupported, "sidecar does not read this interval input (PostgreSQL's majors differ on it): \"%s\"", s)
	}
	months := int64(itm.year)*12 + int64(itm.mon)
	if months != int64(int32(months)) {
		return IntervalVal{}, errorf(CodeDatetimeField, "interval out of range")
	}
	return IntervalVal{Months: int32(months), Days: itm.mday, Micros: itm.usec}, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
func isPunct(c byte) bool { return c > ' ' && c < 0x7f && !isDigit(c) && !isAlpha(c) }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// ivParseFields is ParseDateTime: the fields and their types.
func ivParseFields(s string) ([]string, []int, ivErr) {
	var fields []string
	var ftypes []int
	size := 0
	for i := 0; i < len(s); {
		c := s[i]
		if isSpace(c) {
			i++
			continue
		}
		if len(fields) >= 24 {
			return nil, nil, ivRefused // MAXDATEFIELDS: left to PostgreSQL's buffer rules
		}
		var b []byte
		var ft int
		switch {
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) {
				b, i = append(b, s[i]), i+1
			}
			switch {
			case i < len(s) && s[i] == ':':
				ft = ivTime
				b, i = append(b, s[i]), i+1
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					b, i = append(b, s[i]), i+1
				}
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				b, i = append(b, s[i]), i+1
				if i < len(s) && isDigit(s[i]) {
					ft = ivDate
					if delim == '.' {
						ft = ivNumber
					}
					for i < len(s) && isDigit(s[i]) {
						b, i = append(b, s[i]), i+1
					}
					if i < len(s) && s[i] == delim {
						ft = ivDate
						b, i = append(b, s[i]), i+1
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							b, i = append(b, s[i]), i+1
						}
					}
				} else {
					ft = ivDate
					for i < len(s) && (isDigit(s[i]) || isAlpha(s[i]) || s[i] == delim) {
						b, i = append(b, lower(s[i])), i+1
					}
				}
			default:
				ft = ivNumber
			}
		case c == '.':
			b, i = append(b, c), i+1
			for i < len(s) && isDigit(s[i]) {
				b, i = append(b, s[i]), i+1
			}
			ft = ivNumber
		case isAlpha(c):
			ft = ivString
			for i < len(s) && isAlpha(s[i]) {
				b, i = append(b, lower(s[i])), i+1
			}
			isDate := false
			if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				isDate = true
			} else if i < len(s) && (s[i] == '+' || isDigit(s[i])) {
				// datebsearch in datetktbl: the date/time words; a unit
				// word or "p" followed by a digit is not one of them
				// (their table is not ported: refuse the words it has).
				if dateWords[string(b)] {
					return nil, nil, ivRefused
				}
				isDate = true
			}
			if isDate {
				ft = ivDate
				for {
					b, i = append(b, lower(s[i])), i+1
					if i >= len(s) || !(s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' || s[i] == '.' || s[i] == ':' || isDigit(s[i]) || isAlpha(s[i])) {
						break
					}
				}
			}
		case c == '+' || c == '-':
			b, i = append(b, c), i+1
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			switch {
			case i < len(s) && isDigit(s[i]):
				ft = ivTZ
				b, i = append(b, s[i]), i+1
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					b, i = append(b, s[i]), i+1
				}
			case i < len(s) && isAlpha(s[i]):
				ft = ivSpecial
				for i < len(s) && isAlpha(s[i]) {
					b, i = append(b, lower(s[i])), i+1
				}
			default:
				return nil, nil, ivBadFormat
			}
		case isPunct(c):
			i++
			continue
		default:
			return nil, nil, ivBadFormat
		}
		size += len(b) + 1
		if size > 200 {
			return nil, nil, ivRefused // the work buffer's limit, not ported
		}
		fields, ftypes = append(fields, string(b)), append(ftypes, ft)
	}
	return fields, ftypes, ivOK
}

// dateWords are datetktbl's words a letter run followed by a digit or
// '+' could be (then ParseDateTime keeps them a string field).
var dateWords = map[string]bool{"am": true, "pm": true, "ad": true, "bc": true, "allballs": true, "epoch": true, "now": true,
	"today": true, "tomorrow": true, "yesterday": true, "z": true, "zulu": true, "t": true, "y": false, "d": false, "h": false,
	"m": false, "s": false, "j": true, "julian": true, "jan": true, "feb": true, "mar": true, "apr": true, "may": true, "jun": true,
	"jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "january": true, "february": true,
	"march": true, "april": true, "june": true, "july": true, "august": true, "september": true, "october": true, "november": true,
	"december": true, "sun": true, "mon": true, "tue": true, "tues": true, "wed": true, "wednesday": true, "thu": true, "thur": true,
	"thurs": true, "fri": true, "sat": true, "sunday": true, "monday": true, "tuesday": true, "thursday": true, "friday": true,
	"saturday": true, "on": true, "dow": true, "doy": true, "isodow": true, "isoyear": true, "infinity": true, "invalid": true,
	"undefined": true, "current": true, "bst": true, "dst": true, "utc": true, "gmt": true, "ut": true}

// unitOf is DecodeUnits: the unit a word names (ivNone: unknown).
func unitOf(w string) int {
	if len(w) > 10 {
		w = w[:10]
	}
	return ivUnits[w]
}

// strtoi64 reads a leading [+-]digits as strtoi64 does (no digits: 0
// and rest is s); ok is false on overflow.
func strtoi64(s string) (v int64, rest string, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == i {
		return 0, s, true
	}
	v, err := strconv.ParseInt(s[:j], 10, 64)
	if err != nil {
		return 0, s[j:], false
	}
	return v, s[j:], true
}

// decodeInterval is DecodeInterval over fields read right to left.
func decodeInterval(fields []string, ftypes []int, itm *itmIn) ivErr {
	fmask := 0
	typ := ivNone // IGNORE_DTF: the rightmost bare number is seconds
	ignore := true
	before := false
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		tmask := 0
		number := false
		switch ftypes[i] {
		case ivTime:
			us, e := decodeTimeForInterval(f)
			if e != ivOK {
				return e
			}
			if e := setClock(us, fmask, itm); e != ivOK {
				return e
			}
			typ, ignore, tmask = ivDay, false, mTime
		case ivTZ:
			if strings.Contains(f[1:], ":") {
				if us, e := decodeTimeForInterval(f[1:]); e == ivOK {
					if f[0] == '-' {
						us = -us
					}
					if e := setClock(us, fmask, itm); e != ivOK {
						return e
					}
					typ, ignore, tmask = ivDay, false, mTime
					break
				}
			}
			number = true
		case ivDate, ivNumber:
			number = true
		case ivString, ivSpecial:
			u := unitOf(f)
			if f == "invalid" {
				return ivRefused // a reserved word in some majors' tables
			}
			switch u {
			case ivNone:
				return ivBadFormat
			case ivAgo:
				before = true
				typ, ignore = ivNone, false
			default:
				typ, ignore = u, false
			}
		default:
			return ivBadFormat
		}
		if number {
			if ignore {
				typ, ignore = ivSecond, false
			}
			val, rest, ok := strtoi64(f)
			if !ok {
				return ivFieldOverflow
			}
			var fval float64
			switch {
			case strings.HasPrefix(rest, "-"):
				// SQL "years-months" (strtoint: no digits reads 0)
				v2, r2, ok := strtoi64(rest[1:])
				if !ok || v2 < 0 || v2 >= 12 {
					return ivFieldOverflow
				}
				if r2 != "" {
					return ivBadFormat
				}
				typ = ivMonth
				if f[0] == '-' {
					v2 = -v2
				}
				var ok1, ok2 bool
				val, ok1 = mul64(val, 12)
				val, ok2 = add64(val, v2)
				if !ok1 || !ok2 {
					return ivFieldOverflow
				}
			case strings.HasPrefix(rest, "."):
				if rest == "." {
					return ivRefused // "1." : PostgreSQL's majors read it differently
				}
				for _, c := range []byte(rest[1:]) {
					if !isDigit(c) {
						return ivBadFormat
					}
				}
				fval, _ = strconv.ParseFloat("0"+rest, 64)
				if f[0] == '-' {
					fval = -fval
				}
			case rest == "":
			default:
				return ivBadFormat
			}
			switch typ {
			case ivMicrosec:
				ok, tmask = adjustMicroseconds(val, fval, 1, itm), mMicrosec
			case ivMillisec:
				ok, tmask = adjustMicroseconds(val, fval, 1000, itm), mMillisec
			case ivSecond:
				ok, tmask = adjustMicroseconds(val, fval, usecsPerSec, itm), mSecond
				if fval != 0 {
					tmask = mAllSecs
				}
			case ivMinute:
				ok, tmask = adjustMicroseconds(val, fval, usecsPerMinute, itm), mMinute
			case ivHour:
				ok, tmask = adjustMicroseconds(val, fval, usecsPerHour, itm), mHour
				typ = ivDay
			case ivDay:
				ok, tmask = adjustDays(val, 1, itm) && adjustFractMicroseconds(fval, usecsPerDay, itm), mDay
			case ivWeek:
				ok, tmask = adjustDays(val, 7, itm) && adjustFractDays(fval, 7, itm), mWeek
			case ivMonth:
				ok, tmask = adjustMonths(val, itm) && adjustFractDays(fval, 30, itm), mMonth
			case ivYear:
				ok, tmask = adjustYears(val, 1, itm) && adjustFractYears(fval, 1, itm), mYear
			case ivDecade:
				ok, tmask = adjustYears(val, 10, itm) && adjustFractYears(fval, 10, itm), mDecade
			case ivCentury:
				ok, tmask = adjustYears(val, 100, itm) && adjustFractYears(fval, 100, itm), mCentury
			case ivMillennium:
				ok, tmask = adjustYears(val, 1000, itm) && adjustFractYears(fval, 1000, itm), mMillennium
			default:
				return ivBadFormat
			}
			if !ok {
				return ivFieldOverflow
			}
		}
		if tmask&fmask != 0 {
			return ivBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 {
		return ivBadFormat
	}
	if before {
		if itm.usec == math.MinInt64 || itm.mday == math.MinInt32 || itm.mon == math.MinInt32 || itm.year == math.MinInt32 {
			return ivFieldOverflow
		}
		itm.usec, itm.mday, itm.mon, itm.year = -itm.usec, -itm.mday, -itm.mon, -itm.year
	}
	return ivOK
}

// decodeTimeForInterval is DecodeTimeForInterval: [h]h:mm[:ss[.f]] or
// mm:ss.f as microseconds.
func decodeTimeForInterval(s string) (int64, ivErr) {
	hour, rest, ok := strtoi64(s)
	if !ok {
		return 0, ivFieldOverflow
	}
	if !strings.HasPrefix(rest, ":") {
		return 0, ivBadFormat
	}
	min, rest, ok := strtoi64(rest[1:])
	if !ok || min > math.MaxInt32 || min < math.MinInt32 {
		return 0, ivFieldOverflow
	}
	var sec, fsec int64
	switch {
	case rest == "":
	case strings.HasPrefix(rest, "."):
		f, ok := fractionalSecond(rest)
		if !ok {
			return 0, ivBadFormat
		}
		fsec = f
		if hour > math.MaxInt32 || hour < math.MinInt32 {
			return 0, ivFieldOverflow
		}
		hour, min, sec = 0, hour, min
	case strings.HasPrefix(rest, ":"):
		sec, rest, ok = strtoi64(rest[1:])
		if !ok || sec > math.MaxInt32 || sec < math.MinInt32 {
			return 0, ivFieldOverflow
		}
		switch {
		case strings.HasPrefix(rest, "."):
			f, ok := fractionalSecond(rest)
			if !ok {
				return 0, ivBadFormat
			}
			fsec = f
		case rest != "":
			return 0, ivBadFormat
		}
	default:
		return 0, ivBadFormat
	}
	if hour < 0 || min < 0 || min > 59 || sec < 0 || sec > 60 || fsec < 0 || fsec > usecsPerSec {
		return 0, ivFieldOverflow
	}
	us := fsec
	var ok1, ok2, ok3 bool
	us, ok1 = mulAdd64(hour, usecsPerHour, us)
	us, ok2 = mulAdd64(min, usecsPerMinute, us)
	us, ok3 = mulAdd64(sec, usecsPerSec, us)
	if !ok1 || !ok2 || !ok3 {
		return 0, ivFieldOverflow
	}
	return us, ivOK
}

// setClock puts a clock field's microseconds into itm. PostgreSQL sets
// them (a time unit already read is a bad format); microseconds that a
// fractional day, week, month or year to the right spilled would be
// lost there, which is refused here rather than reproduced.
func setClock(us int64, fmask int, itm *itmIn) ivErr {
	if fmask&mTime != 0 {
		return ivBadFormat
	}
	if itm.usec != 0 {
		return ivRefused
	}
	itm.usec = us
	return ivOK
}

// fractionalSecond is ParseFractionalSecond: ".ddd" as rint(frac*1e6).
func fractionalSecond(s string) (int64, bool) {
	if s == "." {
		return 0, false // strtod reads nothing
	}
	for _, c := range []byte(s[1:]) {
		if !isDigit(c) {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat("0"+s, 64)
	if err != nil {
		return 0, false
	}
	return int64(math.RoundToEven(f * 1000000)), true
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

func add64(a, b int64) (int64, bool) {
	s := a + b
	if (s > a) != (b > 0) {
		return 0, false
	}
	return s, true
}

func mulAdd64(v, m, sum int64) (int64, bool) {
	p, ok := mul64(v, m)
	if !ok {
		return 0, false
	}
	return add64(sum, p)
}

func add32(a int32, b int64) (int32, bool) {
	s := int64(a) + b
	if s != int64(int32(s)) {
		return 0, false
	}
	return int32(s), true
}

// adjustFractMicroseconds is AdjustFractMicroseconds.
func adjustFractMicroseconds(frac float64, scale int64, itm *itmIn) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	usec := int64(frac)
	frac -= float64(usec)
	usec += int64(math.RoundToEven(frac))
	var ok bool
	itm.usec, ok = add64(itm.usec, usec)
	return ok
}

// adjustFractDays is AdjustFractDays.
func adjustFractDays(frac float64, scale int, itm *itmIn) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int64(frac)
	var ok bool
	if itm.mday, ok = add32(itm.mday, extra); !ok {
		return false
	}
	frac -= float64(extra)
	return adjustFractMicroseconds(frac, usecsPerDay, itm)
}

// adjustFractYears is AdjustFractYears.
func adjustFractYears(frac float64, scale int, itm *itmIn) bool {
	extra := int64(math.RoundToEven(frac * float64(scale) * 12))
	var ok bool
	itm.mon, ok = add32(itm.mon, extra)
	return ok
}

// adjustMicroseconds is AdjustMicroseconds.
func adjustMicroseconds(val int64, fval float64, scale int64, itm *itmIn) bool {
	var ok bool
	if itm.usec, ok = mulAdd64(val, scale, itm.usec); !ok {
		return false
	}
	return adjustFractMicroseconds(fval, scale, itm)
}

// adjustDays is AdjustDays.
func adjustDays(val int64, scale int64, itm *itmIn) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	d := val * scale
	if d != int64(int32(d)) {
		return false
	}
	var ok bool
	itm.mday, ok = add32(itm.mday, d)
	return ok
}

// adjustMonths is AdjustMonths.
func adjustMonths(val int64, itm *itmIn) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	var ok bool
	itm.mon, ok = add32(itm.mon, val)
	return ok
}

// adjustYears is AdjustYears.
func adjustYears(val int64, scale int64, itm *itmIn) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	y := val * scale
	if y != int64(int32(y)) {
		return false
	}
	var ok bool
	itm.year, ok = add32(itm.year, y)
	return ok
}

// iso8601Number is ParseISO8601Number: a strtod number at s's start
// (first a digit, '-' or '.'), its integer part truncated toward zero
// and the fraction; the rest of s after it.
func iso8601Number(s string) (ipart int64, fpart float64, rest string, e ivErr) {
	if s == "" || !(isDigit(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, ivBadFormat
	}
	i := 0
	if s[0] == '-' {
		i++
	}
	if i < len(s) && (isAlpha(s[i])) {
		return 0, 0, s, ivRefused // strtod's inf/nan spellings
	}
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") {
		return 0, 0, s, ivRefused // strtod's hexadecimal floats
	}
	nd := 0
	for i < len(s) && isDigit(s[i]) {
		i, nd = i+1, nd+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, nd = i+1, nd+1
		}
	}
	if nd == 0 {
		return 0, 0, s, ivBadFormat
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	val, err := strconv.ParseFloat(s[:i], 64)
	if err != nil && !math.IsInf(val, 0) {
		return 0, 0, s, ivBadFormat
	}
	if math.IsNaN(val) || val < -1.0e15 || val > 1.0e15 {
		return 0, 0, s, ivFieldOverflow
	}
	if val >= 0 {
		ipart = int64(math.Floor(val))
	} else {
		ipart = -int64(math.Floor(-val))
	}
	return ipart, val - float64(ipart), s[i:], ivOK
}

// iso8601IntegerWidth is ISO8601IntegerWidth: the digits at s's start
// after an optional '-'.
func iso8601IntegerWidth(s string) int {
	s = strings.TrimPrefix(s, "-")
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// decodeISO8601Interval is DecodeISO8601Interval: P[nY][nM][nW][nD]
// [T[nH][nM][nS]] and the alternative formats P[YYYY-MM-DD][Thh:mm:ss]
// and PYYYYMMDDThhmmss, on the text as given (upper-case letters).
func decodeISO8601Interval(s string, itm *itmIn) ivErr {
	if len(s) < 2 || s[0] != 'P' {
		return ivBadFormat
	}
	str := s[1:]
	datepart, havefield := true, false
	for str != "" {
		if str[0] == 'T' {
			datepart, havefield = false, false
			str = str[1:]
			continue
		}
		fieldstart := str
		val, fval, rest, e := iso8601Number(str)
		if e != ivOK {
			return e
		}
		var unit byte
		if rest != "" {
			unit, rest = rest[0], rest[1:]
		}
		str = rest
		ok := true
		if datepart {
			switch unit {
			case 'Y':
				ok = adjustYears(val, 1, itm) && adjustFractYears(fval, 1, itm)
			case 'M':
				ok = adjustMonths(val, itm) && adjustFractDays(fval, 30, itm)
			case 'W':
				ok = adjustDays(val, 7, itm) && adjustFractDays(fval, 7, itm)
			case 'D':
				ok = adjustDays(val, 1, itm) && adjustFractMicroseconds(fval, usecsPerDay, itm)
			case 'T', 0, '-':
				if unit != '-' && iso8601IntegerWidth(fieldstart) == 8 && !havefield {
					if !adjustYears(val/10000, 1, itm) || !adjustMonths((val/100)%100, itm) || !adjustDays(val%100, 1, itm) ||
						!adjustFractMicroseconds(fval, usecsPerDay, itm) {
						return ivFieldOverflow
					}
					if unit == 0 {
						return ivOK
					}
					datepart, havefield = false, false
					continue
				}
				if havefield {
					return ivBadFormat
				}
				if !adjustYears(val, 1, itm) || !adjustFractYears(fval, 1, itm) {
					return ivFieldOverflow
				}
				if unit == 0 {
					return ivOK
				}
				if unit == 'T' {
					datepart, havefield = false, false
					continue
				}
				if val, fval, str, e = iso8601Number(str); e != ivOK {
					return e
				}
				if !adjustMonths(val, itm) || !adjustFractDays(fval, 30, itm) {
					return ivFieldOverflow
				}
				if str == "" {
					return ivOK
				}
				if str[0] == 'T' {
					datepart, havefield = false, false
					continue
				}
				if str[0] != '-' {
					return ivBadFormat
				}
				if val, fval, str, e = iso8601Number(str[1:]); e != ivOK {
					return e
				}
				if !adjustDays(val, 1, itm) || !adjustFractMicroseconds(fval, usecsPerDay, itm) {
					return ivFieldOverflow
				}
				if str == "" {
					return ivOK
				}
				if str[0] == 'T' {
					datepart, havefield = false, false
					continue
				}
				return ivBadFormat
			default:
				return ivBadFormat
			}
		} else {
			switch unit {
			case 'H':
				ok = adjustMicroseconds(val, fval, usecsPerHour, itm)
			case 'M':
				ok = adjustMicroseconds(val, fval, usecsPerMinute, itm)
			case 'S':
				ok = adjustMicroseconds(val, fval, usecsPerSec, itm)
			case 0, ':':
				if unit == 0 && iso8601IntegerWidth(fieldstart) == 6 && !havefield {
					if !adjustMicroseconds(val/10000, 0, usecsPerHour, itm) || !adjustMicroseconds((val/100)%100, 0, usecsPerMinute, itm) ||
						!adjustMicroseconds(val%100, 0, usecsPerSec, itm) || !adjustFractMicroseconds(fval, 1, itm) {
						return ivFieldOverflow
					}
					return ivOK
				}
				if havefield {
					return ivBadFormat
				}
				if !adjustMicroseconds(val, fval, usecsPerHour, itm) {
					return ivFieldOverflow
				}
				if unit == 0 {
					return ivOK
				}
				if val, fval, str, e = iso8601Number(str); e != ivOK {
					return e
				}
				if !adjustMicroseconds(val, fval, usecsPerMinute, itm) {
					return ivFieldOverflow
				}
				if str == "" {
					return ivOK
				}
				if str[0] != ':' {
					return ivBadFormat
				}
				if val, fval, str, e = iso8601Number(str[1:]); e != ivOK {
					return e
				}
				if !adjustMicroseconds(val, fval, usecsPerSec, itm) {
					return ivFieldOverflow
				}
				if str == "" {
					return ivOK
				}
				return ivBadFormat
			default:
				return ivBadFormat
			}
		}
		if !ok {
			return ivFieldOverflow
		}
		havefield = true
	}
	return ivOK
}
