package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// notInAnti is in anti-joined with the rows of a `x NOT IN (subquery)`
// (or `x <> ALL (subquery)`) conjunct p of a filter: nil when p is not
// one this rule takes (correlated, a row comparison, an operand that
// reads no column of in, a volatile one or one with a subquery keep the
// subquery, which holds its rows within the working memory).
//
// As a filter's conjunct, NOT IN keeps a row when it is true: the
// subquery is empty, or x is not NULL, no row of the subquery is NULL
// and none equals x. That is exactly an anti join whose condition is
// `x = y OR x IS NULL OR y IS NULL`: a row is dropped when one row of
// the subquery equals it or either side is NULL, and kept when there
// is no row at all. The condition is the answer whichever way a later
// rule or the executor reads it; the executor recognizes its shape and
// runs it as a null-aware hash anti join on x = y (sql/exec
// joinnull.go), which spills past the working memory as any hash join.
func notInAnti(in plan.Rel, p plan.Scalar) plan.Rel {
	n, ok := p.(*plan.BoolOp)
	var sq *plan.Subquery
	switch {
	case ok && n.Op == "NOT" && len(n.Args) == 1:
		if s, isSub := n.Args[0].(*plan.Subquery); isSub && s.Kind == plan.SubAny && s.Op == "=" {
			sq = s
		}
	default:
		if s, isSub := p.(*plan.Subquery); isSub && s.Kind == plan.SubAll && s.Op == "<>" {
			sq = s
		}
	}
	if sq == nil || len(sq.Outer) > 0 || len(sq.RowLeft) > 0 || sq.Col == nil || len(sq.Plan.Columns()) != 1 {
		return nil
	}
	lcols := plan.ColumnsOf(sq.Left)
	if lcols.Len() == 0 || !lcols.SubsetOf(plan.SetOf(in.Columns())) || hasSubquery(sq.Left) || volatile(sq.Left) {
		return nil
	}
	col := &plan.ColRef{ID: sq.Plan.Columns()[0], T: sq.Col.T}
	return &plan.Join{Kind: plan.AntiJoin, Left: in, Right: sq.Plan, On: plan.NotInCondition(sq.Left, col)}
}
