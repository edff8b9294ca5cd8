package exec

import (
	"math"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The two-argument statistics aggregates (corr, covar_pop, covar_samp,
// regr_*) as PostgreSQL's float.c computes them: float8_regr_accum's
// Youngs–Cramer state (N, Sx, Sxx, Sy, Syy, Sxy), updated per (Y, X)
// pair in input order, and the final functions' formulas, operation for
// operation (explicit float64 conversions keep Go from fusing a multiply
// and an add, which C as PostgreSQL is built does not).

// float8ArrayOID is float8[]: a row's (Y, X) pair travels as one (so a
// spilling aggregation can write it).
const float8ArrayOID plan.OID = 1022

// regrAgg compiles ae's (Y, X) argument into a float8[] pair per row
// (nil when either is NULL: the aggregates are strict) and its state.
func (c *compiler) regrAgg(f *aggFunc, ae plan.AggExpr) error {
	args, err := c.compileArgs(ae.Args)
	if err != nil {
		return err
	}
	f.arg = rowWise(args, func(row []types.Value) (types.Value, error) {
		if row[0] == nil || row[1] == nil {
			return nil, nil
		}
		return &types.Array{Elem: plan.Float8, Elems: []types.Value{row[0], row[1]}}, nil
	})
	f.argT = float8ArrayOID
	name := ae.Name
	f.init = func() aggState { return &regrState{name: name} }
	return nil
}

// regrState is float8_regr_accum's transition state.
type regrState struct {
	name                     string
	n, sx, sxx, sy, syy, sxy float64
	// g: whether the result is the same in PostgreSQL's order of rows
	// (types.FloatAccumGuard); fx, fy: whether Sx, Sy are (regr_avgx,
	// regr_avgy are plain averages: types.FloatSumGuard).
	g      types.FloatAccumGuard
	fx, fy types.FloatSumGuard
}

var errFloatOverflow = &types.Error{Code: "22003", Message: "value out of range: overflow"}

func (s *regrState) add(v types.Value) error {
	pair := v.(*types.Array).Elems
	y, x := pair[0].(float64), pair[1].(float64)
	s.g.Add(y, x)
	s.fx.Add(x)
	s.fy.Add(y)
	return s.step(y, x)
}

func (s *regrState) step(y, x float64) error {
	n0, sx0, sy0 := s.n, s.sx, s.sy
	n := n0 + 1.0
	sx := sx0 + x
	sy := sy0 + y
	sxx, syy, sxy := s.sxx, s.syy, s.sxy
	inf := func(f float64) bool { return math.IsInf(f, 0) }
	if n0 > 0.0 {
		tmpX := float64(x*n) - sx
		tmpY := float64(y*n) - sy
		scale := 1.0 / float64(n*n0)
		sxx += float64(float64(tmpX*tmpX) * scale)
		syy += float64(float64(tmpY*tmpY) * scale)
		sxy += float64(float64(tmpX*tmpY) * scale)
		if inf(sx) || inf(sxx) || inf(sy) || inf(syy) || inf(sxy) {
			if (inf(sx) || inf(sxx)) && !inf(sx0) && !inf(x) ||
				(inf(sy) || inf(syy)) && !inf(sy0) && !inf(y) ||
				inf(sxy) && !inf(sx0) && !inf(x) && !inf(sy0) && !inf(y) {
				return errFloatOverflow
			}
			if inf(sxx) {
				sxx = pgNaN
			}
			if inf(syy) {
				syy = pgNaN
			}
			if inf(sxy) {
				sxy = pgNaN
			}
		}
	} else {
		if math.IsNaN(x) || inf(x) {
			sxx, sxy = pgNaN, pgNaN
		}
		if math.IsNaN(y) || inf(y) {
			syy, sxy = pgNaN, pgNaN
		}
	}
	s.n, s.sx, s.sxx, s.sy, s.syy, s.sxy = n, sx, sxx, sy, syy, sxy
	return nil
}

// pgNaN is the NaN PostgreSQL's get_float8_nan gives.
var pgNaN = math.Float64frombits(0x7ff8000000000000)

func (s *regrState) result() (types.Value, error) {
	switch {
	case s.name == "regr_count":
	case s.name == "regr_avgx" && s.fx.OrderFree(53), s.name == "regr_avgy" && s.fy.OrderFree(53):
	default:
		if err := s.g.Check(s.name, s.replay); err != nil {
			return nil, err
		}
	}
	return s.final()
}

// replay is the result's key with rows added in the order given
// (FloatAccumGuard's fold).
func (s *regrState) replay(rows [][2]float64) any {
	r := regrState{name: s.name}
	for _, yx := range rows {
		if err := r.step(yx[0], yx[1]); err != nil {
			return err.Error()
		}
	}
	v, _ := r.final()
	if f, ok := v.(float64); ok {
		return types.FloatKey(f)
	}
	return v
}

func (s *regrState) final() (types.Value, error) {
	if s.name == "regr_count" {
		return int64(s.n), nil
	}
	if s.n < 1.0 || s.name == "covar_samp" && s.n < 2.0 {
		return nil, nil
	}
	var r float64
	switch s.name {
	case "regr_sxx":
		r = s.sxx
	case "regr_syy":
		r = s.syy
	case "regr_sxy":
		r = s.sxy
	case "regr_avgx":
		r = s.sx / s.n
	case "regr_avgy":
		r = s.sy / s.n
	case "covar_pop":
		r = s.sxy / s.n
	case "covar_samp":
		r = s.sxy / (s.n - 1.0)
	case "corr":
		if s.sxx == 0 || s.syy == 0 {
			return nil, nil
		}
		r = s.sxy / math.Sqrt(float64(s.sxx*s.syy))
	case "regr_r2":
		if s.sxx == 0 {
			return nil, nil
		}
		if s.syy == 0 {
			return 1.0, nil
		}
		r = float64(s.sxy*s.sxy) / float64(s.sxx*s.syy)
	case "regr_slope":
		if s.sxx == 0 {
			return nil, nil
		}
		r = s.sxy / s.sxx
	case "regr_intercept":
		if s.sxx == 0 {
			return nil, nil
		}
		r = (s.sy - float64(s.sx*s.sxy)/s.sxx) / s.n
	}
	if math.IsNaN(r) {
		r = pgNaN
	}
	return r, nil
}
