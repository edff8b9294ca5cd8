package builtin

import (
	"math"
	"math/big"

	"github.com/sidecar-dev/sidecar/types"
)

// AggState is one group's running state of an aggregate.
type AggState interface {
	// Step adds one non-NULL input value (of the aggregate's Arg type).
	Step(v types.Value) error
	// Final is the aggregate's value (nil: NULL).
	Final() (types.Value, error)
}

// Aggregate is one overload of an aggregate function.
type Aggregate struct {
	Name   string
	Arg    OID
	Result OID
	New    func() AggState
}

// statAggregates are the variance and standard deviation aggregates:
// sample (stddev, stddev_samp, variance, var_samp) or population.
var statAggregates = map[string]struct{ sample, sqrt bool }{
	"stddev": {true, true}, "stddev_samp": {true, true}, "stddev_pop": {false, true},
	"variance": {true, false}, "var_samp": {true, false}, "var_pop": {false, false},
}

// logicAggregates are bool_and/every/bool_or and bit_and/bit_or/bit_xor:
// order-independent folds of one argument, NULL over no rows.
var logicAggregates = map[string]func(a, b types.Value) types.Value{
	"bool_and": func(a, b types.Value) types.Value { return a.(bool) && b.(bool) },
	"every":    func(a, b types.Value) types.Value { return a.(bool) && b.(bool) },
	"bool_or":  func(a, b types.Value) types.Value { return a.(bool) || b.(bool) },
	"bit_and":  func(a, b types.Value) types.Value { return a.(int64) & b.(int64) },
	"bit_or":   func(a, b types.Value) types.Value { return a.(int64) | b.(int64) },
	"bit_xor":  func(a, b types.Value) types.Value { return a.(int64) ^ b.(int64) },
}

// oidBit is the bit type (outside the catalog): bit_and(bit) and its kin
// fold bit strings of one length (aggregates_bit.go).
const oidBit OID = 1560

// IsAggregate says whether name is an aggregate of the library.
func (r *Registry) IsAggregate(name string) bool {
	_, ok := statAggregates[name]
	return ok || logicAggregates[name] != nil
}

// fold is a logic aggregate's state.
type fold struct {
	f   func(a, b types.Value) types.Value
	acc types.Value
}

func (s *fold) Step(v types.Value) error {
	if s.acc == nil {
		s.acc = v
	} else {
		s.acc = s.f(s.acc, v)
	}
	return nil
}

func (s *fold) Final() (types.Value, error) { return s.acc, nil }

// resolveLogic resolves bool_and and its kin.
func resolveLogic(name string, arg OID) (*Aggregate, error) {
	f := logicAggregates[name]
	var fs []*Func
	if name[0] == 'b' && name[1] == 'i' {
		for _, t := range []OID{i2, i4, i8, oidBit} {
			fs = append(fs, &Func{Name: name, Args: []OID{t}, Result: t})
		}
	} else {
		fs = []*Func{{Name: name, Args: []OID{types.Bool}, Result: types.Bool}}
	}
	c, err := resolveAmong(fs, name, []OID{arg})
	if err != nil {
		return nil, err
	}
	if c.Result == oidBit {
		return &Aggregate{Name: name, Arg: oidBit, Result: oidBit, New: func() AggState { return newBitFold(name) }}, nil
	}
	return &Aggregate{Name: name, Arg: c.Params[0], Result: c.Result, New: func() AggState { return &fold{f: f} }}, nil
}

// ResolveAggregate picks name's overload for an argument of type arg
// (PostgreSQL's resolution among its argument types): integers and
// numeric accumulate exactly and give numeric, float4 and float8 give
// float8 (Youngs–Cramer, as PostgreSQL's float8_accum).
func (r *Registry) ResolveAggregate(name string, arg OID) (*Aggregate, error) {
	if logicAggregates[name] != nil {
		return resolveLogic(name, arg)
	}
	st, ok := statAggregates[name]
	if !ok {
		return nil, errorf(CodeUndefinedFunction, "function %s does not exist", name)
	}
	var fs []*Func
	for _, t := range []OID{i8, i4, i2, types.Float4, f8, nm} {
		res := OID(nm)
		if t == types.Float4 || t == f8 {
			res = f8
		}
		fs = append(fs, &Func{Name: name, Args: []OID{t}, Result: res})
	}
	c, err := resolveAmong(fs, name, []OID{arg})
	if err != nil {
		return nil, err
	}
	a := &Aggregate{Name: name, Arg: c.Params[0], Result: c.Result}
	if a.Result == f8 {
		a.New = func() AggState { return &floatVar{name: name, sample: st.sample, sqrt: st.sqrt} }
	} else {
		a.New = func() AggState { return &numericVar{sample: st.sample, sqrt: st.sqrt} }
	}
	return a, nil
}

// floatVar is float8_accum's (N, Sx, Sxx) and the float8 finals.
type floatVar struct {
	n, sx, sxx   float64
	sample, sqrt bool
	name         string
	// g: whether the result is the same in PostgreSQL's order of rows
	// (types.FloatAccumGuard; checked by Final).
	g types.FloatAccumGuard
}

// InOrder marks the state as fed in PostgreSQL's own order of rows (a
// window's frame): its result needs no order check.
func (s *floatVar) InOrder() { s.g.InOrder() }

func (s *floatVar) Step(v types.Value) error {
	x := v.(float64)
	s.g.Add(0, x)
	return s.step(x)
}

func (s *floatVar) step(x float64) error {
	var overflow bool
	if s.n, s.sx, s.sxx, overflow = types.Float8Accum(s.n, s.sx, s.sxx, x); overflow {
		return errOverflow
	}
	return nil
}

func (s *floatVar) Final() (types.Value, error) {
	if !s.g.OrderFree(s.replay) {
		e := types.ErrFloatSumOrder(s.name)
		return nil, &Error{Code: e.Code, Message: e.Message, Hint: e.Hint}
	}
	return s.final()
}

// replay is the result's key with rows added in the order given
// (FloatAccumGuard's fold).
func (s *floatVar) replay(rows [][2]float64) any {
	r := floatVar{sample: s.sample, sqrt: s.sqrt}
	for _, yx := range rows {
		if err := r.step(yx[1]); err != nil {
			return err.Error()
		}
	}
	v, _ := r.final()
	if f, ok := v.(float64); ok {
		return types.FloatKey(f)
	}
	return v
}

func (s *floatVar) final() (types.Value, error) {
	d := s.n
	if s.sample {
		if s.n <= 1 {
			return nil, nil
		}
		d = s.n - 1
	} else if s.n == 0 {
		return nil, nil
	}
	r := s.sxx / d
	if s.sqrt {
		r = math.Sqrt(r)
	}
	if math.IsNaN(r) {
		// Any NaN as get_float8_nan(): which NaN PostgreSQL's accumulator
		// ends with (one its Inf check made, or an input's, propagated)
		// depends on the order it adds the rows in; the text is NaN
		// either way, and one value keeps the order check (replay) from
		// refusing for the bits alone.
		return pgNaN, nil
	}
	return r, nil
}

// numericVar is do_numeric_accum's N, sum(X), sum(X²) kept exactly, and
// numeric_stddev_internal's final.
type numericVar struct {
	n            int64
	sumX, sumX2  *types.Decimal
	special      bool // a NaN or ±Infinity input
	sample, sqrt bool
}

func (s *numericVar) Step(v types.Value) error {
	var x *types.Decimal
	switch y := v.(type) {
	case int64:
		x = types.DecimalFromInt(y)
	case *types.Decimal:
		x = y
	}
	s.n++
	if x.NaN || x.Inf != 0 {
		s.special = true
		return nil
	}
	if s.sumX == nil {
		s.sumX, s.sumX2 = &types.Decimal{}, &types.Decimal{}
	}
	s.sumX = types.AddDecimal(s.sumX, x)
	s.sumX2 = types.AddDecimal(s.sumX2, types.MulDecimal(x, x))
	return nil
}

func (s *numericVar) Final() (types.Value, error) {
	if s.n == 0 || s.sample && s.n == 1 {
		return nil, nil
	}
	if s.special {
		return &types.Decimal{NaN: true}, nil
	}
	n := types.DecimalFromInt(s.n)
	num := types.SubDecimal(types.MulDecimal(n, s.sumX2), types.MulDecimal(s.sumX, s.sumX))
	if num.V.Sign() <= 0 {
		return types.DecimalFromInt(0), nil
	}
	den := types.MulDecimal(n, n)
	if s.sample {
		den = types.MulDecimal(n, types.DecimalFromInt(s.n-1))
	}
	q, err := types.DivDecimal(num, den)
	if err != nil || !s.sqrt {
		return q, err
	}
	return sqrtAt(q, int(q.Scale)), nil
}

// sqrtAt is sqrt_var: √x (x ≥ 0 finite) rounded half away from zero to
// rscale digits.
func sqrtAt(x *types.Decimal, rscale int) *types.Decimal {
	guard := 2 + (int(x.Scale)+1)/2
	n := new(big.Int).Mul(&x.V, pow10(2*(rscale+guard)-int(x.Scale)))
	t := new(big.Int).Sqrt(n)
	den := pow10(guard)
	q, rem := new(big.Int).QuoRem(t, den, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return &types.Decimal{V: *q, Scale: int32(rscale)}
}
