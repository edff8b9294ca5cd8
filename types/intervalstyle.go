package types

import (
	"math"
	"strconv"
	"strings"
)

// interval_out under the session's IntervalStyle: PostgreSQL's
// EncodeInterval (datetime.c) for its four styles. The fields are
// interval2itm's: years and months from the months (same sign), the days
// as stored, and hours, minutes, seconds and microseconds from the time
// part, each carrying the time part's sign (C's truncating division).
// postgres is appendInterval (datetime.go).

// The IntervalStyle values PostgreSQL accepts (its enum's spellings).
const (
	IntervalStylePostgres        = "postgres"
	IntervalStylePostgresVerbose = "postgres_verbose"
	IntervalStyleSQLStandard     = "sql_standard"
	IntervalStyleISO8601         = "iso_8601"
)

// IntervalStyleOf is the canonical IntervalStyle for a SET value (case
// ignored, as PostgreSQL's enum parse); ok false for a value PostgreSQL
// rejects.
func IntervalStyleOf(v string) (string, bool) {
	switch s := strings.ToLower(v); s {
	case IntervalStylePostgres, IntervalStylePostgresVerbose, IntervalStyleSQLStandard, IntervalStyleISO8601:
		return s, true
	}
	return "", false
}

// AppendIntervalStyle appends iv as interval_out prints it under style
// (one of the IntervalStyle constants; anything else is postgres).
func AppendIntervalStyle(dst []byte, iv IntervalVal, style string) []byte {
	f := splitInterval(iv)
	switch style {
	case IntervalStyleSQLStandard:
		return f.appendSQLStandard(dst)
	case IntervalStyleISO8601:
		return f.appendISO8601(dst)
	case IntervalStylePostgresVerbose:
		return f.appendVerbose(dst)
	}
	return appendInterval(dst, iv)
}

// itmFields is interval2itm's pg_itm.
type itmFields struct {
	year, mon, mday, hour, min, sec, usec int64
}

func splitInterval(iv IntervalVal) itmFields {
	t := iv.Micros
	f := itmFields{year: int64(iv.Months / 12), mon: int64(iv.Months % 12), mday: int64(iv.Days)}
	f.hour = t / usecsPerHour
	t -= f.hour * usecsPerHour
	f.min = t / usecsPerMinute
	t -= f.min * usecsPerMinute
	f.sec = t / usecsPerSec
	f.usec = t - f.sec*usecsPerSec
	return f
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendSecondsFrac is AppendSeconds: |sec|, zero-padded to two digits
// when fill, then |usec| as a fraction without trailing zeros.
func appendSecondsFrac(dst []byte, sec, usec int64, fill bool) []byte {
	if fill {
		dst = appendPadded(dst, abs64(sec), 2)
	} else {
		dst = strconv.AppendInt(dst, abs64(sec), 10)
	}
	if usec != 0 {
		dst = append(dst, '.')
		b := appendPadded(nil, abs64(usec), 6)
		for len(b) > 0 && b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
		dst = append(dst, b...)
	}
	return dst
}

// appendSQLStandard is INTSTYLE_SQL_STANDARD: one leading sign when the
// fields agree and year-month and day-time parts are not mixed, else
// every part with its own sign.
func (f itmFields) appendSQLStandard(dst []byte) []byte {
	neg := f.year < 0 || f.mon < 0 || f.mday < 0 || f.hour < 0 || f.min < 0 || f.sec < 0 || f.usec < 0
	pos := f.year > 0 || f.mon > 0 || f.mday > 0 || f.hour > 0 || f.min > 0 || f.sec > 0 || f.usec > 0
	hasYM := f.year != 0 || f.mon != 0
	hasDT := f.mday != 0 || f.hour != 0 || f.min != 0 || f.sec != 0 || f.usec != 0
	standard := !(neg && pos) && !(hasYM && hasDT)
	if neg && standard {
		dst = append(dst, '-')
		f = itmFields{-f.year, -f.mon, -f.mday, -f.hour, -f.min, -f.sec, -f.usec}
	}
	switch {
	case !neg && !pos:
		return append(dst, '0')
	case !standard:
		sign := func(n bool) byte {
			if n {
				return '-'
			}
			return '+'
		}
		dst = append(dst, sign(f.year < 0 || f.mon < 0))
		dst = strconv.AppendInt(dst, abs64(f.year), 10)
		dst = append(dst, '-')
		dst = strconv.AppendInt(dst, abs64(f.mon), 10)
		dst = append(dst, ' ', sign(f.mday < 0))
		dst = strconv.AppendInt(dst, abs64(f.mday), 10)
		dst = append(dst, ' ', sign(f.hour < 0 || f.min < 0 || f.sec < 0 || f.usec < 0))
		dst = strconv.AppendInt(dst, abs64(f.hour), 10)
		dst = append(dst, ':')
		dst = appendPadded(dst, abs64(f.min), 2)
		dst = append(dst, ':')
		return appendSecondsFrac(dst, f.sec, f.usec, true)
	case hasYM:
		dst = strconv.AppendInt(dst, f.year, 10)
		dst = append(dst, '-')
		return strconv.AppendInt(dst, f.mon, 10)
	case f.mday != 0:
		dst = strconv.AppendInt(dst, f.mday, 10)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, f.hour, 10)
		dst = append(dst, ':')
		dst = appendPadded(dst, f.min, 2)
		dst = append(dst, ':')
		return appendSecondsFrac(dst, f.sec, f.usec, true)
	}
	dst = strconv.AppendInt(dst, f.hour, 10)
	dst = append(dst, ':')
	dst = appendPadded(dst, f.min, 2)
	dst = append(dst, ':')
	return appendSecondsFrac(dst, f.sec, f.usec, true)
}

// appendISO8601 is INTSTYLE_ISO_8601, "time-intervals by duration only".
func (f itmFields) appendISO8601(dst []byte) []byte {
	if f == (itmFields{}) {
		return append(dst, "PT0S"...)
	}
	part := func(v int64, unit byte) {
		if v != 0 {
			dst = strconv.AppendInt(dst, v, 10)
			dst = append(dst, unit)
		}
	}
	dst = append(dst, 'P')
	part(f.year, 'Y')
	part(f.mon, 'M')
	part(f.mday, 'D')
	if f.hour != 0 || f.min != 0 || f.sec != 0 || f.usec != 0 {
		dst = append(dst, 'T')
	}
	part(f.hour, 'H')
	part(f.min, 'M')
	if f.sec != 0 || f.usec != 0 {
		if f.sec < 0 || f.usec < 0 {
			dst = append(dst, '-')
		}
		dst = appendSecondsFrac(dst, f.sec, f.usec, false)
		dst = append(dst, 'S')
	}
	return dst
}

// appendVerbose is INTSTYLE_POSTGRES_VERBOSE: "@ 1 year 2 mons … ago",
// the first nonzero field deciding "ago" and the later ones printed
// relative to it.
func (f itmFields) appendVerbose(dst []byte) []byte {
	dst = append(dst, '@')
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if isZero {
			isBefore = v < 0
			v = abs64(v)
		} else if isBefore {
			v = -v
		}
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, v, 10)
		dst = append(dst, ' ')
		dst = append(dst, unit...)
		if v != 1 {
			dst = append(dst, 's')
		}
		isZero = false
	}
	part(f.year, "year")
	part(f.mon, "mon")
	part(f.mday, "day")
	part(f.hour, "hour")
	part(f.min, "min")
	if f.sec != 0 || f.usec != 0 {
		dst = append(dst, ' ')
		if f.sec < 0 || f.sec == 0 && f.usec < 0 {
			if isZero {
				isBefore = true
			} else if !isBefore {
				dst = append(dst, '-')
			}
		} else if isBefore {
			dst = append(dst, '-')
		}
		dst = appendSecondsFrac(dst, f.sec, f.usec, false)
		dst = append(dst, " sec"...)
		if abs64(f.sec) != 1 || f.usec != 0 {
			dst = append(dst, 's')
		}
		isZero = false
	}
	if isZero {
		dst = append(dst, " 0"...)
	}
	if isBefore {
		dst = append(dst, " ago"...)
	}
	return dst
}

// intervalSQLStandardRefusal refuses interval input whose reading
// depends on IntervalStyle sql_standard: text whose first field starts
// with '-' and no later field has a sign of its own (DecodeInterval's
// force_negative; the port reads the postgres style, where the sign
// applies to its own field only).
func intervalSQLStandardRefusal(s string) error {
	f := strings.Fields(s)
	if len(f) == 0 || !strings.HasPrefix(f[0], "-") {
		return nil
	}
	for _, x := range f[1:] {
		if strings.HasPrefix(x, "-") || strings.HasPrefix(x, "+") {
			return nil // another explicit sign: PostgreSQL leaves the signs alone
		}
	}
	return errorf(CodeUnsupported, "sidecar does not read interval input with a leading '-' under IntervalStyle sql_standard (the sign applies to every field there): \"%s\"", s)
}

// IntervalFits14 says whether PostgreSQL 14's interval2tm and
// EncodeInterval print iv without an int overflow: 14 keeps the days
// and hours in C ints, so -2147483648 days printed "--2147483648" under
// sql_standard and more than 2^31-1 hours fail there.
func IntervalFits14(iv IntervalVal) bool {
	h := iv.Micros / usecsPerHour
	return iv.Days != math.MinInt32 && h <= math.MaxInt32 && h >= -math.MaxInt32
}
