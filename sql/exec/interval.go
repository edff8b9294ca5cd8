package exec

import (
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// intervalArith is the interval arithmetic PostgreSQL's timestamp.c
// computes (sql/builtin/interval.go): timestamp − timestamp and
// timestamptz − timestamptz (timestamp_mi), interval ± interval, interval
// × and ÷ a number and a number × interval (interval_mul/div and
// mul_d_interval over float8), time − time (time_mi_time); nil: none of
// those.
func intervalArith(op string, l, r plan.Type) func(a, b types.Value) (types.Value, error) {
	f := intervalArith0(op, l, r)
	if f == nil {
		return nil
	}
	return func(a, b types.Value) (types.Value, error) {
		v, err := f(a, b)
		if err != nil {
			return nil, libraryErr(err)
		}
		return v, nil
	}
}

func intervalArith0(op string, l, r plan.Type) func(a, b types.Value) (types.Value, error) {
	switch {
	case (l.OID == plan.Timestamp || l.OID == plan.Timestamptz) && l.OID == r.OID && op == "-":
		return func(a, b types.Value) (types.Value, error) {
			return builtin.TimestampDiff(a.(types.TimestampVal), b.(types.TimestampVal))
		}
	case l.OID == plan.Interval && r.OID == plan.Interval && (op == "+" || op == "-"):
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		return func(a, b types.Value) (types.Value, error) {
			return builtin.IntervalAdd(a.(types.IntervalVal), b.(types.IntervalVal), sign)
		}
	case l.OID == plan.Interval && numRank(r.OID) > 0 && (op == "*" || op == "/"):
		from := r.OID
		return func(a, b types.Value) (types.Value, error) {
			f, err := types.Convert(b, from, plan.Float8, -1)
			if err != nil {
				return nil, err
			}
			return builtin.IntervalMul(a.(types.IntervalVal), f.(float64), op == "/")
		}
	case numRank(l.OID) > 0 && r.OID == plan.Interval && op == "*":
		// mul_d_interval: interval_mul with its arguments swapped
		from := l.OID
		return func(a, b types.Value) (types.Value, error) {
			f, err := types.Convert(a, from, plan.Float8, -1)
			if err != nil {
				return nil, err
			}
			return builtin.IntervalMul(b.(types.IntervalVal), f.(float64), false)
		}
	case l.OID == plan.Time && r.OID == plan.Time && op == "-":
		// time_mi_time: the difference in microseconds, no days
		return func(a, b types.Value) (types.Value, error) {
			return types.IntervalVal{Micros: int64(a.(types.TimeVal)) - int64(b.(types.TimeVal))}, nil
		}
	}
	return nil
}
