package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
)

// joinAggSetup: two tables joined on k (NULL keys on both sides, keys
// repeated on both sides, keys only one side has; jb.k is bigint against
// ja.k int) and an empty one.
var joinAggSetup = []string{
	"CREATE TABLE ja (id int PRIMARY KEY, k int, g text, n numeric, m numeric(15,2), d date)",
	"INSERT INTO ja SELECT g, CASE WHEN g % 13 = 0 THEN NULL ELSE g % 400 END, " +
		"CASE WHEN g % 5 = 0 THEN NULL WHEN g % 3 = 0 THEN 'x' ELSE 'y' || (g % 4) END, " +
		"CASE WHEN g % 17 = 0 THEN NULL WHEN g % 101 = 0 THEN 'NaN' ELSE (g % 50) * 0.5 END, " +
		"(g % 300) * 0.07, date '1995-01-01' + (g % 700) FROM generate_series(1, 6000) g",
	"CREATE TABLE jb (id int PRIMARY KEY, k bigint, h text, x numeric)",
	"INSERT INTO jb SELECT g, CASE WHEN g % 11 = 0 THEN NULL ELSE g % 500 END, " +
		"CASE WHEN g % 7 = 0 THEN NULL ELSE 'h' || (g % 6) END, CASE WHEN g % 19 = 0 THEN NULL ELSE (g % 30) * 0.25 END " +
		"FROM generate_series(1, 1500) g",
	"CREATE TABLE je (id int PRIMARY KEY, k int)",
}

// TestEvaluatorJoinAggRoute: an aggregation over a two-table JOIN … ON
// (inner or left) that the flat plan left to its row-at-a-time hash join
// and aggregate is planned on sql/exec (aggroute.go): EXPLAIN shows no
// evaluator step, and the answers are PostgreSQL's warm and cold, text
// and binary: aggregates without GROUP BY, GROUP BY columns of either
// side and expressions, HAVING, DISTINCT aggregates, ORDER BY and
// LIMIT, residual ON conditions, WHERE on either side, NULL and
// repeated keys, keys of different integer types, an empty side.
func TestEvaluatorJoinAggRoute(t *testing.T) {
	queries := []string{
		"SELECT count(*), sum(a.n), sum(b.x), avg(a.m) FROM ja a JOIN jb b ON a.k = b.k",
		"SELECT count(*), count(b.id), sum(b.x) FROM ja a LEFT JOIN jb b ON a.k = b.k",
		"SELECT b.h, count(*), sum(a.m * (1 - b.x)), min(a.d), max(a.g) FROM ja a JOIN jb b ON a.k = b.k GROUP BY b.h ORDER BY b.h",
		"SELECT a.g, count(b.id), sum(b.x), avg(a.n) FROM ja a LEFT JOIN jb b ON a.k = b.k AND b.h <> 'h1' GROUP BY a.g ORDER BY a.g",
		"SELECT c, count(*) FROM (SELECT a.id, count(b.id) AS c FROM ja a LEFT JOIN jb b ON a.k = b.k GROUP BY a.id) s GROUP BY c ORDER BY 2 DESC, 1 DESC",
		"SELECT a.id, count(b.id) AS c FROM ja a LEFT JOIN jb b ON a.k = b.k AND b.x > 3 GROUP BY a.id ORDER BY c DESC, a.id LIMIT 20",
		"SELECT a.k, count(*), sum(b.x) FROM ja a JOIN jb b ON a.k = b.k WHERE a.id < 3000 AND b.h IS NOT NULL GROUP BY a.k HAVING count(*) > 12 ORDER BY a.k",
		"SELECT extract(year FROM a.d), count(DISTINCT b.h), count(DISTINCT a.k), sum(a.m) FROM ja a JOIN jb b ON b.k = a.k GROUP BY 1 ORDER BY 1",
		"SELECT a.k % 7 AS r, sum(b.x) FILTER (WHERE a.g = 'x'), count(*) FROM ja a JOIN jb b ON a.k = b.k AND a.n > b.x GROUP BY r ORDER BY r",
		"SELECT b.k, count(a.id) FROM jb b LEFT JOIN ja a ON a.k = b.k AND a.g = 'y1' GROUP BY b.k ORDER BY 2 DESC, b.k LIMIT 15",
		"SELECT count(*), sum(a.n) FROM ja a JOIN je e ON a.k = e.k",
		"SELECT a.g, count(e.id), count(*) FROM ja a LEFT JOIN je e ON a.k = e.k GROUP BY a.g ORDER BY a.g",
		"SELECT e.k, count(*) FROM je e JOIN ja a ON a.k = e.k GROUP BY e.k",
		"SELECT count(*) FROM je e LEFT JOIN ja a ON a.k = e.k",
		"SELECT a.g, b.h, count(*) FROM ja a JOIN jb b ON a.id = b.id GROUP BY a.g, b.h ORDER BY 1, 2",
		"SELECT sum(a.m), max(b.x) FROM ja a JOIN jb b ON a.id = b.id WHERE a.id = 77",
	}
	t.Run("plans", func(t *testing.T) {
		r := newRig(t, []string{"public.ja", "public.jb", "public.je"}, joinAggSetup)
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
	})
	t.Run("warm", func(t *testing.T) {
		joinAggCheck(t, newRig(t, []string{"public.ja", "public.jb", "public.je"}, joinAggSetup), queries)
	})
	t.Run("cold", func(t *testing.T) {
		cfg := heap.Config{PageRows: 256, Budget: heap.NewPageBudget(64 << 10)}
		joinAggCheck(t, newRigHead(t, head.Options{Heap: cfg}, []string{"public.ja", "public.jb", "public.je"}, joinAggSetup), queries)
	})
}

// joinAggCheck compares queries on r with PostgreSQL's answers over the
// simple and the extended protocol.
func joinAggCheck(t *testing.T, r *rig, queries []string) {
	lateQueriesCheck(t, r, queries)
	ctx := context.Background()
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
