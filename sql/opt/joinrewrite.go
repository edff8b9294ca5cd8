package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// rewriteJoins rebuilds rel bottom up and hands each join, its inputs
// rewritten already, to fn, which returns what stands in its place: the
// join itself (changed or not) or another tree. fn gets a copy of the
// join (the Est, BuildLeft and other fields kept), never the input's
// node, so it may set fields in place; e estimates rows over rel's scans
// as they were before any rewrite (the estimator reads base columns,
// which rewrites keep). The rules that look at one join at a time with
// the estimates (semipush.go, semibuild.go) share this walk; the walk
// goes through every operator (rebuild), CTE plans and set operations
// included, not into subquery plans (mapExprs optimizes those as their
// own queries).
func rewriteJoins(rel plan.Rel, fn func(e *estimator, j *plan.Join) plan.Rel) plan.Rel {
	e := newEstimator()
	e.note(rel)
	var walk func(r plan.Rel) plan.Rel
	walk = func(r plan.Rel) plan.Rel {
		j, ok := r.(*plan.Join)
		if !ok {
			return rebuild(r, walk)
		}
		c := *j
		c.Left, c.Right = walk(j.Left), walk(j.Right)
		return fn(e, &c)
	}
	return walk(rel)
}
