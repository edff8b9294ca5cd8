package types

import "strconv"

// The interval typmod's fields, as PostgreSQL's intervaltypmodout prints
// them: INTERVAL_TYPMOD(precision, range) is range<<16 | precision, the
// range a mask of the fields (utils/datetime.h: MONTH 1<<1, YEAR 1<<2,
// DAY 1<<3, HOUR 1<<10, MINUTE 1<<11, SECOND 1<<12; IntervalFullRange
// for none) and the precision 0xFFFF for none.
const (
	intervalMonth  = 1 << 1
	intervalYear   = 1 << 2
	intervalDay    = 1 << 3
	intervalHour   = 1 << 10
	intervalMinute = 1 << 11
	intervalSecond = 1 << 12
)

// intervalFields are the field texts of the ranges the grammar accepts.
var intervalFields = map[int32]string{
	intervalYear:                 " year",
	intervalMonth:                " month",
	intervalDay:                  " day",
	intervalHour:                 " hour",
	intervalMinute:               " minute",
	intervalSecond:               " second",
	intervalYear | intervalMonth: " year to month",
	intervalDay | intervalHour:   " day to hour",
	intervalDay | intervalHour | intervalMinute:                  " day to minute",
	intervalDay | intervalHour | intervalMinute | intervalSecond: " day to second",
	intervalHour | intervalMinute:                                " hour to minute",
	intervalHour | intervalMinute | intervalSecond:               " hour to second",
	intervalMinute | intervalSecond:                              " minute to second",
	IntervalFullRange:                                            "",
}

// intervalModText is intervaltypmodout: the fields, then the precision
// when one was given ("interval day to second(2)", "interval(3)",
// "interval year"). ok is false for a range no grammar makes
// (PostgreSQL fails: "invalid INTERVAL typmod").
func intervalModText(mod int32) (string, bool) {
	fields, ok := intervalFields[(mod>>16)&0x7FFF]
	if !ok {
		return "", false
	}
	if p := mod & 0xFFFF; p != 0xFFFF {
		fields += "(" + strconv.Itoa(int(p)) + ")"
	}
	return fields, true
}
