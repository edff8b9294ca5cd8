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

// TestPreparedStatementsBoundedByQueryMemory (issue 21, a hostile
// client): every kept prepared statement — the protocol's named Parse and
// SQL PREPARE — is charged to memory.query; past it the next one fails
// with 53200 and keeps nothing, Close/DEALLOCATE give the charge back,
// the unnamed statement replaced at every Parse is charged once, and the
// connection's end gives back the rest. Before, 100,000 named statements
// from one connection grew the daemon by 630 MB outside any bound, and
// this test's Parse loop never failed.
func TestPreparedStatementsBoundedByQueryMemory(t *testing.T) {
	r := newRig(t, []string{"public.p"}, []string{
		"CREATE TABLE p (id int PRIMARY KEY, v text)",
		"INSERT INTO p VALUES (1, 'a')",
	})
	pool := membudget.NewPool("memory.query", 1<<20)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)

	// The unnamed statement is replaced, not accumulated.
	for i := range 1000 {
		if _, err := c.Prepare(ctx, "", fmt.Sprintf("SELECT v, %d FROM p WHERE id = $1", i), nil); err != nil {
			t.Fatalf("unnamed Parse %d: %v", i, err)
		}
	}
	one := pool.Used()
	if one == 0 || one > 64<<10 {
		t.Fatalf("after 1,000 unnamed Parses: %d bytes charged, want one statement's", one)
	}

	// Named statements accumulate until memory.query refuses one.
	n := 0
	for ; n < 10000; n++ {
		_, err := c.Prepare(ctx, fmt.Sprintf("s%d", n), fmt.Sprintf("SELECT v, %d FROM p WHERE id = $1", n), nil)
		if err == nil {
			continue
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53200" {
			t.Fatalf("named Parse %d: %v, want 53200 past memory.query", n, err)
		}
		break
	}
	if n == 10000 || n < 50 {
		t.Fatalf("%d named statements kept under a 1 MiB memory.query", n)
	}
	full := pool.Used()
	// The refused one kept nothing: its name is free.
	if _, err := c.Exec(ctx, fmt.Sprintf("DEALLOCATE s%d", n)).ReadAll(); err == nil {
		t.Errorf("DEALLOCATE of the refused statement s%d succeeded: it was kept", n)
	}
	// Closing and deallocating give the charge back; then a Parse fits.
	if err := c.Deallocate(ctx, "s0"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "DEALLOCATE s1").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if pool.Used() >= full {
		t.Errorf("after closing two statements: %d bytes charged, %d before", pool.Used(), full)
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
	if got := pool.Used(); got == 0 || got > one {
		t.Errorf("after DEALLOCATE ALL: %d bytes charged, want the unnamed statement's %d", got, one)
	}
	c.Close(ctx)
	for deadline := time.Now().Add(time.Minute); pool.Used() != 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if pool.Used() != 0 {
		t.Errorf("after the connection closed: %d bytes still charged", pool.Used())
	}
}
