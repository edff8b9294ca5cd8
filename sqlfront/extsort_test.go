package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/testkit/racedetector"
	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// tempEntries is what the temporary directory holds (its sorts' dirs).
func tempEntries(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// waitTempEmpty waits (a minute at most) for the sorts' files to go.
func waitTempEmpty(t *testing.T, dir, what string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); tempEntries(t, dir) != 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := tempEntries(t, dir); n != 0 {
		t.Errorf("%s: %d entries left in the temporary directory", what, n)
	}
}

// sortCode runs q to its end and returns the SQLSTATE it failed with.
func sortCode(ctx context.Context, conn *pgx.Conn, q string) (string, error) {
	rows, err := conn.Query(ctx, q)
	if err == nil {
		for rows.Next() {
		}
		rows.Close()
		err = rows.Err()
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code, err
	}
	return "", err
}

// TestExternalSort: a full ORDER BY on sql/exec over far more rows than
// memory.query (1MiB) spills sorted runs to the temporary directory,
// merges them and answers as PostgreSQL does (it failed with 53200
// before); the files are gone after success, after a statement_timeout
// and after passing the temporary-file cap (53400).
func TestExternalSort(t *testing.T) {
	// 120,000 rows spill many runs past a 1 MiB budget. Under the race
	// detector (40,000 rows: 256 s at load 40, the race stage's longest
	// test) 10,000 rows and a 256 KiB budget and temporary-file cap: the
	// same ratios of rows to budget and cap (several runs spilled, the
	// cap passed), a quarter of the rows.
	rows, budget := 120000, int64(1<<20)
	if racedetector.Enabled {
		rows, budget = 10000, 256<<10
	}
	r := newRig(t, []string{"public.xs"}, []string{
		"CREATE TABLE xs (id int PRIMARY KEY, note text, g int, f float8, n numeric, d timestamptz)",
		fmt.Sprintf("INSERT INTO xs SELECT i, CASE WHEN i %% 11 = 0 THEN NULL ELSE md5((i %% 5003)::text) END, i %% 13, CASE WHEN i %% 17 = 0 THEN NULL ELSE (i %% 101) / 7.0 END, (i %% 977) / 3.0, timestamptz '2024-01-01 00:00+00' + (i %% 4001) * interval '17 minutes' FROM generate_series(1, %d) i", rows),
	})
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	stmts := []string{
		"SELECT * FROM (SELECT id, note, g, f, n, d FROM xs WHERE id > 0) s ORDER BY note DESC, id",
		"SELECT * FROM (SELECT id, note, f, n FROM xs WHERE g < 9) s ORDER BY f NULLS FIRST, n DESC, id",
		"SELECT * FROM (SELECT id, d, g FROM xs) s ORDER BY d, g DESC, id",
	}
	pool := membudget.NewPool("memory.query", budget)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, TempDir: tmp, MaxConnections: 5, StatementTimeout: 5 * time.Minute}) + "/app?sslmode=disable"
	compareWithPostgres(t, r.pgURL, url, stmts, nil, fmt.Sprintf("memory.query %d bytes, spilling", budget))
	if pool.Used() != 0 || pool.Peak() > budget {
		t.Errorf("pool: %d bytes held after, peak %d", pool.Used(), pool.Peak())
	}
	waitTempEmpty(t, tmp, "after the sorts")

	ctx := context.Background()
	// Without a temporary directory the same sort is refused (53200).
	noSpill := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: membudget.NewPool("memory.query", budget), MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	conn, err := pgx.Connect(ctx, noSpill)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := sortCode(ctx, conn, stmts[0]); code != "53200" {
		t.Errorf("without a temporary directory: %v, want 53200", err)
	}
	conn.Close(ctx)

	// Past the temporary-file cap: 53400, nothing left.
	capped := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: membudget.NewPool("memory.query", budget), TempDir: tmp, TempFileLimit: budget, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	if conn, err = pgx.Connect(ctx, capped); err != nil {
		t.Fatal(err)
	}
	if code, err := sortCode(ctx, conn, stmts[0]); code != "53400" {
		t.Errorf("past a %d-byte temporary-file cap: %v, want 53400", budget, err)
	}
	conn.Close(ctx)
	waitTempEmpty(t, tmp, "after 53400")

	// Cancelled by statement_timeout while it sorts: nothing left.
	if conn, err = pgx.Connect(ctx, url); err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET statement_timeout = '400ms'"); err != nil {
		t.Fatal(err)
	}
	// 960,000 rows (8 × rows; 32 × under -race: 320,000): far past the
	// timeout on any machine (the timeout bounds its cost).
	copies := 8
	if racedetector.Enabled {
		copies = 32
	}
	vals := make([]string, copies)
	for i := range vals {
		vals[i] = fmt.Sprintf("(%d)", i+1)
	}
	slow := "SELECT * FROM (SELECT a.id, a.note, v.x FROM xs a, (VALUES " + strings.Join(vals, ", ") + ") v(x)) s ORDER BY note, id, x"
	if code, err := sortCode(ctx, conn, slow); code != "57014" {
		t.Errorf("under statement_timeout 400ms: %v, want 57014", err)
	}
	waitTempEmpty(t, tmp, "after a cancel")
}
