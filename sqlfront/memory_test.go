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

// TestQueryMemoryRefused53200: a statement whose hash table, sort,
// DISTINCT set or groups would pass memory.query (Options.QueryMemory)
// fails with 53200 and gives its memory back; the same statements with
// room answer as PostgreSQL does.
func TestQueryMemoryRefused53200(t *testing.T) {
	r := newRig(t, []string{"public.big"}, []string{
		"CREATE TABLE big (id int PRIMARY KEY, g int, v text)",
		"INSERT INTO big SELECT i, i % 7, repeat('v', 30) || i FROM generate_series(1, 5000) i",
	})
	stmts := []string{
		"SELECT count(*) FROM big a JOIN big b ON a.id = b.id",
		"SELECT id, v FROM big ORDER BY v DESC",
		"SELECT DISTINCT v FROM big",
		"SELECT v, count(*) FROM big GROUP BY v",
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
	// The session goes on: a statement that needs no working memory runs.
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM big WHERE g = 3").Scan(&n); err != nil || n != 714 {
		t.Errorf("after the refusals: %d, %v", n, err)
	}
	if small.Refused() < int64(len(stmts)) {
		t.Errorf("%d refusals counted, want at least %d", small.Refused(), len(stmts))
	}

	roomy := membudget.NewPool("memory.query", 64<<20)
	roomyURL := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: roomy, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	compareWithPostgres(t, r.pgURL, roomyURL, stmts, nil, "memory.query 64MiB")
	if roomy.Used() != 0 || roomy.Peak() == 0 {
		t.Errorf("roomy pool: used %d after, peak %d", roomy.Used(), roomy.Peak())
	}
}
