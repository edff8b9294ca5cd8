package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Timestamp bounds (microseconds from 2000-01-01): PostgreSQL's
// MIN_TIMESTAMP and END_TIMESTAMP.
const (
	minTimestamp = -211813488000000000
	endTimestamp = 9223371331200000000
	usecsPerDay  = 86400 * 1000000
	epochJDate   = 2451545
)

func isInfDate(d types.DateVal) bool { return d == types.DateNegInf || d == types.DatePosInf }

func isInfTimestamp(t types.TimestampVal) bool {
	return t == types.TimestampNegInf || t == types.TimestampPosInf
}

var errTimestampRange = &types.Error{Code: types.CodeDatetimeField, Message: "timestamp out of range"}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var monthDays = [2][12]int64{
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

// addInterval is timestamp_pl_interval: months first (the day clamped
// to the month's last), then days, then the time part; sign -1 subtracts
// (timestamp_mi_interval).
func addInterval(ts types.TimestampVal, iv types.IntervalVal, sign int64) (types.TimestampVal, error) {
	if isInfTimestamp(ts) {
		return ts, nil
	}
	months, days, micros := sign*int64(iv.Months), sign*int64(iv.Days), sign*iv.Micros
	t := int64(ts)
	split := func(t int64) (jd, tod int64) {
		day := t / usecsPerDay
		tod = t - day*usecsPerDay
		if tod < 0 {
			day--
			tod += usecsPerDay
		}
		return day + epochJDate, tod
	}
	join := func(jd, tod int64) (int64, error) {
		if day := jd - epochJDate; day < minTimestamp/usecsPerDay-1 || day > endTimestamp/usecsPerDay+1 {
			return 0, errTimestampRange // before the product wraps: + interval '2147483647 days'
		}
		r := (jd-epochJDate)*usecsPerDay + tod
		if r < minTimestamp || r >= endTimestamp {
			return 0, errTimestampRange
		}
		return r, nil
	}
	var err error
	if months != 0 {
		jd, tod := split(t)
		y, m, d := types.J2Date(jd)
		m += months
		if m > 12 {
			y += (m - 1) / 12
			m = (m-1)%12 + 1
		} else if m < 1 {
			y += m/12 - 1
			m = m%12 + 12
		}
		leap := 0
		if isLeap(y) {
			leap = 1
		}
		if last := monthDays[leap][m-1]; d > last {
			d = last
		}
		if t, err = join(types.Date2J(y, m, d), tod); err != nil {
			return 0, err
		}
	}
	if days != 0 {
		jd, tod := split(t)
		if t, err = join(jd+days, tod); err != nil {
			return 0, err
		}
	}
	t += micros
	if t < minTimestamp || t >= endTimestamp {
		return 0, errTimestampRange
	}
	return types.TimestampVal(t), nil
}

// dateTimeArith is the date/time arithmetic the executor computes (nil:
// none): date - date, date ± integer, date, timestamp or timestamptz ±
// interval.
func dateTimeArith(op string, l, r plan.Type) func(a, b types.Value) (types.Value, error) {
	switch {
	case l.OID == plan.Date && r.OID == plan.Date && op == "-":
		return func(a, b types.Value) (types.Value, error) {
			x, y := a.(types.DateVal), b.(types.DateVal)
			if isInfDate(x) || isInfDate(y) {
				return nil, &types.Error{Code: types.CodeDatetimeField, Message: "cannot subtract infinite dates"}
			}
			return int64(x) - int64(y), nil
		}
	case l.OID == plan.Date && isInt(r.OID) && (op == "+" || op == "-"):
		return func(a, b types.Value) (types.Value, error) {
			d, n := a.(types.DateVal), b.(int64)
			if op == "-" {
				n = -n
			}
			if isInfDate(d) {
				return d, nil
			}
			s := int64(d) + n
			if s < minDate || s > maxDate {
				return nil, &types.Error{Code: types.CodeDatetimeField, Message: "date out of range"}
			}
			return types.DateVal(s), nil
		}
	case (l.OID == plan.Date || l.OID == plan.Timestamp || l.OID == plan.Timestamptz) && r.OID == plan.Interval && (op == "+" || op == "-"):
		// timestamptz ± interval adds months and days in the session's
		// TimeZone (timestamptz_pl_interval): the SQL port runs in UTC
		// only (SET TimeZone refuses others), where that is timestamp
		// arithmetic on the UTC value.
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		date := l.OID == plan.Date
		return func(a, b types.Value) (types.Value, error) {
			var ts types.TimestampVal
			if date {
				d := a.(types.DateVal)
				switch d {
				case types.DateNegInf:
					ts = types.TimestampNegInf
				case types.DatePosInf:
					ts = types.TimestampPosInf
				default:
					ts = types.TimestampVal(int64(d) * usecsPerDay)
				}
			} else {
				ts = a.(types.TimestampVal)
			}
			return addInterval(ts, b.(types.IntervalVal), sign)
		}
	}
	return intervalArith(op, l, r) // interval.go
}

// The finite date range (days from 2000-01-01): PostgreSQL's
// 4714-11-24 BC to 5874897-12-31.
const (
	minDate = -2451545
	maxDate = 2145031948
)
