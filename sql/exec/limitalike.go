package exec

import "github.com/sidecar-dev/sidecar/sql/plan"

// A LIMIT over rows that are all alike — every output column a value
// that does not depend on the row (a constant, pg_typeof of a column) —
// keeps the same rows whichever of its input's rows PostgreSQL's plan
// reads first, so it needs no check that the rows kept do not depend
// on the order (limitorder.go), and reading stops once the cut is
// reached: `SELECT pg_typeof(x) FROM users, subscriptions LIMIT 1`
// read the whole cross product (300M rows, 92 s) to prove its one row.
// The input must also be one no row of which can fail (scans without
// a filter, cross and inner joins without a condition, projections of
// columns): PostgreSQL's plan, reading other rows first, could then
// fail where the executor stops before the failing row.

// alikeRows reports whether rel's rows are all alike and reading any
// prefix of its input raises no error.
func alikeRows(rel plan.Rel) bool {
	p, ok := rel.(*plan.Project)
	if !ok {
		return false
	}
	for _, e := range p.Exprs {
		if !rowIndependent(e) {
			return false
		}
	}
	return cannotFail(p.Input)
}

// rowIndependent reports whether s has the same value on every row: a
// constant, pg_typeof of anything (the argument's type), a cast of one.
func rowIndependent(s plan.Scalar) bool {
	switch x := s.(type) {
	case *plan.Const:
		return true
	case *plan.Cast:
		return rowIndependent(x.Arg)
	case *plan.Func:
		return x.Name == "pg_typeof"
	}
	return false
}

// cannotFail reports whether reading rel evaluates nothing that can
// fail: scans without a filter, inner and cross joins without a
// condition, projections of columns.
func cannotFail(rel plan.Rel) bool {
	switch x := rel.(type) {
	case *plan.Scan:
		return x.Filter == nil && x.Key == nil
	case *plan.Join:
		return (x.Kind == plan.CrossJoin || x.Kind == plan.InnerJoin) && constTrue(x.On) && cannotFail(x.Left) && cannotFail(x.Right)
	case *plan.Project:
		for _, e := range x.Exprs {
			if _, ok := e.(*plan.ColRef); !ok {
				return false
			}
		}
		return cannotFail(x.Input)
	}
	return false
}

// constTrue says whether a join condition is absent or the constant true.
func constTrue(s plan.Scalar) bool {
	if s == nil {
		return true
	}
	c, ok := s.(*plan.Const)
	return ok && !c.Null && c.Text == "true"
}
