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

// TestCountDistinctBoundedByQueryMemory: an aggregate's DISTINCT set
// (count(DISTINCT v)) is working memory charged to memory.query: past it
// the statement fails with 53200 and gives its memory back; with room it
// answers as PostgreSQL does. Before, the set grew outside every bound.
func TestCountDistinctBoundedByQueryMemory(t *testing.T) {
	r := newRig(t, []string{"public.big"}, []string{
		"CREATE TABLE big (id int PRIMARY KEY, g int, v text)",
		"INSERT INTO big SELECT i, i % 3, repeat('v', 60) || i FROM generate_series(1, 5000) i",
	})
	stmts := []string{
		"SELECT count(DISTINCT v) FROM big",
		"SELECT g, count(DISTINCT v) FROM big GROUP BY g ORDER BY g",
	}
	small := membudget.NewPool("memory.query", 64<<10)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: small, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range stmts {
		rows, err := conn.Query(ctx, q)
		if err == nil {
			for rows.Next() {
			}
			rows.Close()
			err = rows.Err()
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53200" {
			t.Errorf("%s under 64KiB: %v, want 53200", q, err)
		}
		if small.Used() != 0 {
			t.Errorf("%s: %d bytes still reserved after the statement", q, small.Used())
		}
	}
	roomy := membudget.NewPool("memory.query", 64<<20)
	roomyURL := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: roomy, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	compareWithPostgres(t, r.pgURL, roomyURL, stmts, nil, "memory.query 64MiB")
	if roomy.Used() != 0 || roomy.Peak() == 0 {
		t.Errorf("roomy pool: used %d after, peak %d", roomy.Used(), roomy.Peak())
	}
}
