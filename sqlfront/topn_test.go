package sqlfront_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestTopNBoundedMemory: ORDER BY … LIMIT k [OFFSET m] keeps only k+m
// rows, on the flat planner's evaluator and on sql/exec, so under a
// memory.query far smaller than the table it answers as PostgreSQL does
// (ties, NULLS FIRST/LAST, DESC, the database's collation), while the
// full sort of the same rows is refused with 53200 on both paths.
func TestTopNBoundedMemory(t *testing.T) {
	r := newRig(t, []string{"public.tn"}, []string{
		"CREATE TABLE tn (id int PRIMARY KEY, note text, g int, f float8)",
		"INSERT INTO tn SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE (CASE i % 3 WHEN 0 THEN 'b' WHEN 1 THEN 'B' ELSE 'a ' END) || (i % 997) END, i % 13, CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 101) / 7.0 END FROM generate_series(1, 20000) i",
	})
	topn := []string{
		// the flat planner's evaluator
		"SELECT * FROM tn ORDER BY note DESC, id LIMIT 1",
		"SELECT * FROM tn ORDER BY note DESC NULLS LAST, id LIMIT 10 OFFSET 5",
		"SELECT id, note FROM tn ORDER BY note NULLS FIRST, id DESC LIMIT 7",
		"SELECT id, g FROM tn ORDER BY g, id LIMIT 20 OFFSET 100",
		"SELECT g FROM tn ORDER BY g DESC LIMIT 30",
		"SELECT f, id FROM tn ORDER BY f DESC NULLS FIRST, id LIMIT 25",
		"SELECT id, note FROM tn WHERE g = 4 ORDER BY note, id LIMIT 12 OFFSET 3",
		"SELECT upper(note), id FROM tn ORDER BY 1, 2 DESC LIMIT 9",
		// sql/exec (a subquery in FROM)
		"SELECT * FROM (SELECT id, note, g FROM tn WHERE id > 0) s ORDER BY note DESC, id LIMIT 1",
		"SELECT * FROM (SELECT id, note FROM tn WHERE g < 7) s ORDER BY note NULLS FIRST, id DESC LIMIT 10 OFFSET 40",
		"SELECT g, f FROM (SELECT g, f, id FROM tn) s ORDER BY f DESC, g LIMIT 15",
		"SELECT g FROM (SELECT g FROM tn) s ORDER BY g LIMIT 33",
	}
	full := []string{
		"SELECT * FROM tn ORDER BY note DESC, id",
		"SELECT * FROM tn ORDER BY note DESC, id LIMIT ALL",
		"SELECT * FROM (SELECT id, note, g FROM tn WHERE id > 0) s ORDER BY note DESC, id",
	}
	pool := membudget.NewPool("memory.query", 256<<10)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	compareWithPostgres(t, r.pgURL, url, topn, nil, "memory.query 256KiB")
	if pool.Used() != 0 {
		t.Errorf("%d bytes still reserved after the top-N statements", pool.Used())
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range full {
		rows, err := conn.Query(ctx, q)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53200" {
			t.Errorf("%s under 256KiB: %v, want 53200", q, err)
		}
		if pool.Used() != 0 {
			t.Errorf("%s: %d bytes still reserved after the statement", q, pool.Used())
		}
	}
	if pk := pool.Peak(); pk > 200<<10 {
		t.Logf("peak %d bytes", pk)
	}
}
