package sqlfront

import pg "github.com/pganalyze/pg_query_go/v6"

// The rows of a join of two followed tables (`SELECT … FROM a [LEFT]
// JOIN b ON a.k = b.k WHERE … ORDER BY …`, no aggregate) are planned on
// sql/exec when it accepts the statement, as aggroute.go does for an
// aggregation over such a join. The flat planner takes the join
// (selectplan.go planJoin) and ran it on its row-at-a-time evaluator: a
// hash table over every row of the second table, values as stored text
// converted per comparison, the WHERE and the select list evaluated
// per pair, then a sort of `any` values. On sql/exec the join is the
// vectorized hash join built on the side sql/opt estimates smaller, the
// probe side's scan filtered by the build keys (sql/exec joinvec.go),
// typed columns decoded once, the sort over typed vectors. The answer
// is the same: both refuse an order among keys that compare equal but
// print differently (sortties.go), and without ORDER BY PostgreSQL's
// order is any order. A LIMIT or OFFSET over such a join is refused by
// the flat planner unless EXPLAINed (limitorder.go) and reaches sql/exec
// already, which refuses it at run time when the rows it picks depend on
// PostgreSQL's read order (sql/exec limitorder.go). A statement for
// which sql/exec knows no case mapping keeps the flat plan
// (orderroute.go).

// evaluatorJoinRoute replans the flat plan just made for n (a SELECT,
// or the SELECT an EXPLAIN shows) on sql/exec when it joins two
// followed tables on the evaluator without aggregating. declared are
// the parameter types the statement was planned with.
func (pl *planner) evaluatorJoinRoute(n *pg.Node, declared []uint32) {
	p := pl.p
	if p.vec != nil || p.agg != nil || p.rows != nil || p.direct || p.copyOut != nil || p.kind != "select" ||
		len(p.aggs) > 0 || p.grouping || len(p.from) != 2 || p.from[0].table == nil || p.from[1].table == nil ||
		p.inherits() || !pl.asOfPlannable() {
		return
	}
	pl.replanCaseMapped(n, declared)
}

// replanCaseMapped replans n on sql/exec (replanOnVec) and keeps the
// flat plan when sql/exec would have no case mapping: it maps case with
// one mapping per statement and refuses non-ASCII text when it has none
// (vexec_casemap.go), where the evaluator maps each value under its own
// collation.
func (pl *planner) replanCaseMapped(n *pg.Node, declared []uint32) {
	saved := *pl
	pl.replanOnVec(n, declared)
	if v := pl.p.vec; v != nil && v.caseMap == nil {
		*pl = saved
	}
}
