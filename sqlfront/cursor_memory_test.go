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

// TestCursorRowsBoundedByQueryMemory: a server-side cursor holds its
// unfetched rows, charged to memory.query: one whose rows would pass it is
// refused at DECLARE with 53200 and holds nothing after; within it, FETCH
// gives back what it hands out, and CLOSE, COMMIT (without HOLD) and the
// end of the connection give back the rest. Before, a cursor buffered its
// whole result outside any bound.
func TestCursorRowsBoundedByQueryMemory(t *testing.T) {
	r := newRig(t, []string{"public.big"}, []string{
		"CREATE TABLE big (id int PRIMARY KEY, v text)",
		"INSERT INTO big SELECT i, repeat('v', 100) || i FROM generate_series(1, 5000) i",
	})
	pool := membudget.NewPool("memory.query", 256<<10)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) error { _, err := conn.Exec(ctx, sql); return err }
	must := func(sql string) {
		t.Helper()
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}

	// 5,000 rows of ~110 bytes: past 256KiB.
	must("BEGIN")
	err = exec("DECLARE whole CURSOR FOR SELECT id, v FROM big")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53200" {
		t.Fatalf("DECLARE over 5,000 rows under 256KiB: %v, want 53200", err)
	}
	if pool.Used() != 0 {
		t.Errorf("after the refused DECLARE: %d bytes reserved", pool.Used())
	}
	must("ROLLBACK")

	// 1,000 rows fit; fetching gives their memory back.
	must("BEGIN")
	must("DECLARE part CURSOR FOR SELECT id, v FROM big WHERE id <= 1000")
	full := pool.Used()
	if full == 0 {
		t.Fatalf("a declared cursor of 1,000 rows holds nothing in memory.query")
	}
	rows, err := conn.Query(ctx, "FETCH 600 FROM part")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if rows.Close(); rows.Err() != nil || n != 600 {
		t.Fatalf("FETCH 600: %d rows, %v", n, rows.Err())
	}
	if after := pool.Used(); after >= full/2 || after == 0 {
		t.Errorf("after fetching 600 of 1,000 rows: %d bytes reserved, had %d", after, full)
	}
	must("CLOSE part")
	if pool.Used() != 0 {
		t.Errorf("after CLOSE: %d bytes reserved", pool.Used())
	}
	must("DECLARE tx CURSOR FOR SELECT id FROM big WHERE id <= 100")
	must("COMMIT")
	if pool.Used() != 0 {
		t.Errorf("after COMMIT of a cursor without HOLD: %d bytes reserved", pool.Used())
	}

	// A WITH HOLD cursor outlives the transaction and is given back when
	// the connection ends.
	must("DECLARE held CURSOR WITH HOLD FOR SELECT id, v FROM big WHERE id <= 100")
	if pool.Used() == 0 {
		t.Fatal("a WITH HOLD cursor holds nothing in memory.query")
	}
	conn.Close(ctx)
	deadline := time.Now().Add(time.Minute)
	for pool.Used() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the server notices the end of the connection
	}
	if pool.Used() != 0 {
		t.Errorf("a minute after the connection ended: %d bytes reserved", pool.Used())
	}
}
