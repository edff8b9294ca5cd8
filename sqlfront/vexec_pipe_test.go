package sqlfront_test

import "testing"

// TestTypedVecAggThroughProject: an aggregation reading its scan through
// a projection (GROUP BY an expression, a subquery in FROM) aggregates in
// the parallel scan's workers, which run the projection (sql/exec
// aggpipe.go), the integer and numeric columns it passes through, or
// computes on the small path, handed typed — the answers PostgreSQL
// gives, over TestTypedVecAgg's table of NULLs, NaN, ±Infinity, 24-digit
// values, products past int64 and more groups than a worker keeps, in
// memory and cold.
func TestTypedVecAggThroughProject(t *testing.T) {
	queries := []string{
		"SELECT extract(year FROM d), sum(m), sum(m * (1 - x)), avg(x), count(*) FROM tv WHERE d <= date '1996-06-01' - interval '1 day' GROUP BY 1 ORDER BY 1",
		"SELECT g, sum(v), avg(v), sum(bb), count(*) FROM (SELECT g, m * (1 - x) AS v, b AS bb FROM tv WHERE d > date '1994-02-01' - interval '1 day') s GROUP BY g ORDER BY g",
		"SELECT k, sum(n), avg(nb), sum(nb), count(*) FROM (SELECT id % 13 AS k, n, n * b AS nb FROM tv WHERE d > date '1994-01-15' - interval '1 day') s GROUP BY k ORDER BY k",
		"SELECT date_trunc('month', d), sum(i), sum(s), avg(b), sum(b * x) FROM tv WHERE d > date '1994-01-15' - interval '1 day' GROUP BY 1 ORDER BY 1",
		"SELECT k, sum(v), sum(x), count(v) FROM (SELECT id % 7000 AS k, m * x - 1 AS v, x FROM tv WHERE d > date '1994-01-10' - interval '1 day') s GROUP BY k ORDER BY k LIMIT 30",
		"SELECT upper(g), sum(x), min(x), sum(m) FROM tv WHERE d > date '1994-01-15' - interval '1 day' GROUP BY 1 ORDER BY 1",
	}
	typedVecCheck(t, queries) // vexec_typed_test.go
}
