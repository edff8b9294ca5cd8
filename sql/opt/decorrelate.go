package opt

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// decorrelate turns a filter's correlated EXISTS (NOT EXISTS) conjunct
// into a semi (anti) join of the filter's input with the subquery's rows,
// the correlation conditions pulled out of the subquery into the join's
// condition: the executor then runs one join instead of the subquery per
// row. It applies when the correlation conditions are conjuncts of the
// subquery's filters and scans under nothing but filters and
// projections (a correlation under an aggregate or a limit stays a
// subquery).
func decorrelate(rel plan.Rel) plan.Rel {
	f, ok := rel.(*plan.Filter)
	if !ok {
		return rebuild(rel, decorrelate)
	}
	in := decorrelate(f.Input)
	var rest []plan.Scalar
	for _, p := range plan.Conjuncts(f.Pred) {
		if j := semiJoinIn(in, p); j != nil {
			in = j
			continue
		}
		if j := notInAnti(in, p); j != nil { // notin.go
			in = j
			continue
		}
		kind, sq := plan.SemiJoin, asExists(p)
		if sq == nil {
			if n, ok := p.(*plan.BoolOp); ok && n.Op == "NOT" {
				kind, sq = plan.AntiJoin, asExists(n.Args[0])
			}
		}
		if sq == nil || len(sq.Outer) == 0 {
			rest = append(rest, p)
			continue
		}
		right, on, ok := pullCorrelated(sq.Plan, plan.SetOf(sq.Outer))
		if !ok || readsOuter(right, plan.SetOf(sq.Outer)) {
			rest = append(rest, p)
			continue
		}
		in = &plan.Join{Kind: kind, Left: in, Right: right, On: plan.And(on)}
	}
	return filter(in, rest)
}

// semiJoinIn is in semi-joined with the rows of an `x op ANY (subquery)`
// (`x IN (subquery)`) conjunct p on `x op column` (nil when p is not one,
// or its correlation cannot be pulled out). As a conjunct of a filter
// its NULL (no match, a NULL among the rows) and false both drop the row,
// so a semi join keeps exactly the rows the filter keeps.
func semiJoinIn(in plan.Rel, p plan.Scalar) plan.Rel {
	sq, ok := p.(*plan.Subquery)
	if !ok || sq.Kind != plan.SubAny || sq.Col == nil || len(sq.Plan.Columns()) != 1 {
		return nil
	}
	id := sq.Plan.Columns()[0]
	right, on := sq.Plan, []plan.Scalar(nil)
	if len(sq.Outer) > 0 {
		// The projections go with the correlation: the output must be a
		// column they pass through.
		for r := sq.Plan; ; {
			pr, isProject := r.(*plan.Project)
			if !isProject {
				break
			}
			i := slices.Index(pr.Cols, id)
			c, isCol := pr.Exprs[i].(*plan.ColRef)
			if !isCol {
				return nil
			}
			id, r = c.ID, pr.Input
		}
		outer := plan.SetOf(sq.Outer)
		if right, on, ok = pullCorrelated(sq.Plan, outer); !ok || readsOuter(right, outer) {
			return nil
		}
		if !plan.SetOf(right.Columns()).Has(id) {
			return nil
		}
	}
	col := &plan.ColRef{ID: id, T: sq.Col.T}
	cmp := &plan.Op{Op: sq.Op, Args: []plan.Scalar{sq.Left, col}, T: plan.T(plan.Bool)}
	return &plan.Join{Kind: plan.SemiJoin, Left: in, Right: right, On: plan.And(append(on, cmp))}
}

// asExists is p as an EXISTS subquery (nil when it is not one).
func asExists(p plan.Scalar) *plan.Subquery {
	if sq, ok := p.(*plan.Subquery); ok && sq.Kind == plan.SubExists {
		return sq
	}
	return nil
}

// pullCorrelated removes from rel's filters and scans the conjuncts that
// read outer columns and returns them; projections go (a semi join reads
// only whether a row exists, and the conditions read the columns under
// them). ok=false: rel has another shape.
func pullCorrelated(rel plan.Rel, outer plan.ColSet) (plan.Rel, []plan.Scalar, bool) {
	split := func(pred plan.Scalar) (keep, pulled []plan.Scalar) {
		for _, p := range plan.Conjuncts(pred) {
			if plan.ColumnsOf(p).Intersects(outer) {
				pulled = append(pulled, p)
			} else {
				keep = append(keep, p)
			}
		}
		return keep, pulled
	}
	switch x := rel.(type) {
	case *plan.Project:
		return pullCorrelated(x.Input, outer)
	case *plan.Filter:
		in, pulled, ok := pullCorrelated(x.Input, outer)
		keep, more := split(x.Pred)
		return filter(in, keep), append(pulled, more...), ok
	case *plan.Scan:
		c := *x
		keep, pulled := split(x.Filter)
		c.Filter, c.Key = plan.And(keep), nil
		return &c, pulled, true
	}
	return rel, nil, !readsOuter(rel, outer)
}

// readsOuter says whether any expression in rel reads a column of outer.
func readsOuter(rel plan.Rel, outer plan.ColSet) bool {
	for _, e := range plan.ExprsOf(rel) {
		if plan.ColumnsOf(e).Intersects(outer) {
			return true
		}
	}
	for _, in := range rel.Inputs() {
		if readsOuter(in, outer) {
			return true
		}
	}
	return false
}
