package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A WITH inside a correlated subquery (or a LATERAL one) may read the
// outer query's columns: select (with c(x) as (values (t.a)) select x
// from c) from t. Its rows then depend on the outer row, as PostgreSQL
// rescans such a CTE when the values it reads change. cteOuterReads
// finds the outer columns a CTE's plan reads, the CTE is built with
// exactly those readable (another outer column is refused when its
// operators are built), and its rows are computed again whenever their
// values differ from those they were computed for (cteCurrent).

// cteOuterReads are the outer columns (of e.outerOK, while the WITH is
// built) that plan reads in the expressions of its operators, its
// subqueries' correlations and the correlated CTEs it reads.
func (e *env) cteOuterReads(rel plan.Rel) []plan.ColumnID {
	if len(e.outerOK) == 0 {
		return nil
	}
	var read plan.ColSet
	note := func(s plan.Scalar) {
		plan.Walk(s, func(x plan.Scalar) bool {
			switch y := x.(type) {
			case *plan.ColRef:
				if e.outerOK[y.ID] {
					read.Add(y.ID)
				}
			case *plan.Subquery:
				for _, id := range y.Outer {
					if e.outerOK[id] {
						read.Add(id)
					}
				}
			}
			return true
		})
	}
	var visit func(r plan.Rel)
	visit = func(r plan.Rel) {
		for _, x := range plan.ExprsOf(r) {
			if x != nil {
				note(x)
			}
		}
		switch x := r.(type) {
		case *plan.Limit:
			note(x.Count)
			note(x.Offset)
		case *plan.Aggregate:
			for _, a := range x.Aggs {
				note(a.Filter)
			}
		case *plan.CTERef:
			for _, id := range e.cteOuter[x.CTE] {
				read.Add(id)
			}
		}
		for _, in := range r.Inputs() {
			visit(in)
		}
	}
	visit(rel)
	return read.Sorted()
}

// cteCurrent says whether the rows kept for c were computed for the
// current values of the outer columns it reads, and notes those values
// as the ones its next rows are computed for when not.
func (e *env) cteCurrent(c *plan.CTE) bool {
	ids := e.cteOuter[c]
	key := make([]types.Value, len(ids))
	for k, id := range ids {
		key[k] = e.outer[id]
	}
	old, ok := e.cteKey[c]
	same := ok && e.ctes[c] != nil
	for k, id := range ids {
		same = same && sameValue(e.md.Column(id).Type.OID, old[k], key[k])
	}
	if !same {
		e.cteKey[c] = key
	}
	return same
}

// cteReadsOf are the outer columns the correlated CTEs rel reads (in
// it or its subqueries) depend on: a subquery reading one is correlated
// on them even when it names no outer column itself.
func (e *env) cteReadsOf(rel plan.Rel) []plan.ColumnID {
	if len(e.cteOuter) == 0 {
		return nil
	}
	var read plan.ColSet
	var visit func(r plan.Rel)
	visit = func(r plan.Rel) {
		if ref, ok := r.(*plan.CTERef); ok {
			for _, id := range e.cteOuter[ref.CTE] {
				read.Add(id)
			}
		}
		for _, x := range plan.ExprsOf(r) {
			plan.Walk(x, func(s plan.Scalar) bool {
				if sq, ok := s.(*plan.Subquery); ok {
					visit(sq.Plan)
				}
				return true
			})
		}
		for _, in := range r.Inputs() {
			visit(in)
		}
	}
	visit(rel)
	return read.Sorted()
}
