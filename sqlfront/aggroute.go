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
//
// So is an aggregation over a join of two followed tables: the flat
// planner takes `a [INNER|LEFT] JOIN b ON …` with an equality between
// the two tables' columns (selectplan.go planJoin; a comma list, three
// tables, RIGHT/FULL, USING or a join without such an equality it
// refuses, and those reach sql/exec already) and ran every such
// statement on its evaluator: a row-at-a-time hash join on the second
// table's rows, values as stored text, then its row-at-a-time
// aggregate — whatever the aggregates (count, sum, avg, min, max,
// DISTINCT), GROUP BY (columns of either side, expressions), HAVING,
// ORDER BY or LIMIT. On sql/exec the join is a vectorized hash join
// built on the side sql/opt estimates the smaller, the probe side's scan
// filtered by the build keys and decoding typed columns through the
// join (sql/exec joinvec.go), the aggregation a hash aggregation over
// its batches. A statement without an aggregate (rows of a join) is
// routed by joinroute.go; statements for which sql/exec knows no case
// mapping (lower/upper/ILIKE would be refused there on non-ASCII text;
// orderroute.go) keep the flat plan.

// evaluatorAggRoute replans the flat plan just made for n (a SELECT, or
// the SELECT an EXPLAIN shows) on sql/exec when it aggregates one table,
// or a join of two, on the evaluator. declared are the parameter types
// the statement was planned with.
func (pl *planner) evaluatorAggRoute(n *pg.Node, declared []uint32) {
	p := pl.p
	if p.vec != nil || p.agg != nil || p.rows != nil || p.direct || p.copyOut != nil ||
		p.kind != "select" || len(p.aggs) == 0 && !p.grouping || p.inherits() || !pl.asOfPlannable() ||
		p.degenerateGrouping() { // constfold.go: the flat plan reads no row, as PostgreSQL's

		return
	}
	switch {
	case len(p.from) == 1 && p.from[0].table != nil:
		pl.replanOnVec(n, declared) // orderroute.go
	case len(p.from) == 2 && p.from[0].table != nil && p.from[1].table != nil:
		pl.replanCaseMapped(n, declared) // joinroute.go
	}
}
