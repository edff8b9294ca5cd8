package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// rowsFromOp runs set-returning functions in lockstep (plan.RowsFrom:
// the select list's ProjectSet): row i holds each function's i-th value,
// NULL for those that ended; it ends when every one has. A function
// whose argument is NULL gives no rows (strict). Rows are produced a
// batch at a time; no series is held whole.
type rowsFromOp struct {
	e     *env
	r     *plan.RowsFrom
	funcs []*srfOp
}

func (e *env) buildRowsFrom(r *plan.RowsFrom) (operator, error) {
	op := &rowsFromOp{e: e, r: r}
	for _, f := range r.Funcs {
		args, err := e.compileFuncArgs(f)
		if err != nil {
			return nil, err
		}
		op.funcs = append(op.funcs, &srfOp{e: e, f: f, t: e.md.Column(f.Cols[0]).Type.OID, args: args})
	}
	return op, nil
}

func (r *rowsFromOp) cols() []plan.ColumnID { return r.r.Columns() }

func (r *rowsFromOp) run(emit func(*Batch) error) error {
	// Every function's arguments are evaluated (and fail) before the
	// first row, as PostgreSQL's ProjectSet does.
	nexts := make([]func() (types.Value, bool, error), len(r.funcs))
	for k, f := range r.funcs {
		vals := make([]types.Value, len(f.args))
		for i, a := range f.args {
			v, err := scalarOnce(a)
			if err != nil {
				return err
			}
			vals[i] = v
		}
		if srfNoRows(f.f.Name, vals) { // regexsrf.go: strict ones, string_to_table's NULL string
			continue
		}
		next, err := f.series(vals)
		if err != nil {
			return err
		}
		nexts[k] = next
	}
	width := len(nexts)
	if r.r.Ord != 0 {
		width++ // WITH ORDINALITY
	}
	b := &Batch{Vecs: make([][]types.Value, width)}
	for n := int64(1); ; n++ {
		row := make([]types.Value, len(nexts))
		live := false
		for k, next := range nexts {
			if next == nil {
				continue
			}
			v, ok, err := next()
			if err != nil {
				return err
			}
			if !ok {
				nexts[k] = nil
				continue
			}
			if fields, isRow := v.(srfRow); isRow {
				// jsonb_each(j) in a select list: a (key, value) record
				names, ts := plan.JSONSRFFields(r.funcs[k].f.Name)
				v = &types.Record{Types: ts, Fields: fields, Names: names}
			}
			row[k], live = v, true
		}
		if !live {
			break
		}
		for k, v := range row {
			b.Vecs[k] = append(b.Vecs[k], v)
		}
		if r.r.Ord != 0 {
			b.Vecs[len(nexts)] = append(b.Vecs[len(nexts)], n)
		}
		if b.N++; b.N == BatchSize {
			if err := r.e.check(); err != nil {
				return err
			}
			if err := emit(b); err != nil {
				return err
			}
			b = &Batch{Vecs: make([][]types.Value, width)}
		}
	}
	if b.N > 0 {
		return emit(b)
	}
	return nil
}

// subscripts is generate_subscripts(array, dim [, reverse]): the
// subscripts of the array's dimension dim (arrays are one-dimensional;
// lower bound 1, 0 for int2vector and oidvector), none for another
// dimension or an empty array.
func subscripts(vals []types.Value, argType plan.OID) func() (types.Value, bool, error) {
	n := int64(len(vals[0].(*types.Array).Elems))
	if vals[1].(int64) != 1 {
		n = 0
	}
	lo := int64(1)
	if argType == 22 || argType == 30 { // int2vector, oidvector
		lo = 0
	}
	reverse := len(vals) == 3 && vals[2].(bool)
	i := int64(0)
	return func() (types.Value, bool, error) {
		if i == n {
			return nil, false, nil
		}
		i++
		if reverse {
			return lo + n - i, true, nil
		}
		return lo + i - 1, true, nil
	}
}
