package exec

import (
	"math"
	"math/bits"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// This file feeds numeric sums and averages of +, - and * over numeric
// and integer columns and constants (TPC-H Q1's
// sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))) without making
// a numeric value per row: the argument is computed on int64 digits at
// their scale, row by row, and added to the sum in place. A row whose
// operands or result do not fit an int64 (or NULL, NaN, ±Infinity) is
// evaluated by the general expression, so the answer is exactly the
// general one: the same digits and scales as types' numeric arithmetic
// (numfast.go's rules).

// smallExpr computes an argument over rows of b on int64 digits at a
// scale, a node of the expression at a time over the whole batch (one
// call per node per batch, not per row): out.ok[i] false means row i's
// operands or result do not fit and the general expression must
// compute it. An expression is compiled for one operator and runs on
// its goroutine: its nodes' scratch vectors are reused batch after
// batch.
type smallExpr func(b *Batch, rows []int, out *smallArgs)

// smallArgs is one batch's small-path arguments of one aggregate: ok[i]
// says row i's value is x[i] at scale[i] (its general value was not
// computed).
type smallArgs struct {
	x     []int64
	scale []int32
	ok    []bool
	rest  []int // evalArg's rows for the general expression (reused)
}

// size makes room for rows 0 … n-1.
func (sa *smallArgs) size(n int) {
	if cap(sa.ok) < n {
		sa.x, sa.scale, sa.ok = make([]int64, n), make([]int32, n), make([]bool, n)
	}
	sa.x, sa.scale, sa.ok = sa.x[:n], sa.scale[:n], sa.ok[:n]
}

// smallAdder is an aggregate state that takes int64 digits at a scale.
type smallAdder interface {
	addSmall(x int64, scale int32) error
}

// compileSmall is a's argument on the small path (nil: a's argument is
// not of that shape or its aggregate does not take it). The column
// operands are read through cols, shared by the aggregates of one
// aggregation (nil: each reads its own).
func (c *compiler) compileSmall(ae plan.AggExpr, argT plan.OID, cols *smallCols) smallExpr {
	if ae.Distinct || len(ae.Args) != 1 || (ae.Name != "sum" && ae.Name != "avg") || argT != plan.Numeric && argT != plan.Int8 {
		return nil
	}
	return c.small(ae.Args[0], cols)
}

// smallCols are the column operands of an aggregation's small-path
// arguments, each read from the batch once (TPC-H Q1 reads
// l_extendedprice in four aggregates, l_discount in three). The
// aggregation resets them at each batch; they run on its goroutine.
type smallCols struct {
	cols map[int]*smallCol
}

type smallCol struct {
	valid bool
	sa    smallArgs
}

// reset forgets the batch read (the next batch is another).
func (s *smallCols) reset() {
	if s == nil {
		return
	}
	for _, c := range s.cols {
		c.valid = false
	}
}

// col is the shared operand of vector idx.
func (s *smallCols) col(idx int) *smallCol {
	if s.cols == nil {
		s.cols = map[int]*smallCol{}
	}
	c, ok := s.cols[idx]
	if !ok {
		c = &smallCol{}
		s.cols[idx] = c
	}
	return c
}

// small compiles x when it is a numeric expression of +, -, * over
// integer and numeric columns and constants (nil otherwise).
func (c *compiler) small(x plan.Scalar, cols *smallCols) smallExpr {
	switch x := x.(type) {
	case *plan.ColRef:
		idx, ok := c.lay[x.ID]
		if !ok || !smallType(x.T.OID) {
			return nil
		}
		if cols == nil {
			return func(b *Batch, rows []int, out *smallArgs) {
				vec, sv := b.Vecs[idx], smallRead(b, idx)
				for _, i := range rows {
					if sv != nil && sv.OK[i] { // typedvec.go
						out.x[i], out.scale[i], out.ok[i] = sv.X[i], sv.Scale[i], true
						continue
					}
					out.x[i], out.scale[i], out.ok[i] = smallOperand(vec[i])
				}
			}
		}
		sc := cols.col(idx)
		return func(b *Batch, rows []int, out *smallArgs) {
			if !sc.valid {
				// every row of the batch once, whichever rows this
				// aggregate (its FILTER) takes
				sc.sa.size(b.N)
				if sv := smallRead(b, idx); sv != nil { // typedvec.go
					copy(sc.sa.x, sv.X[:b.N])
					copy(sc.sa.scale, sv.Scale[:b.N])
					copy(sc.sa.ok, sv.OK[:b.N])
					for i, v := range b.Vecs[idx][:b.N] {
						if !sv.OK[i] {
							sc.sa.x[i], sc.sa.scale[i], sc.sa.ok[i] = smallOperand(v)
						}
					}
				} else {
					for i, v := range b.Vecs[idx][:b.N] {
						sc.sa.x[i], sc.sa.scale[i], sc.sa.ok[i] = smallOperand(v)
					}
				}
				sc.valid = true
			}
			for _, i := range rows {
				out.x[i], out.scale[i], out.ok[i] = sc.sa.x[i], sc.sa.scale[i], sc.sa.ok[i]
			}
		}
	case *plan.Const:
		if x.Null || !smallType(x.T.OID) {
			return nil
		}
		v, err := constValue(x)
		if err != nil {
			return nil
		}
		cx, cs, ok := smallOperand(v)
		if !ok {
			return nil
		}
		return func(_ *Batch, rows []int, out *smallArgs) {
			for _, i := range rows {
				out.x[i], out.scale[i], out.ok[i] = cx, cs, true
			}
		}
	case *plan.Op:
		if len(x.Args) != 2 || x.T.OID != plan.Numeric || x.Op != "+" && x.Op != "-" && x.Op != "*" ||
			!smallType(x.Args[0].Type().OID) || !smallType(x.Args[1].Type().OID) {
			return nil
		}
		l, r := c.small(x.Args[0], cols), c.small(x.Args[1], cols)
		if l == nil || r == nil {
			return nil
		}
		op := x.Op
		var rb smallArgs // the right operand's values (the left's go to out)
		return func(b *Batch, rows []int, out *smallArgs) {
			rb.size(b.N)
			l(b, rows, out)
			r(b, rows, &rb)
			for _, i := range rows {
				if !out.ok[i] || !rb.ok[i] {
					out.ok[i] = false
					continue
				}
				out.x[i], out.scale[i], out.ok[i] = smallArith(op, out.x[i], out.scale[i], rb.x[i], rb.scale[i])
			}
		}
	}
	return nil
}

// smallType says whether values of type oid are integers or numerics
// (what smallOperand reads).
func smallType(oid plan.OID) bool {
	switch oid {
	case plan.Int2, plan.Int4, plan.Int8, plan.Numeric:
		return true
	}
	return false
}

// smallArith is x (at scale xs) op y (at scale ys) for op +, - or *, as
// types' numeric arithmetic gives it, ok=false when it does not fit.
func smallArith(op string, x int64, xs int32, y int64, ys int32) (int64, int32, bool) {
	switch op {
	case "+", "-":
		if op == "-" {
			if y == math.MinInt64 {
				return 0, 0, false
			}
			y = -y
		}
		return addScaled(x, xs, y, ys)
	case "*":
		s := xs + ys
		if s > 1000 { // NUMERIC_MAX_DISPLAY_SCALE: the general path rounds
			return 0, 0, false
		}
		hi, lo := bits.Mul64(absU(x), absU(y))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, 0, false
		}
		r := int64(lo)
		if (x < 0) != (y < 0) {
			r = -r
		}
		return r, s, true
	}
	return 0, 0, false
}

// argBufs are an aggregate's argument vectors, reused for each batch
// (a batch's are read before the next one comes: the states keep the
// values, never the vectors).
type argBufs struct {
	vals []types.Value
	sa   smallArgs
}

// evalArg computes aggregate f's argument over rows of b: on the small
// path where it can (sa, nil when f has none) and the general
// expression for the other rows (vals). Both are f's until the next
// call.
func (f *aggFunc) evalArg(b *Batch, rows []int) (vals []types.Value, sa *smallArgs, err error) {
	bf := &f.bufs
	if cap(bf.vals) < b.N {
		bf.vals = make([]types.Value, b.N)
	}
	vals = bf.vals[:b.N]
	clear(vals) // no value of the batch before is read, nor kept alive
	if f.small == nil {
		return vals, nil, f.arg(b, rows, vals)
	}
	sa = &bf.sa
	sa.size(b.N)
	clear(sa.ok)
	f.small(b, rows, sa)
	rest := sa.rest[:0]
	for _, i := range rows {
		if !sa.ok[i] {
			rest = append(rest, i)
		}
	}
	sa.rest = rest
	if len(rest) > 0 {
		b.boxSmall(rest) // typedvec.go: the general expression reads Vecs
		err = f.arg(b, rest, vals)
	}
	return vals, sa, err
}

// add adds row i's small-path value to st.
func (sa *smallArgs) add(st aggState, i int) error {
	switch s := st.(type) { // the usual states without an interface lookup
	case *sumAgg:
		return s.addSmall(sa.x[i], sa.scale[i])
	case *avgAgg:
		return s.addSmall(sa.x[i], sa.scale[i])
	}
	if ad, ok := st.(smallAdder); ok {
		return ad.addSmall(sa.x[i], sa.scale[i])
	}
	return st.add(types.SmallDecimal(sa.x[i], sa.scale[i]))
}

// materialize makes the small-path values of rows general values in vals
// (rows going to a partition file).
func (sa *smallArgs) materialize(rows []int, vals []types.Value) {
	if sa == nil {
		return
	}
	for _, i := range rows {
		if sa.ok[i] {
			vals[i] = types.SmallDecimal(sa.x[i], sa.scale[i])
		}
	}
}

// addSmall adds x at scale to a numeric sum: what add of that numeric
// gives.
func (s *sumAgg) addSmall(x int64, scale int32) error {
	if s.t != plan.Numeric {
		return s.add(types.SmallDecimal(x, scale))
	}
	if s.big == nil {
		if !s.small {
			s.n++
			s.small, s.i64, s.scale = true, x, scale
			return nil
		}
		if r, sc, ok := addScaled(s.i64, s.scale, x, scale); ok {
			s.n++
			s.i64, s.scale = r, sc
			return nil
		}
	}
	return s.add(types.SmallDecimal(x, scale))
}

// addSmall adds x at scale to a numeric average.
func (a *avgAgg) addSmall(x int64, scale int32) error {
	if a.sum.t != plan.Numeric {
		return a.add(types.SmallDecimal(x, scale))
	}
	return a.sum.addSmall(x, scale)
}
