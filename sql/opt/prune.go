package opt

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// prune narrows rel to the columns need (used above it) plus what its
// operators read themselves: scans read only those columns, projections
// compute only those, and a projection that passes its input through
// unchanged goes.
func prune(rel plan.Rel, need plan.ColSet, md *plan.Metadata) plan.Rel {
	switch x := rel.(type) {
	case *plan.Scan:
		c := *x
		c.Cols, c.Ords = nil, nil
		read := need
		if x.Filter != nil {
			read = union(need, plan.ColumnsOf(x.Filter))
		}
		for i, id := range x.Cols {
			if read.Has(id) {
				c.Cols, c.Ords = append(c.Cols, id), append(c.Ords, x.Ords[i])
			}
		}
		return &c
	case *plan.Filter:
		return &plan.Filter{Input: prune(x.Input, union(need, plan.ColumnsOf(x.Pred)), md), Pred: x.Pred, Gate: x.Gate}
	case *plan.Project:
		p := &plan.Project{}
		var in plan.ColSet
		for i, id := range x.Cols {
			if need.Has(id) {
				p.Cols, p.Exprs = append(p.Cols, id), append(p.Exprs, x.Exprs[i])
				in.AddSet(plan.ColumnsOf(x.Exprs[i]))
			}
		}
		p.Input = prune(x.Input, in, md)
		if passThrough(p) {
			return p.Input
		}
		return p
	case *plan.Join:
		in := need
		if x.On != nil {
			in = union(need, plan.ColumnsOf(x.On))
		}
		return &plan.Join{Kind: x.Kind, Left: prune(x.Left, in, md), Right: prune(x.Right, in, md), On: x.On}
	case *plan.Aggregate:
		in := plan.SetOf(x.GroupBy)
		for _, a := range x.Aggs {
			for _, e := range a.Args {
				in.AddSet(plan.ColumnsOf(e))
			}
			if a.Filter != nil {
				in.AddSet(plan.ColumnsOf(a.Filter))
			}
		}
		c := *x
		c.Input = prune(x.Input, in, md)
		return &c
	case *plan.Sort:
		in := need
		for _, k := range x.Keys {
			in = union(in, plan.SetOf([]plan.ColumnID{k.Col}))
		}
		return &plan.Sort{Input: prune(x.Input, in, md), Keys: x.Keys}
	case *plan.Limit:
		return &plan.Limit{Input: prune(x.Input, need, md), Count: x.Count, Offset: x.Offset, Ties: x.Ties}
	case *plan.Window:
		return pruneWindow(x, need, md)
	case *plan.Distinct:
		if len(x.On) > 0 {
			// DISTINCT ON compares its keys only: a column nothing
			// above reads goes, as PostgreSQL's
			// remove_unused_subquery_outputs drops it (which row of a
			// group is kept then does not show: sql/exec's refusal of
			// tied rows that print differently, distincton.go, looks
			// at the columns left).
			return &plan.Distinct{Input: prune(x.Input, union(need, plan.SetOf(x.On)), md), On: x.On}
		}
		// Every column takes part in the comparison.
		return &plan.Distinct{Input: prune(x.Input, plan.SetOf(x.Input.Columns()), md), On: x.On}
	case *plan.SetOp:
		c := *x
		c.Left, c.Right = prune(x.Left, plan.SetOf(x.LeftCols), md), prune(x.Right, plan.SetOf(x.RightCols), md)
		return &c
	case *plan.LateralJoin:
		// The left side gives what is used above and what the right
		// side reads of its row; the right side was pruned as its own
		// query (mapExprs).
		c := *x
		c.Left = prune(x.Left, union(need, plan.SetOf(x.Outer)), md)
		return &c
	case *plan.With:
		c := &plan.With{CTEs: x.CTEs, Body: prune(x.Body, need, md)}
		for _, cte := range x.CTEs {
			cte.Plan = prune(cte.Plan, plan.SetOf(cte.Cols), md)
		}
		return c
	}
	return rel
}

// passThrough says whether p outputs exactly its input's columns, in
// order, unchanged.
func passThrough(p *plan.Project) bool {
	if !slices.Equal(p.Cols, p.Input.Columns()) {
		return false
	}
	for i, e := range p.Exprs {
		c, ok := e.(*plan.ColRef)
		if !ok || c.ID != p.Cols[i] {
			return false
		}
	}
	return true
}

func union(a, b plan.ColSet) plan.ColSet {
	var out plan.ColSet
	out.AddSet(a)
	out.AddSet(b)
	return out
}

// pruneWindow narrows a Window's input to what is used above it and
// what its partition, order and functions read. When its input still
// carries other columns (a filter's, a scan's key), a projection drops
// them: the executor refuses a function whose value depends on the
// order among peers only when peers differ in a column the window
// outputs (window.go), so a column nothing reads must not be there to
// tell peers apart.
func pruneWindow(x *plan.Window, need plan.ColSet, md *plan.Metadata) plan.Rel {
	in := union(need, plan.SetOf(x.Partition))
	for _, k := range x.Order {
		in.Add(k.Col)
	}
	for _, f := range x.Funcs {
		in.AddSet(plan.SetOf(f.Args))
		if f.Filter != 0 {
			in.Add(f.Filter)
		}
	}
	c := *x
	c.Input = prune(x.Input, in, md)
	cols := c.Input.Columns()
	p := &plan.Project{Input: c.Input}
	for _, id := range cols {
		if in.Has(id) {
			p.Cols, p.Exprs = append(p.Cols, id), append(p.Exprs, &plan.ColRef{ID: id, T: md.Column(id).Type})
		}
	}
	if len(p.Cols) < len(cols) {
		c.Input = p
	}
	return &c
}
