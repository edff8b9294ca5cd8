package builtin

import (
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// intervalToChar is to_char(interval, text) as PostgreSQL's
// interval_to_char (formatting.c): the interval's fields as
// interval2itm splits them (years and months from the months, the days,
// then hours, minutes, seconds and microseconds of the time, each with
// the interval's sign) formatted by DCH_to_char in interval mode: the
// calendar fields are 22007, years are not adjusted for BC, CC is the
// years / 100, DDD counts 30-day months, negative fields are one digit
// wider. An empty format is NULL. Refused: hours past int4 (PostgreSQL
// 14 keeps them in an int, 15 on in an int64), SSSS past int4 (14
// overflows an int) and the ISO-calendar and
// Julian fields computed from an interval's non-dates.
func intervalToChar(v types.IntervalVal, f string) (types.Value, error) {
	if f == "" {
		return nil, nil
	}
	var x tm
	x.year, x.mon, x.mday = int64(v.Months/12), int64(v.Months%12), int64(v.Days)
	us := v.Micros
	x.hour = us / 3600000000
	us -= x.hour * 3600000000
	x.min = us / 60000000
	us -= x.min * 60000000
	x.sec = us / 1000000
	x.fsec = us - x.sec*1000000
	if x.hour > math.MaxInt32 || x.hour < math.MinInt32 {
		return nil, unsupported("to_char of an interval of more than 2147483647 hours (PostgreSQL 14 and 15 on differ)")
	}
	return dchToChar(x, f, false, true)
}

// intervalKeyword is the error for format keyword up (upper-cased) in
// interval mode: 22007 for the fields an interval has not (formatting.c
// INVALID_FOR_INTERVAL), 0A000 for those sidecar does not compute from
// an interval.
func intervalKeyword(up string) error {
	switch up {
	case "A.D.", "B.C.", "AD", "BC", "TZ", "TZH", "TZM", "OF", "MONTH", "MON", "DAY", "DY", "D", "ID":
		return &Error{Code: "22007", Message: "invalid format specification for an interval value",
			Hint: "Intervals are not tied to specific calendar dates."}
	case "IDDD", "IW", "IYYY", "IYY", "IY", "I", "J":
		return unsupported("to_char(interval) with the format field %s", up)
	}
	return nil
}

// romanIndex is the index into romanMonth RM shows for x (ok false:
// nothing, an interval of no years and months). An interval's months
// run backwards from December when negative; whole years show XII (I
// when negative), as formatting.c's DCH_RM.
func romanIndex(x tm) (int, bool) {
	switch {
	case x.mon == 0 && x.year == 0:
		return 0, false
	case x.mon == 0 && x.year >= 0:
		return 11, true
	case x.mon == 0:
		return 0, true
	case x.mon < 0:
		return int(12 + x.mon), true
	}
	return int(x.mon - 1), true
}
