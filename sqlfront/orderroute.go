package sqlfront

import pg "github.com/pganalyze/pg_query_go/v6"

// A SELECT over one followed table that sorts or removes duplicates
// without aggregating (ORDER BY a column that is not the key, DISTINCT
// of a column, ORDER BY two columns) is a sort or a hash over every row
// on the flat plan's row-at-a-time evaluator: each value converted from
// its stored text, compared as `any`. sql/exec reads the typed pages in
// parallel and sorts typed vectors (spilling past memory.query as the
// evaluator's external sort does), so the statement is planned there
// when sql/exec accepts it, as aggroute.go does for aggregations. The
// answer is the same: both refuse an order among keys that compare
// equal but print differently (sortties.go, sql/exec/sortties.go), and
// among rows whose keys are alike PostgreSQL's order is any order.
// Flat fast paths stay: rows sent as stored in key order (p.direct),
// the engine's row scan in key order (p.rows), a lookup of whole keys;
// so does a statement for which sql/exec knows no case mapping.

// evaluatorOrderRoute replans the flat plan just made for n (a SELECT,
// or the SELECT an EXPLAIN shows) on sql/exec when it sorts or
// deduplicates one table on the evaluator without aggregating.
// declared are the parameter types the statement was planned with.
func (pl *planner) evaluatorOrderRoute(n *pg.Node, declared []uint32) {
	p := pl.p
	if p.vec != nil || p.agg != nil || p.rows != nil || p.direct || p.copyOut != nil || p.kind != "select" ||
		len(p.aggs) > 0 || p.grouping || len(p.order) == 0 && !p.distinct ||
		len(p.from) != 1 || p.from[0].table == nil || len(p.from[0].keyEq) > 0 || p.inherits() || !pl.asOfPlannable() {
		return
	}
	pl.replanCaseMapped(n, declared) // joinroute.go
}

// replanOnVec plans n (a SELECT, or the SELECT an EXPLAIN shows) on
// sql/exec in place of the flat plan, and keeps the flat plan when
// sql/exec refuses it.
func (pl *planner) replanOnVec(n *pg.Node, declared []uint32) {
	if es := n.GetExplainStmt(); es != nil {
		n = es.Query
	}
	if n.GetSelectStmt() == nil {
		return
	}
	saved := *pl
	if err := pl.planVec(n, declared, func(error) error { return errKeepFlat }); err != nil || pl.p.vec == nil || pl.p.vec.query == nil {
		*pl = saved
		return
	}
	pl.p.markNeeded(len(pl.scope))
	pl.p.params = pl.params
}
