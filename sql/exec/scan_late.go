package exec

import (
	"context"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Late materialization of a scan's pushed filter. A source that decodes
// column by column (the HEAD's typed pages) can evaluate the filter's
// conjuncts one at a time, decoding for each only the columns it reads
// and only for the rows the conjuncts before it left, then decode the
// other columns for the rows that pass. The rows and values each
// conjunct sees are exactly those of the filter run as a qual list on
// the whole batch (quals, qualorder.go: conjunct k runs on the rows every
// earlier one was true for), so the answers and the errors are the same; the rows the
// filter drops are never decoded past the columns that decided it, and
// the kept ones are never copied into a new batch (no pick).

// LateSource is a TypedSource that applies a scan's filter while it
// decodes (ScanLate): the batches it hands hold only the rows the
// filter is true for.
type LateSource interface {
	TypedSource
	ScanLate(ctx context.Context, req *ScanRequest, f *LateFilter, fn func(*Batch) error) error
}

// LateFilter is a scan filter split into its conjuncts, in the order the
// AND evaluates them (PostgreSQL's: qualorder.go). It is used by one scan on one goroutine.
type LateFilter struct {
	e     *env
	s     *plan.Scan
	steps []lateStep
	// volatile: a conjunct calls a volatile function (random()): the
	// filter is not run on several goroutines (Clone).
	volatile bool
	res      []types.Value
	null     []bool // unused: a NULL conjunct drops its row at once (Apply)
	// extra are conjuncts after the filter's own: a join's key filter
	// (joinfilter.go), safe to share between goroutines.
	extra []lateStep
}

type lateStep struct {
	cols []int // the batch vectors the conjunct reads
	eval vexpr
	cmp  *ColCmp // the conjunct as a comparison of scaled integers, or nil (scan_colcmp.go)
}

// lateFilter splits a scan's filter (nil when a conjunct reads anything
// else than the scan's own columns and constants: a subquery, an outer
// column, a catalog function).
func (e *env) lateFilter(s *plan.Scan) (*LateFilter, error) {
	if s.Filter == nil {
		return nil, nil
	}
	lay := layoutOf(s.Cols)
	f := &LateFilter{e: e, s: s, res: make([]types.Value, BatchSize), null: make([]bool, BatchSize)}
	for _, cj := range orderQuals(s.Filter) { // qualorder.go
		var cols []int
		ok := true
		plan.Walk(cj, func(x plan.Scalar) bool {
			switch y := x.(type) {
			case *plan.Subquery:
				ok = false
			case *plan.Func:
				ok = ok && y.Ext == nil
				if y.Call != nil && y.Call.Func.Volatility != builtin.Immutable {
					f.volatile = true // clock and random sources are the session's
				}
			case *plan.ColRef:
				c, in := lay[y.ID]
				if !in {
					ok = false
				} else if !containsInt(cols, c) {
					cols = append(cols, c)
				}
			}
			return ok
		})
		if !ok {
			return nil, nil
		}
		c := &compiler{e: e, lay: lay}
		ev, err := c.compile(cj)
		if err != nil {
			return nil, err
		}
		f.steps = append(f.steps, lateStep{cols: cols, eval: ev, cmp: e.colCmp(cj, lay)})
	}
	return f, nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Clone is a copy of f to run on another goroutine (its conjuncts
// compiled again: compiled expressions keep per-call scratch), or nil
// when f must stay on the statement's goroutine.
func (f *LateFilter) Clone() (*LateFilter, error) {
	if f.volatile {
		return nil, nil
	}
	g := f.e.emptyLateFilter(f.s)
	if f.s.Filter != nil {
		var err error
		if g, err = f.e.lateFilter(f.s); err != nil || g == nil {
			return nil, err
		}
	}
	g.steps, g.extra = append(g.steps, f.extra...), f.extra
	return g, nil
}

// emptyLateFilter is a filter of no conjuncts over s's columns, for
// extra ones (with).
func (e *env) emptyLateFilter(s *plan.Scan) *LateFilter {
	return &LateFilter{e: e, s: s, res: make([]types.Value, BatchSize), null: make([]bool, BatchSize)}
}

// with is f (nil: no conjuncts of its own, over s) followed by sts, a
// new filter: f stays as it is.
func (f *LateFilter) with(e *env, s *plan.Scan, sts []lateStep) *LateFilter {
	g := e.emptyLateFilter(s)
	if f != nil {
		c := *f
		g = &c
	}
	g.steps = append(g.steps[:len(g.steps):len(g.steps)], sts...)
	g.extra = append(g.extra[:len(g.extra):len(g.extra)], sts...)
	return g
}

// Steps is the number of conjuncts.
func (f *LateFilter) Steps() int { return len(f.steps) }

// Cols are the vectors conjunct k reads (the source decodes them for
// the rows it passes to Apply before calling it).
func (f *LateFilter) Cols(k int) []int { return f.steps[k].cols }

// Begin starts the filter on rows sel of b (rows not yet seen by any
// conjunct).
func (f *LateFilter) Begin(sel []int) {
	for _, i := range sel {
		f.null[i] = false
	}
}

// Apply evaluates conjunct k on rows sel of b (b.N covers them) and
// returns the rows it is not false for, in sel's storage. After the
// last conjunct, End drops the rows one of them was NULL for.
func (f *LateFilter) Apply(k int, b *Batch, sel []int) ([]int, error) {
	if len(sel) == 0 {
		return sel, nil
	}
	if err := f.steps[k].eval(b, sel, f.res); err != nil {
		return nil, err
	}
	n := 0
	for _, i := range sel {
		// a NULL stops the row as a false does: PostgreSQL's qual list
		// (quals, qualorder.go)
		if t, ok := f.res[i].(bool); ok && t {
			sel[n] = i
			n++
		}
	}
	return sel[:n], nil
}

// End is the rows of sel the whole filter is true for.
func (f *LateFilter) End(sel []int) []int {
	n := 0
	for _, i := range sel {
		if !f.null[i] {
			sel[n] = i
			n++
		}
	}
	return sel[:n]
}

// Filter applies the whole filter to a decoded batch (a source that
// decodes row by row), keeping the rows it is true for in place.
func (f *LateFilter) Filter(b *Batch) error {
	sel := allRows(b.N)
	f.Begin(sel)
	var err error
	for k := range f.steps {
		if sel, err = f.Apply(k, b, sel); err != nil {
			return err
		}
	}
	b.N = Compact(b, 0, b.N, f.End(sel))
	return nil
}

// Compact moves rows keep (ascending, each ≥ from) of b to from, from+1,
// …, clears the vectors' slots from there to end (no stale references)
// and returns the row after the last kept one.
func Compact(b *Batch, from, end int, keep []int) int {
	n := from
	for _, i := range keep {
		if i != n {
			for _, v := range b.Vecs {
				v[n] = v[i]
			}
			for _, sv := range b.Small {
				sv.move(n, i) // typedvec.go
			}
		}
		n++
	}
	for _, v := range b.Vecs {
		clear(v[n:end])
	}
	return n
}
