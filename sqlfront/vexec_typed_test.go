package sqlfront_test

import (
	"testing"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
)

// TestTypedVecAgg: the integer and numeric columns a parallel scan hands
// its aggregation workers as scaled integers (vexec_typed.go, sql/exec
// typedvec.go) answer as PostgreSQL does — NULLs, NaN, ±Infinity and
// 24-digit numerics among them (boxed by the scan), numerics of mixed
// scales, products that overflow int64 (the general expression on the
// boxed values), sums past int64, columns read also by a grouping key, a
// FILTER, count or min (not handed typed), and more groups than a worker
// keeps (batches handed on whole, boxed) — in memory and cold.
func TestTypedVecAgg(t *testing.T) {
	// The intervals keep the statements on sql/exec (a single-table
	// aggregate may take the evaluator's path), the aggregation reading
	// the scan directly (a subquery in FROM puts a Project between).
	queries := []string{
		// Q1's shape: numeric products summed and averaged per group.
		"SELECT g, sum(m), sum(x), sum(m * (1 - x)), sum(m * (1 - x) * (1 + x)), avg(m), avg(x), count(*) FROM tv WHERE d <= date '1996-06-01' - interval '1 day' GROUP BY g ORDER BY g",
		"SELECT g, sum(n), avg(n), sum(n * m), count(*) FROM tv WHERE d > date '1994-02-01' - interval '1 day' GROUP BY g ORDER BY g",
		// bigint sums past int64, and products past it (the general path).
		"SELECT sum(b), avg(b), sum(b * m), sum(m * b * x) FROM tv WHERE d > date '1994-03-01' - interval '1 day'",
		"SELECT g, sum(b), sum(b * x) FROM tv WHERE d < date '1996-01-01' - interval '1 day' GROUP BY g ORDER BY g",
		// Columns also read by a FILTER, count, min, a grouping key.
		"SELECT g, sum(m) FILTER (WHERE m > 10), sum(x), sum(n) FROM tv WHERE d > date '1994-01-15' - interval '1 day' GROUP BY g ORDER BY g",
		"SELECT g, count(n), sum(n), sum(x) FROM tv WHERE d > date '1994-01-15' - interval '1 day' GROUP BY g ORDER BY g",
		"SELECT min(b), sum(b), max(i), sum(i) FROM tv WHERE d > date '1994-01-15' - interval '1 day'",
		"SELECT x, sum(x), sum(m), count(*) FROM tv WHERE d > date '1994-01-15' - interval '1 day' GROUP BY x ORDER BY x",
		// More groups than a worker keeps: batches handed on whole.
		"SELECT sum(sm), sum(sx), sum(cnt), count(*) FROM (SELECT id, sum(m * x) AS sm, sum(x) AS sx, count(*) AS cnt FROM tv WHERE d > date '1994-01-10' - interval '1 day' GROUP BY id) y",
		"SELECT id, sm, sx FROM (SELECT id, sum(m * x) AS sm, avg(n) AS sx, sum(b) AS sb FROM tv WHERE d > date '1994-01-10' - interval '1 day' GROUP BY id) y WHERE id % 997 = 0 ORDER BY id",
	}
	typedVecCheck(t, queries)
}

// typedVecSetup is the table of the typed vector tests: 100,000 rows of
// integers and numerics with NULLs, NaN, ±Infinity, 24-digit values and
// mixed scales.
var typedVecSetup = []string{
	"CREATE TABLE tv (id int PRIMARY KEY, s smallint, i int, b bigint, n numeric, m numeric(15,2), x numeric(15,2), g text, d date)",
	"INSERT INTO tv SELECT g, (g % 300 - 150)::smallint, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 100 - 50 END, " +
		"CASE WHEN g % 53 = 0 THEN NULL WHEN g % 5 = 0 THEN 9000000000000000000 - g ELSE g::bigint * 100000000000 - 2000000000000000 END, " +
		"CASE WHEN g % 11 = 0 THEN NULL WHEN g % 1301 = 0 THEN 'NaN' WHEN g % 1709 = 0 THEN 'Infinity' WHEN g % 1907 = 0 THEN '-Infinity' " +
		"WHEN g % 23 = 0 THEN 123456789012345678901234.5 WHEN g % 29 = 0 THEN 0.000000000000000000001 * (g % 5) " +
		"WHEN g % 3 = 0 THEN (g % 40) * 0.25 WHEN g % 3 = 1 THEN ((g % 40) * 0.25)::numeric(20,4) ELSE round((g % 40) * 0.25) END, " +
		"(g % 500) * 0.07, CASE WHEN g % 17 = 0 THEN NULL ELSE (g % 97) * 0.01 END, " +
		"CASE WHEN g % 4 = 0 THEN 'A' WHEN g % 4 = 1 THEN 'N' WHEN g % 4 = 2 THEN 'R' ELSE NULL END, " +
		"date '1994-01-01' + (g % 1000) FROM generate_series(1, 100000) g",
}

// typedVecCheck compares queries over typedVecSetup's table with
// PostgreSQL's answers, the table in memory (warm) and on 256-row pages
// under a 64 KiB budget (cold).
func typedVecCheck(t *testing.T, queries []string) {
	t.Run("warm", func(t *testing.T) { lateQueriesCheck(t, newRig(t, []string{"public.tv"}, typedVecSetup), queries) })
	t.Run("cold", func(t *testing.T) {
		cfg := heap.Config{PageRows: 256, Budget: heap.NewPageBudget(64 << 10)}
		lateQueriesCheck(t, newRigHead(t, head.Options{Heap: cfg}, []string{"public.tv"}, typedVecSetup), queries)
	})
}
