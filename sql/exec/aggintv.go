package exec

import (
	"math"
	"math/big"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// intervalSumAgg is sum(interval) and avg(interval): PostgreSQL adds the
// months, days and microseconds apart with interval_pl, failing with
// "interval out of range" (22008) the moment a running sum leaves int32
// (months, days) or int64 (microseconds); avg is the sum divided by the
// count (interval_div). The fields are summed exactly here. When the
// total is out of range PostgreSQL fails too (its last running sum is the
// total); when the total fits but the sum of the fields' absolute values
// does not, a running sum in PostgreSQL's order of rows might overflow
// and the result is refused (0A000); otherwise no running sum in any
// order can overflow and the total is PostgreSQL's.
type intervalSumAgg struct {
	avg            bool
	n              int64
	months, days   int64 // |field| < 2^31: no int64 overflow below 2^32 rows
	absMon, absDay int64
	micros, absMic big.Int
}

func (s *intervalSumAgg) add(v types.Value) error {
	x := v.(types.IntervalVal)
	s.n++
	s.months += int64(x.Months)
	s.days += int64(x.Days)
	s.absMon += abs64(int64(x.Months))
	s.absDay += abs64(int64(x.Days))
	m := big.NewInt(x.Micros)
	s.micros.Add(&s.micros, m)
	s.absMic.Add(&s.absMic, m.Abs(m))
	return nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func (s *intervalSumAgg) result() (types.Value, error) {
	if s.n == 0 {
		return nil, nil
	}
	fits32 := func(x int64) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }
	if !fits32(s.months) || !fits32(s.days) || !s.micros.IsInt64() {
		return nil, &types.Error{Code: "22008", Message: "interval out of range"}
	}
	if !fits32(s.absMon) || !fits32(s.absDay) || !s.absMic.IsInt64() {
		return nil, unsupported("sum(interval) or avg(interval) whose running sum may leave the interval range in PostgreSQL's order of rows")
	}
	sum := types.IntervalVal{Months: int32(s.months), Days: int32(s.days), Micros: s.micros.Int64()}
	if (sum.Months == math.MaxInt32 && sum.Days == math.MaxInt32 && sum.Micros == math.MaxInt64) ||
		(sum.Months == math.MinInt32 && sum.Days == math.MinInt32 && sum.Micros == math.MinInt64) {
		return nil, unsupported("an interval sum equal to PostgreSQL 17's infinite interval") // 17 fails, older majors answer it
	}
	if !s.avg {
		return sum, nil
	}
	v, err := builtin.IntervalMul(sum, float64(s.n), true)
	if err != nil {
		return nil, libraryErr(err)
	}
	return v, nil
}
