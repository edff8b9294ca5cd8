package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// inlineCTEs puts each CTE PostgreSQL inlines in place of its reference
// (subquery_planner's inline_cte: referenced once, not recursive, not
// MATERIALIZED, no volatile function; one reading an outer query's
// columns stays a CTE, which sql/exec computes again as they change:
// ctecorr.go), so the rules see through it as
// PostgreSQL's planner does a subquery in FROM: the outer query's
// conjuncts move into it and its One-Time Filter merges with the outer
// one in PostgreSQL's order (pushdown.go gate). Computed apart, the CTE
// answered no rows under `WHERE false` where PostgreSQL evaluates the
// CTE's gate first and fails (21000). A reference this does not reach
// (inside a scalar subquery, a lateral join) leaves the CTE as it is.
func inlineCTEs(rel plan.Rel, md *plan.Metadata) plan.Rel {
	w, ok := rel.(*plan.With)
	if !ok {
		return rebuild(rel, func(r plan.Rel) plan.Rel { return inlineCTEs(r, md) })
	}
	body := inlineCTEs(w.Body, md)
	ctes := append([]*plan.CTE(nil), w.CTEs...)
	var keep []*plan.CTE
	for i, cte := range ctes {
		if cte.Refs != 1 || cte.Materialized || plan.Recursive(cte.Plan) != nil || relVolatile(cte.Plan) || readsUndefined(cte.Plan) {
			keep = append(keep, cte)
			continue
		}
		n := 0
		in := func(r plan.Rel) plan.Rel { return replaceRef(r, cte, md, &n) }
		nb := in(body)
		later := make([]plan.Rel, len(ctes)-i-1)
		for j, c := range ctes[i+1:] {
			later[j] = in(c.Plan)
		}
		if n != 1 {
			keep = append(keep, cte)
			continue
		}
		body = nb
		for j, c := range ctes[i+1:] {
			// In place, as prune rewrites a CTE's plan: the CTERefs
			// reaching c point to this *plan.CTE. A copy here left
			// them on the plan before the rewrite, which the executor
			// then ran unpruned and unoptimized (every column of its
			// scans, a type sql/exec lacks among them) while EXPLAIN
			// showed the copy.
			c.Plan = later[j]
		}
	}
	if len(keep) == 0 {
		return body
	}
	return &plan.With{CTEs: keep, Body: body}
}

// replaceRef is rel with its references to cte (counted in n) replaced
// by cte's plan, its columns renamed to the reference's.
func replaceRef(rel plan.Rel, cte *plan.CTE, md *plan.Metadata, n *int) plan.Rel {
	if ref, ok := rel.(*plan.CTERef); ok {
		if ref.CTE != cte {
			return rel
		}
		*n++
		p := &plan.Project{Input: cte.Plan, Cols: ref.Cols}
		for _, id := range cte.Cols {
			p.Exprs = append(p.Exprs, &plan.ColRef{ID: id, T: md.Column(id).Type})
		}
		return p
	}
	if _, ok := rel.(*plan.With); ok {
		return rel // a nested WITH: its own level (inlineCTEs ran there)
	}
	return rebuild(rel, func(r plan.Rel) plan.Rel { return replaceRef(r, cte, md, n) })
}

// relVolatile says whether an expression of rel or of its inputs (or of
// their subqueries) calls a volatile function.
func relVolatile(rel plan.Rel) bool {
	for _, e := range plan.AllExprsOf(rel) {
		found := volatile(e)
		plan.Walk(e, func(x plan.Scalar) bool {
			if sq, ok := x.(*plan.Subquery); ok && relVolatile(sq.Plan) {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	for _, in := range rel.Inputs() {
		if relVolatile(in) {
			return true
		}
	}
	return false
}

// readsUndefined says whether rel reads a column no operator of it outputs
// (an outer query's: a CTE inside a correlated subquery).
func readsUndefined(rel plan.Rel) bool {
	var defined, read plan.ColSet
	var visit func(r plan.Rel)
	visit = func(r plan.Rel) {
		for _, id := range r.Columns() {
			defined.Add(id)
		}
		for _, e := range plan.AllExprsOf(r) {
			plan.Walk(e, func(x plan.Scalar) bool {
				switch y := x.(type) {
				case *plan.ColRef:
					read.Add(y.ID)
				case *plan.Subquery:
					for _, id := range y.Outer {
						read.Add(id)
					}
				}
				return true
			})
		}
		for _, in := range r.Inputs() {
			visit(in)
		}
	}
	visit(rel)
	for _, id := range read.Sorted() {
		if !defined.Has(id) {
			return true
		}
	}
	return false
}
