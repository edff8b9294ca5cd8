package opt

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// PostgreSQL pulls a simple subquery in FROM (and an inlined CTE) up into
// the outer query level, and every pseudoconstant qual of the level (one
// reading no column) goes to the top of its join tree
// (distribute_qual_to_rels), the subquery's before the outer query's:
// `SELECT * FROM (SELECT * FROM me WHERE (SELECT i4 FROM mz) > 0) c
// WHERE false` evaluates the subquery's gate first and fails 21000. At
// the top of a join, a constant false or NULL among them makes the join
// a dummy relation (restriction_is_constant_false): none of the others
// is evaluated; over a single table they run in their order.

// innerGate finds the gating Filter at the top of rel, under its
// projections: its predicate, and rel without it.
func innerGate(rel plan.Rel) (plan.Scalar, plan.Rel, bool) {
	switch x := rel.(type) {
	case *plan.Filter:
		if x.Gate {
			return x.Pred, x.Input, true
		}
	case *plan.Project:
		if pred, under, ok := innerGate(x.Input); ok {
			return pred, &plan.Project{Input: under, Cols: x.Cols, Exprs: x.Exprs}, true
		}
	}
	return nil, nil, false
}

// dummyJoin is gates over rel: only a constant false when rel is a join
// and one of gates is a constant false or NULL.
func dummyJoin(rel plan.Rel, gates []plan.Scalar) []plan.Scalar {
	if len(gates) < 2 || !joinTop(rel) || !slices.ContainsFunc(gates, falseOrNull) {
		return gates
	}
	return []plan.Scalar{boolConst(false)}
}

// joinTop says whether rel, under its projections and filters, is a join.
func joinTop(rel plan.Rel) bool {
	switch x := rel.(type) {
	case *plan.Join:
		return true
	case *plan.Project:
		return joinTop(x.Input)
	case *plan.Filter:
		return joinTop(x.Input)
	}
	return false
}

// falseOrNull says whether s is a constant false or NULL.
func falseOrNull(s plan.Scalar) bool {
	if b, ok := boolOf(s); ok {
		return !b
	}
	return isNullConst(s)
}
