package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// subResult is an uncorrelated subquery's result, computed once per
// statement on its first evaluation.
type subResult struct {
	rows [][]types.Value
}

// subquery compiles an uncorrelated scalar, EXISTS, ANY or ALL subquery
// (correlated ones sql/opt did not decorrelate are refused).
func (c *compiler) subquery(x *plan.Subquery) (vexpr, error) {
	if len(x.Outer) > 0 {
		return nil, unsupported("a correlated subquery")
	}
	e := c.e
	if _, err := e.build(x.Plan); err != nil { // refusals at build time
		return nil, err
	}
	result := func(limit int) (*subResult, error) {
		if r := e.subVals[x]; r != nil {
			return r, nil
		}
		op, err := e.build(x.Plan)
		if err != nil {
			return nil, err
		}
		r := &subResult{}
		stop := &stopSignal{}
		var held int64
		err = op.run(func(b *Batch) error {
			for i := 0; i < b.N; i++ {
				row := b.Row(i)
				n := rowBytes(row)
				if err := e.grow("a subquery", n); err != nil {
					return err
				}
				held += n
				r.rows = append(r.rows, row)
				if limit > 0 && len(r.rows) >= limit {
					return stop
				}
			}
			return nil
		})
		if err != nil && !isStop(err, stop) {
			return nil, err
		}
		e.subVals[x] = r
		return r, nil
	}
	switch x.Kind {
	case plan.SubExists:
		return func(b *Batch, sel []int, out []types.Value) error {
			r, err := result(1)
			if err != nil {
				return err
			}
			for _, i := range sel {
				out[i] = len(r.rows) > 0
			}
			return nil
		}, nil
	case plan.SubScalar:
		return func(b *Batch, sel []int, out []types.Value) error {
			r, err := result(2)
			if err != nil {
				return err
			}
			if len(r.rows) > 1 {
				return &types.Error{Code: "21000", Message: "more than one row returned by a subquery used as an expression"}
			}
			var v types.Value
			if len(r.rows) == 1 {
				v = r.rows[0][0]
			}
			for _, i := range sel {
				out[i] = v
			}
			return nil
		}, nil
	case plan.SubAny, plan.SubAll:
		left, err := c.compile(x.Left)
		if err != nil {
			return nil, err
		}
		cmp, err := comparer(x.Left.Type(), x.Col.T)
		if err != nil {
			return nil, err
		}
		col := -1
		for k, id := range x.Plan.Columns() {
			if id == x.Col.ID {
				col = k
			}
		}
		if col < 0 {
			return nil, unsupported("this subquery")
		}
		op, all := x.Op, x.Kind == plan.SubAll
		return func(b *Batch, sel []int, out []types.Value) error {
			r, err := result(0)
			if err != nil {
				return err
			}
			if err := left(b, sel, out); err != nil {
				return err
			}
			for _, i := range sel {
				// ANY: true if one comparison is true, else NULL if one
				// is NULL, else false; ALL: the dual.
				l := out[i]
				sawNull, decided := false, false
				for _, row := range r.rows {
					rv := row[col]
					if l == nil || rv == nil {
						sawNull = true
						continue
					}
					n, err := cmp(l, rv)
					if err != nil {
						return err
					}
					if cmpResult(op, n) != all {
						decided = true
						break
					}
				}
				switch {
				case decided:
					out[i] = !all
				case sawNull:
					out[i] = nil
				default:
					out[i] = all
				}
			}
			return nil
		}, nil
	}
	return nil, unsupported("this kind of subquery")
}
