package opt

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// pushdown moves every filter's conjuncts as far down as they stay
// correct, bottom-up over the whole plan.
func pushdown(rel plan.Rel) plan.Rel {
	switch x := rel.(type) {
	case *plan.Filter:
		return push(pushdown(x.Input), plan.Conjuncts(x.Pred))
	case *plan.Join:
		j := &plan.Join{Kind: x.Kind, Left: pushdown(x.Left), Right: pushdown(x.Right)}
		on := plan.Conjuncts(x.On)
		var gates []plan.Scalar
		switch x.Kind {
		case plan.InnerJoin, plan.CrossJoin, plan.SemiJoin:
			// A semi join's condition reads its right side's columns
			// too, though the join emits only the left's: a conjunct
			// on the right side alone (`1 IN (SELECT 1)`: 1 = the
			// subquery's column) filters the right side, no gate.
			gates, on = splitGates(on, plan.SetOf(append(x.Left.Columns(), x.Right.Columns()...)))
		case plan.AntiJoin:
			// NOT EXISTS: the subquery's WHERE is the anti join's
			// condition in PostgreSQL, its conjuncts without columns
			// too, evaluated per pair (none when the right side is
			// empty), not as a gate of the right side
			if g, ok := j.Right.(*plan.Filter); ok && g.Gate {
				j.Right, on = g.Input, append(on, plan.Conjuncts(g.Pred)...)
			}
		}
		return gate(pushJoin(j, on, nil), gates)
	}
	return rebuild(rel, pushdown)
}

// splitGates separates the conjuncts that read none of the columns in
// scope (only constants, parameters, outer references and uncorrelated
// subqueries) and call no volatile function. PostgreSQL makes such a
// qual of WHERE or of an inner join's ON a gating one
// (distribute_qual_to_rels: pseudoconstant): a Result's One-Time Filter
// above the join tree, evaluated once before any row is read. So
// `WHERE (SELECT x FROM multirow) > 0` fails 21000 even over an empty
// table, and a gate that is false or NULL keeps every other expression
// of the query level from running. They stay above, in a Filter of
// their own, which sql/exec runs as a gate (filterOp).
func splitGates(preds []plan.Scalar, scope plan.ColSet) (gates, rest []plan.Scalar) {
	for _, p := range preds {
		if b, ok := boolOf(p); ok && b {
			continue // TRUE filters nothing
		}
		if !plan.ColumnsOf(p).Intersects(scope) && !volatile(p) {
			gates = append(gates, p)
		} else {
			rest = append(rest, p)
		}
	}
	return gates, rest
}

// push applies conjuncts preds to rel (whose own filters are pushed
// already), as low as each can go; gates (splitGates) stay above rel.
func push(rel plan.Rel, preds []plan.Scalar) plan.Rel {
	gates, rest := splitGates(preds, plan.SetOf(rel.Columns()))
	if a, ok := rel.(*plan.Aggregate); ok {
		// HAVING: PostgreSQL copies a conjunct without aggregates into
		// WHERE (a gate there), except with grouping sets or when it
		// holds a subquery run per row (correlated to an outer query):
		// those stay, evaluated per group after aggregation
		// (subquery_planner)
		for i := 0; i < len(gates); i++ {
			if a.Sets != nil || correlatedSub(gates[i]) {
				rest = append(rest, gates[i])
				gates = append(gates[:i], gates[i+1:]...)
				i--
			}
		}
	}
	return gate(pushBelow(rel, rest), gates)
}

// correlatedSub says whether p holds a subquery that reads columns of
// an enclosing query (PostgreSQL's SubPlan, not an InitPlan).
func correlatedSub(p plan.Scalar) bool {
	found := false
	plan.Walk(p, func(x plan.Scalar) bool {
		if s, ok := x.(*plan.Subquery); ok && len(s.Outer) > 0 {
			found = true
		}
		return !found
	})
	return found
}

// pushBelow is push for conjuncts that read rel's columns.
func pushBelow(rel plan.Rel, preds []plan.Scalar) plan.Rel {
	if len(preds) == 0 {
		return rel
	}
	switch x := rel.(type) {
	case *plan.Scan:
		c := *x
		c.Filter = plan.And(addConjuncts(plan.Conjuncts(x.Filter), preds))
		return &c
	case *plan.Filter:
		return push(x.Input, addConjuncts(plan.Conjuncts(x.Pred), preds))
	case *plan.Project:
		// Conjuncts over columns the projection passes through go below.
		in := plan.SetOf(x.Input.Columns())
		var below, above []plan.Scalar
		for _, p := range preds {
			if readsOnly(p, in, plan.SetOf(x.Cols)) && !volatile(p) {
				below = append(below, p)
			} else {
				above = append(above, p)
			}
		}
		return filter(&plan.Project{Input: push(x.Input, below), Cols: x.Cols, Exprs: x.Exprs}, above)
	case *plan.Sort:
		return &plan.Sort{Input: push(x.Input, preds), Keys: x.Keys}
	case *plan.Distinct:
		if x.On == nil {
			rest, vol := splitVolatile(preds) // volatile.go
			return filter(&plan.Distinct{Input: push(x.Input, rest)}, vol)
		}
	case *plan.Aggregate:
		// Conjuncts over group columns only filter whole groups: below.
		groups := plan.SetOf(x.GroupBy)
		var below, above []plan.Scalar
		for _, p := range preds {
			if len(x.GroupBy) > 0 && x.Sets == nil && readsOnly(p, groups, plan.SetOf(x.Columns())) && !volatile(p) {
				below = append(below, p)
			} else {
				above = append(above, p)
			}
		}
		c := *x
		c.Input = push(x.Input, below)
		return filter(&c, above)
	case *plan.Join:
		return pushJoin(x, plan.Conjuncts(x.On), preds)
	case *plan.LateralJoin:
		// Conjuncts reading only the left side filter its rows before
		// the right side runs for them (PostgreSQL's nested loop has
		// them on its outer scan); for LEFT JOIN LATERAL the left side
		// is the preserved one, so the same holds.
		left := plan.SetOf(x.Left.Columns())
		var below, above []plan.Scalar
		for _, p := range preds {
			if readsOnly(p, left, plan.SetOf(x.Columns())) && !volatile(p) {
				below = append(below, p)
			} else {
				above = append(above, p)
			}
		}
		c := *x
		c.Left = push(x.Left, below)
		return filter(&c, above)
	}
	return filter(rel, preds)
}

// addConjuncts is have with the conjuncts of add it does not hold
// already (a restriction OR clause derived again when a join is pushed
// into a second time: orclauses.go).
func addConjuncts(have, add []plan.Scalar) []plan.Scalar {
	out := slices.Clip(have)
	for _, p := range add {
		if !slices.ContainsFunc(out, func(q plan.Scalar) bool { return plan.Equal(p, q) }) {
			out = append(out, p)
		}
	}
	return out
}

// filter is rel under a Filter of preds (rel when none).
func filter(rel plan.Rel, preds []plan.Scalar) plan.Rel {
	if len(preds) == 0 {
		return rel
	}
	return &plan.Filter{Input: rel, Pred: plan.And(preds)}
}

// gate is rel under a gating Filter of gates (splitGates; rel when none).
// A gate of rel's own (under its projections: a subquery in FROM, which
// PostgreSQL pulls up) merges with gates, its conjuncts first, as
// PostgreSQL lists the level's pseudoconstant quals (gatemerge.go).
func gate(rel plan.Rel, gates []plan.Scalar) plan.Rel {
	if len(gates) == 0 {
		return rel
	}
	if inner, under, ok := innerGate(rel); ok {
		gates = append(plan.Conjuncts(inner), gates...)
		rel = under
	}
	return &plan.Filter{Input: rel, Pred: plan.And(dummyJoin(rel, gates)), Gate: true}
}

// readsOnly says whether p reads, of the columns in scope, only columns
// of side (columns outside scope are outer references: constants here).
func readsOnly(p plan.Scalar, side, scope plan.ColSet) bool {
	for _, id := range plan.ColumnsOf(p).Sorted() {
		if (scope.Has(id) || side.Has(id)) && !side.Has(id) {
			return false
		}
	}
	return true
}

// pushJoin places a join's condition conjuncts on and the conjuncts of a
// filter above it, where: for an inner (or cross) join each goes to the
// side it reads or into the condition; for outer joins only what cannot
// change which rows are padded moves (ON conjuncts on the padded side,
// WHERE conjuncts on the preserved side).
func pushJoin(j *plan.Join, on, where []plan.Scalar) plan.Rel {
	l, r := plan.SetOf(j.Left.Columns()), plan.SetOf(j.Right.Columns())
	all := plan.SetOf(append(j.Left.Columns(), j.Right.Columns()...))
	var toL, toR, keep, above []plan.Scalar
	side := func(p plan.Scalar) int { // 1 left, 2 right, 0 both/none
		cols := plan.ColumnsOf(p)
		if !cols.Intersects(all) {
			return 0
		}
		switch {
		case readsOnly(p, l, all):
			return 1
		case readsOnly(p, r, all):
			return 2
		}
		return 0
	}
	switch j.Kind {
	case plan.InnerJoin, plan.CrossJoin:
		for _, p := range append(on, where...) {
			switch side(p) {
			case 1:
				toL = append(toL, p)
			case 2:
				toR = append(toR, p)
			default:
				keep = addConjuncts(keep, []plan.Scalar{p})
			}
		}
		// An OR reading both sides implies a condition on each
		// (orclauses.go).
		toL = addConjuncts(toL, orRestrictions(keep, l, all))
		toR = addConjuncts(toR, orRestrictions(keep, r, all))
	case plan.LeftJoin, plan.RightJoin:
		preserved, padded := 1, 2
		if j.Kind == plan.RightJoin {
			preserved, padded = 2, 1
		}
		// place sends p to side s when it reads only that side.
		place := func(p plan.Scalar, s int, other *[]plan.Scalar) {
			switch {
			case side(p) != s:
				*other = append(*other, p)
			case s == 1:
				toL = append(toL, p)
			default:
				toR = append(toR, p)
			}
		}
		for _, p := range on {
			place(p, padded, &keep)
		}
		for _, p := range where {
			place(p, preserved, &above)
		}
	case plan.SemiJoin, plan.AntiJoin:
		// Only the left side's rows come out: WHERE conjuncts on it go
		// down; ON conjuncts on the right side filter the right side.
		// A semi join's ON conjunct on the left side only filters the
		// left side, where PostgreSQL evaluates it (on every left row,
		// also when the right side is empty: `EXISTS (SELECT 1 FROM e
		// WHERE t.x > (SELECT …))` fails 21000 as PostgreSQL does).
		for _, p := range on {
			switch {
			case side(p) == 2:
				toR = append(toR, p)
			case side(p) == 1 && j.Kind == plan.SemiJoin:
				toL = append(toL, p)
			default:
				keep = append(keep, p)
			}
		}
		for _, p := range where {
			if side(p) == 1 {
				toL = append(toL, p)
			} else {
				above = append(above, p)
			}
		}
	default:
		keep, above = on, where
	}
	kind := j.Kind
	if kind == plan.CrossJoin && len(keep) > 0 {
		kind = plan.InnerJoin
	}
	out := &plan.Join{Kind: kind, Left: push(j.Left, toL), Right: push(j.Right, toR), On: plan.And(keep)}
	return filter(out, above)
}
