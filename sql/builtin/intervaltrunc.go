package builtin

import (
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// intervalTrunc is date_trunc(text, interval) (interval_trunc): the
// interval split into years, months, days, hours, minutes, seconds and
// microseconds as interval2itm does (C's truncating division, so the
// fields keep the interval's signs), the fields below the unit zeroed,
// and put together again. week is 0A000 (months have fractional weeks)
// as in PostgreSQL. Infinite intervals (PostgreSQL 17) are refused.
func intervalTrunc(low string, v types.IntervalVal) (types.Value, error) {
	u, ok := deltaUnits[tok10(low)]
	if !ok {
		return nil, unitErr(CodeInvalidParameter, low, types.Interval, "not recognized")
	}
	if v.Months == math.MaxInt32 || v.Months == math.MinInt32 {
		return nil, unsupported("date_trunc of an infinite interval")
	}
	year, mon, day, hour, min, sec, usec := intervalFields(v) // datetime.go
	switch u {
	case uMillennium, uCentury, uDecade, uYear, uQuarter, uMonth, uDay, uHour, uMinute, uSecond:
		switch u {
		case uMillennium:
			year = year / 1000 * 1000
		case uCentury:
			year = year / 100 * 100
		case uDecade:
			year = year / 10 * 10
		}
		switch u {
		case uMillennium, uCentury, uDecade, uYear:
			mon = 0
		case uQuarter:
			mon = 3 * (mon / 3)
		}
		if u != uSecond && u != uMinute && u != uHour && u != uDay {
			day = 0
		}
		if u != uSecond && u != uMinute && u != uHour {
			hour = 0
		}
		if u != uSecond && u != uMinute {
			min = 0
		}
		if u != uSecond {
			sec = 0
		}
		usec = 0
	case uMilli:
		usec = usec / 1000 * 1000
	case uMicro:
	default:
		e := unitErr(CodeFeatureNotSupported, low, types.Interval, "not supported").(*Error)
		if u == uWeek {
			e.Detail = "Months usually have fractional weeks."
		}
		return nil, e
	}
	return types.IntervalVal{Months: int32(year*12 + mon), Days: int32(day),
		Micros: hour*3600000000 + min*60000000 + sec*1000000 + usec}, nil
}
