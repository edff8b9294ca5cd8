package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestEvaluatorAggRoute: an aggregation over one table the flat plan
// left to the row-at-a-time evaluator (GROUP BY an expression, HAVING
// over one) is planned on sql/exec (aggroute.go): EXPLAIN shows no
// evaluator step, and the answers are PostgreSQL's, over TypedVecAgg's
// table warm and cold (NULL keys and values, NaN, ±Infinity, 24-digit
// numerics, products past int64), text and binary.
func TestEvaluatorAggRoute(t *testing.T) {
	queries := []string{
		"SELECT extract(year FROM d), sum(m), sum(m * (1 - x)), avg(x), count(*) FROM tv GROUP BY 1 ORDER BY 1",
		"SELECT date_trunc('month', d), count(n), sum(n), avg(b), sum(b * x) FROM tv GROUP BY 1 ORDER BY 1",
		"SELECT id % 13, sum(n * b), min(i), max(s) FROM tv GROUP BY id % 13 ORDER BY 1",
		"SELECT upper(g), count(*) FROM tv GROUP BY upper(g) HAVING count(*) > 10 ORDER BY 1",
		"SELECT g IS NULL, sum(x) FILTER (WHERE i > 0), count(DISTINCT i) FROM tv GROUP BY 1 ORDER BY 1",
		"SELECT i / 10 AS k, sum(m) FROM tv WHERE s > 0 GROUP BY k ORDER BY k",
	}
	r := newRig(t, []string{"public.tv"}, typedVecSetup)
	ctx := context.Background()
	conn := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
	defer conn.Close(ctx)
	for _, q := range queries {
		lines, err := resultOf(ctx, conn, "EXPLAIN "+q)
		if err != nil {
			t.Fatalf("EXPLAIN %s: %v", q, err)
		}
		if plan := strings.Join(lines, "\n"); strings.Contains(plan, "evaluator") {
			t.Errorf("%s: planned on the evaluator:\n%s", q, plan)
		}
	}
	lateQueriesCheck(t, r, queries)
	binary := connectMode(t, r.sqlURL, pgx.QueryExecModeExec)
	defer binary.Close(ctx)
	pgb := connectMode(t, r.pgURL, pgx.QueryExecModeExec)
	defer pgb.Close(ctx)
	for _, q := range queries {
		want, werr := resultOf(ctx, pgb, q)
		got, gerr := resultOf(ctx, binary, q)
		if (werr == nil) != (gerr == nil) || strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("%s (extended protocol):\n PostgreSQL %q %v\n sidecar    %q %v", q, want, werr, got, gerr)
		}
	}
}
