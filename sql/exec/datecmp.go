package exec

import (
	"errors"

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

// toTimestamptzComparer compares a date or a timestamp with a timestamptz
// (either order; nil for other types) as PostgreSQL's
// date_cmp_timestamptz and timestamp_cmp_timestamptz do: the date (its
// midnight) or the timestamp is read as a local time of the session's
// zone; one outside timestamptz's range is not an error but later than
// every finite timestamptz and earlier than infinity (or the reverse
// for the far past): date2timestamptz_opt_overflow,
// timestamp2timestamptz_opt_overflow.
func (c *compiler) toTimestamptzComparer(l, r plan.OID) func(a, b types.Value) (int, error) {
	swap := false
	if l == plan.Timestamptz && (r == plan.Date || r == plan.Timestamp) {
		l, r, swap = r, l, true
	}
	if r != plan.Timestamptz || l != plan.Date && l != plan.Timestamp {
		return nil
	}
	conv := c.converter(plan.T(l), plan.T(plan.Timestamptz))
	cmp := func(a, b types.Value) (int, error) {
		t := b.(types.TimestampVal)
		v, err := conv(a)
		if err == nil {
			return types.Compare(plan.Timestamptz, v, t), nil
		}
		var e *types.Error
		if !errors.As(err, &e) || e.Code != types.CodeDatetimeField {
			return 0, err
		}
		future := false // which end of the range the value is past
		switch x := a.(type) {
		case types.DateVal:
			future = x > 0
		case types.TimestampVal:
			future = x > 0
		}
		switch {
		case future && t == types.TimestampPosInf:
			return -1, nil
		case future:
			return 1, nil
		case t == types.TimestampNegInf:
			return 1, nil
		}
		return -1, nil
	}
	if swap {
		return func(a, b types.Value) (int, error) {
			n, err := cmp(b, a)
			return -n, err
		}
	}
	return cmp
}
