package exec

import (
	"math"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Float sums and averages, and the order PostgreSQL adds rows in.
//
// avg(float4/float8) is float8_accum, the variance's transition: besides
// N and Sx it accumulates Sxx by the Youngs–Cramer recurrence and raises
// 22003 when Sx or Sxx overflow from finite inputs, though avg's final
// (float8_avg, Sx/N) never reads Sxx: avg of 1e200 and -1e200 fails
// (tmp = 2e200, tmp² overflows) where the sidecar answered 0. sum(float)
// is float8pl/float4pl, failing when a partial sum overflows from finite
// operands. Whether either overflows depends on the order of the rows,
// which is PostgreSQL's plan's (heap order, a sort's ties, a parallel
// plan's partial states combined); the sidecar reads in its own order.
// So each is answered only where every order gives one result (value or
// error):
//
//   - rows fed in PostgreSQL's order (a window's frame: ordered): the
//     emulation's own result, error included;
//   - sum: types.FloatSumGuard (exact partial sums in any order, or at
//     most five values replayed in every order, an overflow from finite
//     operands kept apart from an infinite input);
//   - avg: that for Sx and, for Sxx, no overflow in any order: with M
//     the largest finite magnitude and n the rows, |tmp| ≤ 2nM and Sxx
//     ≤ 8nM², so 4n²M² below MaxFloat64/4 keeps every tmp², Sxx and Sx
//     finite (float8_combine's terms are bounded alike); or at most five
//     rows replayed in every order (types.FloatAccumGuard) through the
//     emulation;
//
// and refused (0A000, the hint to cast to numeric) otherwise. An
// overflow in the sidecar's order is kept, not raised, until the result
// is known to be the same in every order.

// floatAccum is float8_accum's (N, Sx, Sxx) in the order fed, and the
// first overflow it raised.
type floatAccum struct {
	n, sx, sxx float64
	err        error
}

func (a *floatAccum) step(x float64) {
	var overflow bool
	if a.n, a.sx, a.sxx, overflow = types.Float8Accum(a.n, a.sx, a.sxx, x); overflow && a.err == nil {
		a.err = errFloatOverflow
	}
}

// floatAvg is avg over float4 or float8 values.
type floatAvg struct {
	acc     floatAccum
	fg      types.FloatSumGuard   // Sx's exactness in any order
	ag      types.FloatAccumGuard // the first rows, replayed in every order
	maxAbs  float64               // the largest finite magnitude
	ordered bool
}

func (a *floatAvg) add(v types.Value) error {
	x := v.(float64)
	a.acc.step(x)
	if a.ordered && a.acc.err != nil {
		return a.acc.err
	}
	a.fg.Add(x)
	a.ag.Add(0, x)
	if !math.IsInf(x, 0) && !math.IsNaN(x) {
		a.maxAbs = max(a.maxAbs, math.Abs(x))
	}
	return nil
}

func (a *floatAvg) result() (types.Value, error) {
	if a.acc.n == 0 {
		return nil, nil
	}
	if !a.ordered && !a.ag.OrderFree(replayAvg) {
		n := a.acc.n
		if !a.fg.OrderFree(53) || 4*n*n*a.maxAbs*a.maxAbs >= math.MaxFloat64/4 {
			return nil, types.ErrFloatSumOrder("avg")
		}
	}
	if a.acc.err != nil {
		return nil, a.acc.err
	}
	return a.acc.sx / a.acc.n, nil
}

// replayAvg is avg's result (its bits, or the error) over rows added in
// the order given (FloatAccumGuard's fold).
func replayAvg(rows [][2]float64) any {
	var a floatAccum
	for _, r := range rows {
		a.step(r[1])
	}
	if a.err != nil {
		return a.err.Error()
	}
	return types.FloatKey(a.sx / a.n)
}

// addFloat adds x to a float sum: an overflow from finite operands is
// raised at once when the rows come in PostgreSQL's order, else kept
// (the sum goes on, infinite) until result knows every order overflows.
func (s *sumAgg) addFloat(x float64) error {
	s.fg.Add(x)
	if s.acc == nil {
		s.acc = x
		return nil
	}
	var v types.Value
	var err error
	if s.t == plan.Float4 {
		v, err = types.Float4Sum(s.acc.(float64), x)
	} else {
		v, err = types.Arith("+", plan.Float8, s.acc, x)
	}
	if err == nil {
		s.acc = v
		return nil
	}
	if s.ordered {
		return err
	}
	if s.ovf == nil {
		s.ovf = err
	}
	s.acc = s.acc.(float64) + x
	return nil
}
