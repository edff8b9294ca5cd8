package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestTypedVecJoin: the integer and numeric columns of a hash join's
// probe side that the aggregation above reads only through its small
// path go from the HEAD's pages typed through the joins (sql/exec
// joinvec.go, ScanRequest.Small) and answer as PostgreSQL does — NULLs,
// NaN, ±Infinity and 24-digit numerics (boxed by the scan), mixed
// scales, products and sums past int64 — through inner, semi, anti, left
// and nested joins, in memory and cold. Each statement is checked to run
// on sql/exec (the intervals keep a two-table join off the evaluator).
func TestTypedVecJoin(t *testing.T) {
	const onExec = " AND b.d > date '1990-01-01' - interval '1 day'"
	queries := []string{
		"SELECT b.g, sum(a.m), sum(a.x), sum(a.m * (1 - a.x)), avg(a.n), sum(a.b), count(*) FROM tv a JOIN tv b ON a.i = b.id WHERE b.id < 60" + onExec + " GROUP BY b.g ORDER BY b.g",
		"SELECT sum(a.n * a.m), sum(a.b * a.x), sum(a.s), avg(a.b) FROM tv a JOIN tv b ON a.id = b.id * 7 WHERE b.id < 3000" + onExec,
		"SELECT a.g, sum(a.n), sum(a.b), avg(a.x) FROM tv a WHERE a.i IN (SELECT id FROM tv WHERE id < 20) GROUP BY a.g ORDER BY 1",
		"SELECT sum(a.m), avg(a.n), sum(a.b), count(*) FROM tv a WHERE NOT EXISTS (SELECT 1 FROM tv b WHERE b.id = a.i AND b.id < 30)",
		"SELECT a.g, sum(a.x), sum(a.n), count(b.id) FROM tv a LEFT JOIN tv b ON a.i = b.id AND b.id < 10" + onExec + " GROUP BY a.g ORDER BY 1",
		"SELECT c.g, sum(a.m * a.x), sum(a.b), sum(a.n) FROM tv a JOIN tv b ON a.i = b.id JOIN tv c ON b.s = c.id WHERE b.id < 40 AND c.id < 200" + onExec + " GROUP BY c.g ORDER BY 1",
		"SELECT b.g, sum(a.n) FILTER (WHERE a.i > 0), sum(a.m), max(a.x), sum(a.x) FROM tv a JOIN tv b ON a.i = b.id WHERE b.id < 45 GROUP BY b.g ORDER BY 1",
	}
	t.Run("plans", func(t *testing.T) {
		r := newRig(t, []string{"public.tv"}, typedVecSetup)
		ctx := context.Background()
		conn := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
		defer conn.Close(ctx)
		for _, q := range queries {
			plan, err := resultOf(ctx, conn, "EXPLAIN "+q)
			if err != nil {
				t.Fatalf("EXPLAIN %s: %v", q, err)
			}
			if p := strings.Join(plan, "\n"); !strings.Contains(p, "vectorized executor") {
				t.Errorf("%s: not on sql/exec:\n%s", q, p)
			}
		}
	})
	typedVecCheck(t, queries)
}
