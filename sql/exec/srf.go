package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Set-returning functions in FROM beside integer generate_series
// (basic.go): unnest(array), generate_series over numeric and over
// timestamp with an interval step, and any of them WITH ORDINALITY.
// Rows are produced one batch at a time (a series is never held whole).

// srfOp runs one of them.
type srfOp struct {
	e    *env
	f    *plan.FuncScan
	args []vexpr
	t    plan.OID // the value column's type
}

func (e *env) buildSRF(f *plan.FuncScan) (operator, error) {
	args, err := e.compileFuncArgs(f)
	if err != nil {
		return nil, err
	}
	return &srfOp{e: e, f: f, t: e.md.Column(f.Cols[0]).Type.OID, args: args}, nil
}

// compileFuncArgs compiles a function scan's arguments, which read no
// input columns (each is evaluated once: scalarOnce).
func (e *env) compileFuncArgs(f *plan.FuncScan) ([]vexpr, error) {
	c := &compiler{e: e, lay: layout{}}
	args := make([]vexpr, 0, len(f.Args))
	for _, a := range f.Args {
		x, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	return args, nil
}

func (s *srfOp) cols() []plan.ColumnID { return s.f.Cols }

func (s *srfOp) run(emit func(*Batch) error) error {
	vals := make([]types.Value, len(s.args))
	for k, a := range s.args {
		v, err := scalarOnce(a)
		if err != nil {
			return err
		}
		vals[k] = v
	}
	if isJSONToRecord(s.f.Name) { // jsonrecord.go
		if jsonToRecordNoRows(s.f.Name, vals) {
			return nil
		}
	} else if srfNoRows(s.f.Name, vals) { // regexsrf.go
		return nil
	}
	next, err := s.series(vals)
	if err != nil {
		return err
	}
	ncols := len(s.f.Cols)
	newBatch := func() *Batch {
		b := &Batch{Vecs: make([][]types.Value, ncols)}
		for c := range b.Vecs {
			b.Vecs[c] = make([]types.Value, 0, BatchSize)
		}
		return b
	}
	b := newBatch()
	for n := int64(1); ; n++ {
		v, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if row, ok := v.(srfRow); ok {
			for c, x := range row { // a function of several columns (jsonsrf.go)
				b.Vecs[c] = append(b.Vecs[c], x)
			}
		} else {
			b.Vecs[0] = append(b.Vecs[0], v)
		}
		if s.f.Ordinality {
			b.Vecs[ncols-1] = append(b.Vecs[ncols-1], n)
		}
		if b.N++; b.N == BatchSize {
			if err := s.e.check(); err != nil {
				return err
			}
			if err := emit(b); err != nil {
				return err
			}
			b = newBatch()
		}
	}
	if b.N > 0 {
		return emit(b)
	}
	return nil
}

// series is the function's iterator over its non-NULL arguments.
func (s *srfOp) series(vals []types.Value) (func() (types.Value, bool, error), error) {
	if next, ok, err := s.jsonRecordSeries(vals); ok {
		return next, err // jsonrecord.go
	}
	if next, ok, err := jsonSeries(s.f.Name, vals); ok {
		return next, err // jsonsrf.go
	}
	if s.f.Name == "generate_subscripts" {
		return subscripts(vals, s.f.Args[0].Type().OID), nil // rowsfrom.go
	}
	if s.f.Name == "unnest" || s.f.Name == "regexp_matches" || s.f.Name == "regexp_split_to_table" || s.f.Name == "string_to_table" {
		elems, err := srfElems(s.e.clock, s.f.Name, vals) // regexsrf.go
		if err != nil {
			return nil, err
		}
		i := 0
		return func() (types.Value, bool, error) {
			if i == len(elems) {
				return nil, false, nil
			}
			i++
			return elems[i-1], true, nil
		}, nil
	}
	step := types.Value(nil)
	if len(vals) == 3 {
		step = vals[2]
	}
	switch s.t {
	case plan.Numeric:
		return numericSeries(vals[0].(*types.Decimal), vals[1].(*types.Decimal), step)
	case plan.Timestamp:
		return timestampSeries(vals[0].(types.TimestampVal), vals[1].(types.TimestampVal), step.(types.IntervalVal), nil)
	case plan.Timestamptz:
		var z *types.Zone
		if s.e.clock != nil {
			z = s.e.clock.Zone
		}
		add := func(t types.TimestampVal, iv types.IntervalVal) (types.TimestampVal, error) {
			return addIntervalIn(t, iv, 1, z)
		}
		return timestampSeries(vals[0].(types.TimestampVal), vals[1].(types.TimestampVal), step.(types.IntervalVal), add)
	}
	return intSeries(vals, s.t)
}

func seriesErr(msg string) error { return &types.Error{Code: types.CodeInvalidParam, Message: msg} }

// intSeries is generate_series over integers (WITH ORDINALITY comes
// here): the series ends before it would overflow.
func intSeries(vals []types.Value, t plan.OID) (func() (types.Value, bool, error), error) {
	cur, stop, step := vals[0].(int64), vals[1].(int64), int64(1)
	if len(vals) == 3 {
		step = vals[2].(int64)
	}
	if step == 0 {
		return nil, seriesErr("step size cannot equal zero")
	}
	done := false
	return func() (types.Value, bool, error) {
		if done || step > 0 && cur > stop || step < 0 && cur < stop {
			return nil, false, nil
		}
		v := cur
		if next := cur + step; (step > 0) != (next > cur) {
			done = true
		} else {
			cur = next
		}
		return v, true, nil
	}, nil
}

// numericSeries is generate_series(numeric, numeric[, numeric]): NaN
// and infinite bounds or steps are errors, as in PostgreSQL.
func numericSeries(start, stop *types.Decimal, stepV types.Value) (func() (types.Value, bool, error), error) {
	step := types.DecimalFromInt(1)
	if stepV != nil {
		step = stepV.(*types.Decimal)
	}
	for _, c := range []struct {
		v    *types.Decimal
		what string
	}{{start, "start value"}, {stop, "stop value"}, {step, "step size"}} {
		if c.v.NaN {
			return nil, seriesErr(c.what + " cannot be NaN")
		}
		if c.v.Inf != 0 {
			return nil, seriesErr(c.what + " cannot be infinity")
		}
	}
	zero := types.DecimalFromInt(0)
	dir := types.CompareDecimal(step, zero)
	if dir == 0 {
		return nil, seriesErr("step size cannot equal zero")
	}
	cur := start
	return func() (types.Value, bool, error) {
		if c := types.CompareDecimal(cur, stop); dir > 0 && c > 0 || dir < 0 && c < 0 {
			return nil, false, nil
		}
		v := cur
		cur = types.AddDecimal(cur, step)
		return v, true, nil
	}, nil
}

// timestampSeries is generate_series(timestamp, timestamp, interval)
// (add nil) and over timestamptz (add: timestamptz_pl_interval in the
// session's zone); infinite bounds are refused (PostgreSQL would not end
// the series).
func timestampSeries(start, stop types.TimestampVal, step types.IntervalVal, add func(types.TimestampVal, types.IntervalVal) (types.TimestampVal, error)) (func() (types.Value, bool, error), error) {
	for _, t := range []types.TimestampVal{start, stop} {
		if t == types.TimestampPosInf || t == types.TimestampNegInf {
			return nil, unsupported("generate_series with an infinite bound")
		}
	}
	dir := types.Compare(types.Interval, step, types.IntervalVal{})
	if dir == 0 {
		return nil, seriesErr("step size cannot equal zero")
	}
	cur := start
	return func() (types.Value, bool, error) {
		if dir > 0 && cur > stop || dir < 0 && cur < stop {
			return nil, false, nil
		}
		v := cur
		var next types.TimestampVal
		var err error
		if add != nil {
			next, err = add(cur, step)
		} else {
			next, err = addInterval(cur, step, 1)
		}
		if err != nil {
			return nil, false, err // PostgreSQL computes the next value before it returns this one
		}
		cur = next
		return v, true, nil
	}, nil
}
