package sqlfront_test

import (
	"testing"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
)

// TestLateFilterColCmp: a late filter's comparisons of integer, numeric
// and date columns evaluated on the typed pages' scaled integers
// (vexec_colcmp.go, sql/exec ColCmp) answer as PostgreSQL does — numerics
// of several scales against constants of others (1.5 = 1.50), values
// beyond the typed segment (NaN, ±Infinity, more than 18 digits: left to
// the compiled conjunct), scales too far apart for 64 bits, integers of
// each width against numerics and wider integers, dates (±infinity, far
// future) against dates and against timestamps with and without a time
// of day, column against column with NULLs on either side, the constant
// on either side, and a division after the comparison that guards it —
// over more rows than a parallel scan unit, in memory and cold.
func TestLateFilterColCmp(t *testing.T) {
	setup := []string{
		"CREATE TABLE cc (id int PRIMARY KEY, s smallint, i int, b bigint, n numeric, m numeric(15,2), d date, e date)",
		"INSERT INTO cc SELECT g, (g % 300 - 150)::smallint, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 100 - 50 END, g::bigint * 100000000000 - 2000000000000000, " +
			"CASE WHEN g % 11 = 0 THEN NULL WHEN g % 13 = 0 THEN 'NaN' WHEN g % 17 = 0 THEN 'Infinity' WHEN g % 19 = 0 THEN '-Infinity' " +
			"WHEN g % 23 = 0 THEN 123456789012345678901234.5 WHEN g % 29 = 0 THEN 0.000000000000000000001 * (g % 5) " +
			"WHEN g % 3 = 0 THEN (g % 40) * 0.25 WHEN g % 3 = 1 THEN ((g % 40) * 0.25)::numeric(20,4) ELSE round((g % 40) * 0.25) END, " +
			"(g % 500) * 0.07, " +
			"CASE WHEN g % 31 = 0 THEN NULL WHEN g % 37 = 0 THEN 'infinity' WHEN g % 41 = 0 THEN '-infinity' WHEN g % 43 = 0 THEN '5874897-12-31' ELSE date '1994-01-01' + (g % 1000) END, " +
			"CASE WHEN g % 47 = 0 THEN NULL ELSE date '1994-01-01' + (g % 997) END FROM generate_series(1, 40000) g",
	}
	// The subqueries in FROM keep the statements on sql/exec (a
	// single-table aggregate may take the engine's fast path).
	queries := []string{
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n < 3) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n <= 1.5 AND n >= 1.50) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n = 2.5000) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n <> 2.5) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n > 1000000) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n > 0 AND n < 0.00000000000000000001) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n > 0.000000000000000000003) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE 3 > n) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n BETWEEN 1 AND 5 AND m < 24) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE m between 0.06 - 0.01 and 0.06 + 0.01 AND m < 24) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE m < n) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n >= m AND i < 10) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE i < 10 AND s > -20) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE s >= 100::bigint) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE i > 10.5) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE i = 10.0) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE s < i) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE b > 1000000000000000) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE b < 1234567.891) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE b > m) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE i <> 0 AND 100 / i > 3) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE n > 1 AND 100 / i > 3) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d >= date '1994-03-01' AND d < date '1994-03-01' + interval '1' month) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d > timestamp '1995-06-01 12:00' AND d <= timestamp '1996-01-01') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d < timestamp '1995-06-01 12:00') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d >= timestamp '1995-06-01 12:00') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d = timestamp '1995-06-01 12:00') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d <> timestamp '1995-06-01 12:00') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE timestamp '1995-06-01' <= d AND d <> timestamp '1995-07-01') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d > date 'infinity') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d >= 'infinity') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d < timestamp 'infinity') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d > '-infinity') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d > date '3000-01-01') x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d < e) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE e <= d AND i > 0) x",
		"SELECT count(*), sum(id) FROM (SELECT * FROM cc WHERE d = e) x",
		"SELECT id, n, m, d FROM cc WHERE n > 9 AND d > date '1996-09-20' ORDER BY id",
		"SELECT count(*), sum(n), sum(m) FROM cc a WHERE a.m < 5 AND EXISTS (SELECT 1 FROM cc b WHERE b.id = a.id + 1 AND b.d > a.e)",
		// A join's key filter on the probe side's scan, hashed from the
		// typed segments: integer, bigint and date keys (NULLs among them),
		// a numeric key (left to the compiled filter).
		"SELECT count(*), sum(a.id) FROM cc a JOIN (SELECT * FROM cc WHERE id % 97 = 0) b ON a.i = b.i WHERE a.d > date '1994-06-01'",
		"SELECT count(*), sum(a.id) FROM cc a JOIN (SELECT * FROM cc WHERE id % 89 = 0) b ON a.b = b.b",
		"SELECT count(*), sum(a.id) FROM cc a JOIN (SELECT * FROM cc WHERE id % 83 = 0) b ON a.d = b.e WHERE a.m > 1",
		"SELECT count(*), sum(a.id) FROM cc a JOIN (SELECT * FROM cc WHERE id % 79 = 0) b ON a.n = b.m",
		"SELECT count(*), sum(a.id) FROM cc a WHERE a.e < date '1995-01-01' AND a.i IN (SELECT i FROM cc WHERE id % 101 = 0)",
	}
	t.Run("warm", func(t *testing.T) { lateQueriesCheck(t, newRig(t, []string{"public.cc"}, setup), queries) })
	t.Run("cold", func(t *testing.T) {
		cfg := heap.Config{PageRows: 256, Budget: heap.NewPageBudget(64 << 10)}
		lateQueriesCheck(t, newRigHead(t, head.Options{Heap: cfg}, []string{"public.cc"}, setup), queries)
	})
}
