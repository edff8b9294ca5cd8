package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// This file evaluates what depends on the session's TimeZone
// (Options.Clock.Zone; nil: UTC): implicit casts between timestamptz and
// timestamp, date, time or text read and print local time; timestamptz
// ± interval adds months and days in local time (across a daylight-saving
// change the hour of day stays, as PostgreSQL's timestamptz_pl_interval);
// a timestamptz printed into text (||) prints its local time.

// zone is the statement's session zone (nil: UTC).
func (c *compiler) zone() *types.Zone {
	if c == nil || c.e == nil || c.e.clock == nil {
		return nil
	}
	return c.e.clock.Zone
}

// converterIn is the implicit cast from → to in zone z.
func converterIn(from, to plan.Type, z *types.Zone) conv {
	if from.OID != plan.Timestamptz && to.OID != plan.Timestamptz && from.OID != types.Tstzrange && to.OID != types.Tstzrange {
		return converter0(from, to)
	}
	if from.OID == to.OID {
		return nil
	}
	f, t := from.OID, to.OID
	return func(v types.Value) (types.Value, error) { return types.ConvertIn(v, f, t, -1, z) }
}

// tzArith is timestamptz ± interval in the statement's zone (nil: not
// that operator).
func (c *compiler) tzArith(op string, l, r, res plan.Type) func(a, b types.Value) (types.Value, error) {
	if res.OID != plan.Timestamptz || l.OID != plan.Timestamptz || r.OID != plan.Interval || op != "+" && op != "-" {
		return nil
	}
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	z := c.zone()
	return func(a, b types.Value) (types.Value, error) {
		return addIntervalIn(a.(types.TimestampVal), b.(types.IntervalVal), sign, z)
	}
}

// addIntervalIn is timestamptz_pl_interval (sign -1: _mi_): the months,
// then the days, are added to the local time of z and the result read
// back in z (DetermineTimeZoneOffset); the time part is added to the
// instant.
func addIntervalIn(ts types.TimestampVal, iv types.IntervalVal, sign int64, z *types.Zone) (types.TimestampVal, error) {
	if isInfTimestamp(ts) {
		return ts, nil
	}
	step := func(t types.TimestampVal, part types.IntervalVal) (types.TimestampVal, error) {
		local, err := z.UTCToLocal(t)
		if err != nil {
			return 0, err
		}
		if local, err = addInterval(local, part, sign); err != nil {
			return 0, err
		}
		return z.LocalToUTC(local)
	}
	var err error
	if iv.Months != 0 {
		if ts, err = step(ts, types.IntervalVal{Months: iv.Months}); err != nil {
			return 0, err
		}
	}
	if iv.Days != 0 {
		if ts, err = step(ts, types.IntervalVal{Days: iv.Days}); err != nil {
			return 0, err
		}
	}
	return addInterval(ts, types.IntervalVal{Micros: iv.Micros}, sign)
}

// concatIn is || with a timestamptz operand printed in zone z.
func concatIn(l, r plan.Type, z *types.Zone) func(a, b types.Value) (types.Value, error) {
	if z.IsUTC() || l.OID != plan.Timestamptz && r.OID != plan.Timestamptz {
		return concat(l, r)
	}
	text := func(t plan.Type, v types.Value) types.Value {
		if t.OID == plan.Timestamptz {
			return types.OutIn(types.Timestamptz, v, z)
		}
		return v
	}
	lt, rt := l, r
	if lt.OID == plan.Timestamptz {
		lt = plan.T(plan.Text)
	}
	if rt.OID == plan.Timestamptz {
		rt = plan.T(plan.Text)
	}
	f := concat(lt, rt)
	return func(a, b types.Value) (types.Value, error) { return f(text(l, a), text(r, b)) }
}
