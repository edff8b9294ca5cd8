package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestPreparedStatementsBounded (issue 21, a hostile client): a
// session's named prepared statements — the protocol's Parse and SQL
// PREPARE — are bounded by its share of memory.query (memory.query over
// sql.max_connections); past it the next one fails with 53200 and keeps
// nothing, Close/DEALLOCATE free their share, the unnamed statement
// replaced at every Parse is not counted, and another session has its
// own share. Before, 100,000 named statements from one connection grew
// the daemon by 630 MB outside any bound, and this test's Parse loop
// never failed.
func TestPreparedStatementsBounded(t *testing.T) {
	r := newRig(t, []string{"public.p"}, []string{
		"CREATE TABLE p (id int PRIMARY KEY, v text)",
		"INSERT INTO p VALUES (1, 'a')",
	})
	// A share of 1 MiB / 4 = 256 KiB: about 35 statements of ~7.5 KB.
	pool := membudget.NewPool("memory.query", 1<<20)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, MaxConnections: 4, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	ctx := context.Background()
	connect := func() *pgconn.PgConn {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	c := connect()

	// The unnamed statement is replaced, not accumulated.
	for i := range 2000 {
		if _, err := c.Prepare(ctx, "", fmt.Sprintf("SELECT v, %d FROM p WHERE id = $1", i), nil); err != nil {
			t.Fatalf("unnamed Parse %d: %v", i, err)
		}
	}

	// Named statements accumulate until the session's share refuses one.
	fill := func(c *pgconn.PgConn, prefix string) int {
		t.Helper()
		for n := 0; n < 10000; n++ {
			_, err := c.Prepare(ctx, fmt.Sprintf("%s%d", prefix, n), fmt.Sprintf("SELECT v, %d FROM p WHERE id = $1", n), nil)
			if err == nil {
				continue
			}
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "53200" {
				t.Fatalf("named Parse %d: %v, want 53200 past the session's share", n, err)
			}
			return n
		}
		t.Fatalf("10,000 named statements kept under a 256 KiB share")
		return 0
	}
	n := fill(c, "s")
	if n < 10 {
		t.Fatalf("only %d named statements kept under a 256 KiB share", n)
	}
	// The refused one kept nothing: its name is free.
	if _, err := c.Exec(ctx, fmt.Sprintf("DEALLOCATE s%d", n)).ReadAll(); err == nil {
		t.Errorf("DEALLOCATE of the refused statement s%d succeeded: it was kept", n)
	}
	// SQL PREPARE counts the same.
	if _, err := c.Exec(ctx, "PREPARE sqlp AS SELECT 1").ReadAll(); err == nil {
		t.Errorf("PREPARE past the share succeeded")
	}
	// Closing and deallocating free the share; then both fit.
	if err := c.Deallocate(ctx, "s0"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "DEALLOCATE s1").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prepare(ctx, "again", "SELECT v FROM p WHERE id = $1", nil); err != nil {
		t.Errorf("Parse after two were closed: %v", err)
	}
	if _, err := c.Exec(ctx, "PREPARE sqlp AS SELECT 1").ReadAll(); err != nil {
		t.Errorf("PREPARE after two were closed: %v", err)
	}
	if _, err := c.Exec(ctx, "DEALLOCATE ALL").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if m := fill(c, "t"); m != n {
		t.Errorf("after DEALLOCATE ALL %d statements fit, %d before", m, n)
	}
	// Another session has its own share.
	if m := fill(connect(), "u"); m != n {
		t.Errorf("a second session kept %d statements, the first %d", m, n)
	}
	if pool.Used() != 0 {
		t.Errorf("memory.query holds %d bytes between statements (prepared statements are not reserved from it)", pool.Used())
	}
}
