package sqlfront

import pg "github.com/pganalyze/pg_query_go/v6"

// An aggregation over one followed table that the flat plan leaves to
// the row-at-a-time evaluator (a GROUP BY expression — extract(year FROM
// d), date_trunc('day', ts) — or anything else the query engine's
// aggregate does not take) is planned on sql/exec when it accepts the
// statement: there the scan decodes the typed pages in parallel and the
// aggregation runs in the scan's workers through the projection that
// computes the key (sql/exec aggpipe.go). TPC-H SF 0.2's lineitem
// grouped by extract(year FROM l_shipdate) took the evaluator 4 s of CPU
// (bench/results/tpch-2026-12-06-s20-pipe.md). Whatever sql/exec
// refuses stays on the flat plan.

// evaluatorAggRoute replans the flat plan just made for n (a SELECT, or
// the SELECT an EXPLAIN shows) on sql/exec when it aggregates one table
// on the evaluator. declared are the parameter types the statement was
// planned with.
func (pl *planner) evaluatorAggRoute(n *pg.Node, declared []uint32) {
	p := pl.p
	if p.vec != nil || p.agg != nil || p.rows != nil || p.direct || p.copyOut != nil ||
		p.kind != "select" || len(p.aggs) == 0 && !p.grouping ||
		len(p.from) != 1 || p.from[0].table == nil || p.inherits() || !pl.asOfPlannable() {
		return
	}
	pl.replanOnVec(n, declared) // orderroute.go
}
