package sqlfront_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestNotInSpill: `x NOT IN (SELECT y …)` over a followed table whose
// subquery holds far more rows than memory.query (1 MiB) answers as
// PostgreSQL does through the null-aware anti join's partition files
// (sql/exec joinnull.go; before, the subquery's rows were held and it
// failed with 53200): NULL x, NULL y, an empty subquery, <> ALL, beside
// count(DISTINCT) over the table itself. The pool never passes its
// limit, the files are gone after, and without a temporary directory
// the same statements are refused with 53200, never held past it.
// (Compared as multisets where the rows are many; an ORDER BY above the
// spilling join is TestSortOverJoinSpill's.)
func TestNotInSpill(t *testing.T) {
	const limit = 1 << 20
	r := newRig(t, []string{"public.ni"}, []string{
		"CREATE TABLE ni (id int PRIMARY KEY, g int, x int, t text)",
		"INSERT INTO ni SELECT i, i % 7, CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7919) % 60000 END, md5((i % 30000)::text) FROM generate_series(1, 60000) i",
	})
	spilling := []string{
		"SELECT id, x FROM ni WHERE x NOT IN (SELECT id + 3 FROM ni WHERE id % 2 = 0)",
		"SELECT id, g FROM ni WHERE id NOT IN (SELECT x FROM ni WHERE x IS NOT NULL) ORDER BY id",
		"SELECT g, count(*), count(x) FROM ni WHERE t NOT IN (SELECT md5(x::text) FROM ni WHERE x IS NOT NULL) GROUP BY g ORDER BY g",
		"SELECT id FROM ni WHERE x <> ALL (SELECT id * 2 FROM ni)",
		"SELECT count(*) FROM ni WHERE id NOT IN (SELECT CASE WHEN id = 59999 THEN NULL ELSE id + 1 END FROM ni)",
		"SELECT count(DISTINCT x), count(DISTINCT t), sum(DISTINCT x) FROM ni",
	}
	stmts := append([]string{
		"SELECT count(*) FROM ni WHERE id NOT IN (SELECT x FROM ni)",
		"SELECT count(*), count(x) FROM ni WHERE x NOT IN (SELECT id FROM ni WHERE id < 0)",
	}, spilling...)
	compareSpilling(t, r, limit, stmts) // sortjoinspill_test.go

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://app@"+r.serve(t, sqlfront.Options{QueryMemory: membudget.NewPool("memory.query", limit), MaxConnections: 5, StatementTimeout: time.Minute})+"/app?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range spilling {
		if code, err := sortCode(ctx, conn, q); code != "53200" {
			t.Errorf("without a temporary directory: %s: %v, want 53200", q, err)
		}
	}
}
