package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// semiBuild marks the semi and anti joins whose left side is estimated
// well below their right side to build their hash table on the left
// (plan.Join.BuildLeft): the executor then streams the right side
// through the left's rows instead of holding the right side. Why: a
// decorrelated EXISTS / NOT EXISTS has the subquery's table on the
// right, often all of a large table, while the left is what the rest of
// the query kept (TPC-H Q21: one nation's late lineitems, ~1 % of
// lineitem, against all of lineitem twice). The answer is the same
// either way; the executor falls back to building the right side when
// the left does not fit its working memory (sql/exec join.go).
func semiBuild(rel plan.Rel) plan.Rel {
	return rewriteJoins(rel, func(e *estimator, j *plan.Join) plan.Rel { // joinrewrite.go
		if j.Kind == plan.SemiJoin || j.Kind == plan.AntiJoin {
			j.BuildLeft = hasEquiKey(j) && e.rows(j.Left)*semiBuildMargin < e.rows(j.Right)
		}
		return j
	})
}

// semiBuildMargin: the left side is built on only when estimated this
// many times smaller than the right (the estimates are rough, and on
// the left the table holds every column the join emits).
const semiBuildMargin = 2

// hasEquiKey says whether j's condition has an equality between a left
// and a right column (the hash table's key; without one the join is a
// nested loop whichever side it holds).
func hasEquiKey(j *plan.Join) bool {
	lc, rc := plan.SetOf(j.Left.Columns()), plan.SetOf(j.Right.Columns())
	for _, p := range plan.Conjuncts(j.On) {
		if _, _, ok := equiColumns(p, lc, rc); ok {
			return true
		}
	}
	return false
}
