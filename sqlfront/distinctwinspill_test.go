package sqlfront_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestDistinctWindowSpill: DISTINCT aggregates (count, sum, avg,
// array_agg, string_agg with ORDER BY; with and without GROUP BY) and
// window functions (partitioned and not, ROWS, RANGE and GROUPS frames)
// on sql/exec over far more rows than memory.query (1 MiB) write sorted
// runs to temporary files and answer as PostgreSQL does (they failed
// with 53200 before); the pool never passes its limit, the files are
// gone after; a temporary-file cap stops them (53400: they spill), and
// without a temporary directory they are refused (53200) as before.
func TestDistinctWindowSpill(t *testing.T) {
	const limit, fileCap = 1 << 20, 128 << 10
	r := newRig(t, []string{"public.dw"}, []string{
		"CREATE TABLE dw (id int PRIMARY KEY, g int, x int, t text, f float8, n numeric)",
		"INSERT INTO dw SELECT i, i % 7, CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7919) % 30000 END, md5((i % 20000)::text), (i % 5000) / 7.0, (i % 3000) / 4.0 FROM generate_series(1, 40000) i",
	})
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	sub := "(SELECT * FROM dw WHERE id > 0) s"
	stmts := []string{
		"SELECT count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT n), count(DISTINCT t), sum(DISTINCT f) FROM " + sub,
		"SELECT g, count(DISTINCT t), avg(DISTINCT x), count(*) FROM " + sub + " GROUP BY g ORDER BY g",
		"SELECT x % 300 AS b, array_agg(DISTINCT g ORDER BY g DESC), string_agg(DISTINCT left(t, 3), ',' ORDER BY left(t, 3)), count(DISTINCT t) FROM " + sub + " WHERE x IS NOT NULL GROUP BY 1 ORDER BY 1",
		"SELECT id, row_number() OVER (PARTITION BY g ORDER BY id), rank() OVER (PARTITION BY g ORDER BY x), sum(x) OVER (PARTITION BY g ORDER BY id) FROM " + sub + " ORDER BY id",
		"SELECT id, sum(f) OVER (ORDER BY id), count(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) FROM " + sub + " ORDER BY id",
		"SELECT id, sum(x) OVER (PARTITION BY id % 400 ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING), lag(t) OVER (PARTITION BY id % 400 ORDER BY id), count(*) OVER (PARTITION BY id % 400 ORDER BY g GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM " + sub + " ORDER BY id",
	}
	pool := membudget.NewPool("memory.query", limit)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, TempDir: tmp, MaxConnections: 5, StatementTimeout: 5 * time.Minute}) + "/app?sslmode=disable"
	compareWithPostgres(t, r.pgURL, url, stmts, nil, "memory.query 1 MiB, spilling")
	if pool.Used() != 0 || pool.Peak() > limit {
		t.Errorf("pool: %d bytes held after, peak %d", pool.Used(), pool.Peak())
	}
	waitTempEmpty(t, tmp, "after the spilling statements")

	ctx := context.Background()
	check := func(opts sqlfront.Options, want, what string) {
		conn, err := pgx.Connect(ctx, "postgres://app@"+r.serve(t, opts)+"/app?sslmode=disable")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		for _, q := range []string{stmts[0], stmts[1], stmts[3], stmts[4]} {
			if code, err := sortCode(ctx, conn, q); code != want {
				t.Errorf("%s: %s: %v, want %s", what, q, err, want)
			}
		}
	}
	check(sqlfront.Options{QueryMemory: membudget.NewPool("memory.query", limit), MaxConnections: 5, StatementTimeout: time.Minute},
		"53200", "without a temporary directory")
	check(sqlfront.Options{QueryMemory: membudget.NewPool("memory.query", limit), TempDir: tmp, TempFileLimit: fileCap, MaxConnections: 5, StatementTimeout: time.Minute},
		"53400", "past a temporary-file cap")
	waitTempEmpty(t, tmp, "after 53400")
}
