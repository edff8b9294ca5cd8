package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// A window function whose value depends on the order among peers is
// refused when peers differ (window.go). Two facts narrow "differ" to
// what can change the answer:
//
//   - Only the columns read above the window (by projections, filters,
//     sorts, the output) and by the window's own functions are seen;
//     peers that differ only in columns nobody reads give the same
//     answer in any order (windowNeeds).
//   - A window whose input is a sort (under projections) whose keys
//     begin with the window's PARTITION BY and ORDER BY reads the rows
//     in that sort's order: PostgreSQL adds no sort of its own when the
//     input's order already satisfies the window's, and the executor's
//     stable sort keeps it. Peers are then only the rows tied on the
//     input sort's keys too (inputOrder).

// windowNeeds is, for each Window of the tree under root, the columns
// of its output read above it (absent: every column, as for windows
// inside joins, set operations and other operators this does not
// follow).
//
// stacked are the windows right under another window (through
// projections): PostgreSQL may evaluate them in another order, sorting
// for each, so their input's order is not the one below them.
func windowNeeds(root plan.Rel) (needs map[*plan.Window]plan.ColSet, stacked map[*plan.Window]bool) {
	out := map[*plan.Window]plan.ColSet{}
	stacked = map[*plan.Window]bool{}
	var all plan.ColSet
	for _, c := range root.Columns() {
		all.Add(c)
	}
	var walk func(r plan.Rel, need *plan.ColSet)
	walk = func(r plan.Rel, need *plan.ColSet) {
		with := func(extra ...plan.ColSet) *plan.ColSet {
			if need == nil {
				return nil
			}
			var s plan.ColSet
			s.AddSet(*need)
			for _, e := range extra {
				s.AddSet(e)
			}
			return &s
		}
		switch x := r.(type) {
		case *plan.Project:
			if need == nil {
				walk(x.Input, nil)
				return
			}
			var s plan.ColSet
			for i, e := range x.Exprs {
				if need.Has(x.Cols[i]) {
					s.AddSet(plan.ColumnsOf(e))
				}
			}
			walk(x.Input, &s)
		case *plan.Filter:
			walk(x.Input, with(plan.ColumnsOf(x.Pred)))
		case *plan.Sort:
			var k plan.ColSet
			for _, s := range x.Keys {
				k.Add(s.Col)
			}
			walk(x.Input, with(k))
		case *plan.Limit:
			walk(x.Input, need)
		case *plan.Window:
			if need != nil {
				out[x] = *need
			}
			if below, ok := underProjects(x.Input).(*plan.Window); ok {
				stacked[below] = true
			}
			var k plan.ColSet
			for _, c := range x.Partition {
				k.Add(c)
			}
			for _, s := range x.Order {
				k.Add(s.Col)
			}
			for _, f := range x.Funcs {
				for _, a := range f.Args {
					k.Add(a)
				}
				if f.Filter != 0 {
					k.Add(f.Filter)
				}
			}
			walk(x.Input, with(k))
		default:
			for _, in := range r.Inputs() {
				walk(in, nil)
			}
		}
	}
	walk(root, &all)
	return out, stacked
}

// underProjects is r past the projections on top of it.
func underProjects(r plan.Rel) plan.Rel {
	for {
		p, ok := r.(*plan.Project)
		if !ok {
			return r
		}
		r = p.Input
	}
}

// inputOrder is the keys of the sort w reads (under projections that
// pass columns on) past w's own PARTITION BY and ORDER BY, when the
// sort's keys begin with those (nil otherwise).
func inputOrder(w *plan.Window) []plan.SortKey {
	s, ok := underProjects(w.Input).(*plan.Sort)
	if !ok {
		return nil
	}
	var want []plan.SortKey
	for _, c := range w.Partition {
		want = append(want, plan.SortKey{Col: c})
	}
	want = append(want, w.Order...)
	if len(s.Keys) <= len(want) || !slices.Equal(s.Keys[:len(want)], want) {
		return nil
	}
	for _, k := range s.Keys[len(want):] {
		if !slices.Contains(w.Input.Columns(), k.Col) {
			return nil // a key the projections dropped
		}
	}
	return s.Keys[len(want):]
}

// narrowPeers sets w.slotCols for the input columns nobody reads above
// the window nor in it, and w.then for an input sort that orders its
// peers (key compiles a sort key over the input).
func (w *windowOp) narrowPeers(lay map[plan.ColumnID]int, key func(id plan.ColumnID, desc, nullsFirst bool) (winKey, error)) error {
	if need, ok := w.e.winNeed[w.w]; ok {
		var used plan.ColSet
		used.AddSet(need)
		for _, c := range w.w.Partition {
			used.Add(c)
		}
		for _, s := range w.w.Order {
			used.Add(s.Col)
		}
		for _, f := range w.w.Funcs {
			for _, a := range f.Args {
				used.Add(a)
			}
			if f.Filter != 0 {
				used.Add(f.Filter)
			}
		}
		for _, id := range w.in.cols() {
			if !used.Has(id) {
				if w.slotCols == nil {
					w.slotCols = map[int]bool{}
				}
				w.slotCols[lay[id]] = true
			}
		}
	}
	if w.e.winStacked[w.w] {
		return nil
	}
	for _, s := range inputOrder(w.w) {
		k, err := key(s.Col, s.Desc, s.NullsFirst)
		if err != nil {
			return err
		}
		w.then = append(w.then, k)
	}
	return nil
}
