package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// subResult is a subquery's rows (at most the limit its use needs).
type subResult struct {
	rows [][]types.Value
	// For x = ANY (…): the column's values as a hash set (converted to
	// the comparison type), built on first use, and whether one is NULL.
	set     *rowMap
	hasNull bool
}

// runSub runs a subquery's operator, keeping at most limit rows (0: all).
func (e *env) runSub(op operator, limit int) (*subResult, error) {
	r := &subResult{}
	stop := &stopSignal{}
	err := op.run(func(b *Batch) error {
		for i := 0; i < b.N; i++ {
			row := b.Row(i)
			if err := e.grow("a subquery", rowBytes(row)); err != nil {
				return err
			}
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
	return r, nil
}

// subquery compiles a scalar, EXISTS, ANY or ALL subquery. An
// uncorrelated one runs once per statement; a correlated one (sql/opt
// decorrelates what it can into joins) runs once per distinct value of
// the outer columns it reads, as PostgreSQL's SubPlan reruns per row.
func (c *compiler) subquery(x *plan.Subquery) (vexpr, error) {
	e := c.e
	limit := 0
	switch x.Kind {
	case plan.SubExists:
		limit = 1
	case plan.SubScalar:
		limit = 2
	}
	// The outer columns: read from this compiler's input, bound for the
	// subquery's operators while it runs.
	var outerGet []vexpr
	var outerOIDs []plan.OID
	cacheable := true
	if extra := e.cteReadsOf(x.Plan); len(extra) > 0 {
		// It reads a CTE correlated on outer columns (ctecorr.go): its
		// rows change with them.
		var all plan.ColSet
		for _, id := range x.Outer {
			all.Add(id)
		}
		for _, id := range extra {
			all.Add(id)
		}
		c := *x
		c.Outer = all.Sorted()
		x = &c
	}
	for _, id := range x.Outer {
		g, err := c.compile(&plan.ColRef{ID: id, T: e.md.Column(id).Type})
		if err != nil {
			return nil, err
		}
		outerGet = append(outerGet, g)
		t := e.md.Column(id).Type.OID
		outerOIDs = append(outerOIDs, t)
		if !types.Orderable(t) {
			cacheable = false
		}
	}
	saved := e.outerOK
	e.outerOK = map[plan.ColumnID]bool{}
	for id := range saved {
		e.outerOK[id] = true
	}
	for _, id := range x.Outer {
		e.outerOK[id] = true
	}
	op, err := e.build(x.Plan)
	e.outerOK = saved
	if err != nil {
		return nil, err
	}
	// results gives each row of sel its subquery result.
	var cache *rowMap
	var cached []*subResult
	if cacheable && len(x.Outer) > 0 {
		cache = newRowMap(outerOIDs)
	}
	results := func(b *Batch, sel []int) (map[int]*subResult, error) {
		out := make(map[int]*subResult, len(sel))
		if len(x.Outer) == 0 {
			r := e.subVals[x]
			if r == nil {
				var err error
				if r, err = e.runSub(op, limit); err != nil {
					return nil, err
				}
				e.subVals[x] = r
			}
			for _, i := range sel {
				out[i] = r
			}
			return out, nil
		}
		vecs := make([][]types.Value, len(outerGet))
		for k, g := range outerGet {
			vecs[k] = make([]types.Value, b.N)
			if err := g(b, sel, vecs[k]); err != nil {
				return nil, err
			}
		}
		for _, i := range sel {
			key := make([]types.Value, len(vecs))
			for k := range vecs {
				key[k] = vecs[k][i]
			}
			if cache != nil {
				if g, _ := cache.find(key, false); g >= 0 {
					out[i] = cached[g]
					continue
				}
			}
			if err := e.check(); err != nil {
				return nil, err
			}
			prev := make([]types.Value, len(key))
			for k, id := range x.Outer {
				prev[k] = e.outer[id]
				e.outer[id] = key[k]
			}
			r, err := e.runSub(op, limit)
			for k, id := range x.Outer {
				e.outer[id] = prev[k]
			}
			if err != nil {
				return nil, err
			}
			if cache != nil {
				cache.find(key, true)
				cached = append(cached, r)
			}
			out[i] = r
		}
		return out, nil
	}
	switch x.Kind {
	case plan.SubExists:
		return func(b *Batch, sel []int, out []types.Value) error {
			rs, err := results(b, sel)
			if err != nil {
				return err
			}
			for _, i := range sel {
				out[i] = len(rs[i].rows) > 0
			}
			return nil
		}, nil
	case plan.SubScalar:
		return func(b *Batch, sel []int, out []types.Value) error {
			rs, err := results(b, sel)
			if err != nil {
				return err
			}
			for _, i := range sel {
				r := rs[i]
				if len(r.rows) > 1 {
					return &types.Error{Code: "21000", Message: "more than one row returned by a subquery used as an expression"}
				}
				out[i] = nil
				if len(r.rows) == 1 {
					out[i] = r.rows[0][0]
				}
			}
			return nil
		}, nil
	case plan.SubArray:
		return c.arraySubquery(x, results) // arraysub.go
	case plan.SubAny, plan.SubAll:
		if len(x.RowLeft) > 0 {
			return c.rowSubquery(x, results)
		}
		if x.Col == nil {
			// The binder converted the subquery's column (char(n) NOT
			// IN (SELECT varchar …) reads it as char(n)): no column to
			// read. Refused, where it dereferenced nil.
			return nil, unsupported("a comparison with a subquery's column converted to another type")
		}
		left, err := c.compile(x.Left)
		if err != nil {
			return nil, err
		}
		cmp, err := c.comparer(x.Left.Type(), x.Col.T)
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
		ct, _ := cmpType(x.Left.Type(), x.Col.T) // comparer accepted it
		hashed := op == "=" && !all && types.Orderable(ct.OID)
		lconv, rconv := c.converter(x.Left.Type(), ct), c.converter(x.Col.T, ct)
		return func(b *Batch, sel []int, out []types.Value) error {
			rs, err := results(b, sel)
			if err != nil {
				return err
			}
			if err := left(b, sel, out); err != nil {
				return err
			}
			if hashed {
				// x = ANY: a hash probe instead of a scan of the rows.
				for _, i := range sel {
					r := rs[i]
					if r.set == nil {
						r.set = newRowMap([]plan.OID{ct.OID})
						for _, row := range r.rows {
							v, err := applyConv(rconv, row[col])
							if err != nil {
								return err
							}
							if v == nil {
								r.hasNull = true
								continue
							}
							r.set.find([]types.Value{v}, true)
						}
					}
					l, err := applyConv(lconv, out[i])
					if err != nil {
						return err
					}
					switch {
					case len(r.rows) == 0:
						out[i] = false
					case l == nil:
						out[i] = nil
					default:
						if g, _ := r.set.find([]types.Value{l}, false); g >= 0 {
							out[i] = true
						} else if r.hasNull {
							out[i] = nil
						} else {
							out[i] = false
						}
					}
				}
				return nil
			}
			for _, i := range sel {
				// ANY: true if one comparison is true, else NULL if one
				// is NULL, else false; ALL: the dual.
				l := out[i]
				sawNull, decided := false, false
				for _, row := range rs[i].rows {
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

// rowSubquery evaluates (a, b, …) = ANY (SELECT x, y, …): a row of the
// subquery is equal when every column is, unequal when one is, else
// unknown; the answer is true when one row is equal, else NULL when one
// is unknown, else false.
func (c *compiler) rowSubquery(x *plan.Subquery, results func(b *Batch, sel []int) (map[int]*subResult, error)) (vexpr, error) {
	lefts := append([]plan.Scalar{x.Left}, x.RowLeft...)
	rights := append([]*plan.ColRef{x.Col}, x.RowCols...)
	if x.Op != "=" || x.Kind != plan.SubAny || len(lefts) != len(rights) {
		return nil, unsupported("this row comparison with a subquery")
	}
	var (
		lexp []vexpr
		cmps []func(a, b types.Value) (int, error)
		idx  []int
	)
	layout := layoutOf(x.Plan.Columns())
	for k, l := range lefts {
		le, err := c.compile(l)
		if err != nil {
			return nil, err
		}
		cmp, err := c.comparer(l.Type(), rights[k].T)
		if err != nil {
			return nil, err
		}
		i, ok := layout[rights[k].ID]
		if !ok {
			return nil, unsupported("this subquery")
		}
		lexp, cmps, idx = append(lexp, le), append(cmps, cmp), append(idx, i)
	}
	return func(b *Batch, sel []int, out []types.Value) error {
		rs, err := results(b, sel)
		if err != nil {
			return err
		}
		lv := make([][]types.Value, len(lexp))
		for k, le := range lexp {
			lv[k] = make([]types.Value, b.N)
			if err := le(b, sel, lv[k]); err != nil {
				return err
			}
		}
		for _, i := range sel {
			var res types.Value = false
		rows:
			for _, row := range rs[i].rows {
				unknown := false
				for k := range lexp {
					l, r := lv[k][i], row[idx[k]]
					if l == nil || r == nil {
						unknown = true
						continue
					}
					n, err := cmps[k](l, r)
					if err != nil {
						return err
					}
					if n != 0 {
						continue rows // this row is unequal
					}
				}
				if !unknown {
					res = true
					break
				}
				res = nil
			}
			out[i] = res
		}
		return nil
	}, nil
}
