package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Comparisons of a date with a timestamp (TPC-H's l_shipdate < date
// '1994-01-01' + interval '1' year) without converting the date to a
// timestamp for every row: the timestamp is split into its day and the
// time into it, and the date compared with the day. The answer is
// PostgreSQL's date_cmp_timestamp (date.c): the date is its midnight; a
// finite date past the last timestamp is later than every finite
// timestamp and earlier than infinity (date2timestamp_opt_overflow: no
// error), ±infinity equal their timestamp counterparts.

// dateTimestampCmp compares a date with a timestamp (<0, 0, >0).
func dateTimestampCmp(d types.DateVal, t types.TimestampVal) int {
	switch {
	case d == types.DatePosInf:
		if t == types.TimestampPosInf {
			return 0
		}
		return 1
	case d == types.DateNegInf:
		if t == types.TimestampNegInf {
			return 0
		}
		return -1
	case t == types.TimestampPosInf:
		return -1
	case t == types.TimestampNegInf:
		return 1
	}
	day := int64(t) / usecsPerDay
	rem := int64(t) % usecsPerDay
	if rem < 0 {
		day, rem = day-1, rem+usecsPerDay
	}
	switch {
	case int64(d) < day:
		return -1
	case int64(d) > day:
		return 1
	case rem != 0:
		return -1 // midnight of the timestamp's day, before its time
	}
	return 0
}

// dateTimestampComparer is comparer's function for a date against a
// timestamp in either order (nil for other types).
func dateTimestampComparer(l, r plan.OID) func(a, b types.Value) (int, error) {
	switch {
	case l == plan.Date && r == plan.Timestamp:
		return func(a, b types.Value) (int, error) {
			return dateTimestampCmp(a.(types.DateVal), b.(types.TimestampVal)), nil
		}
	case l == plan.Timestamp && r == plan.Date:
		return func(a, b types.Value) (int, error) {
			return -dateTimestampCmp(b.(types.DateVal), a.(types.TimestampVal)), nil
		}
	}
	return nil
}
