package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestPortalsAndCursorsBounded (issue 21, a hostile client): named
// portals bound without a Sync that closes them (inside a transaction
// block, or no Sync at all) and cursors (WITH HOLD ones outlive their
// transaction) are counted against the session's share of memory.query
// with its named prepared statements: past it the Bind or DECLARE fails
// with 53200 and keeps nothing, and closing them frees the share. Before,
// 5,000 Binds of a 100 KB parameter grew one session by 510 MB and
// 20,000 empty WITH HOLD cursors by 128 MB, under a 16 MB share; this
// test's 2,000 Binds and DECLAREs all succeeded.
func TestPortalsAndCursorsBounded(t *testing.T) {
	r := newRig(t, []string{"public.pb"}, []string{
		"CREATE TABLE pb (id int PRIMARY KEY, v text)",
		"INSERT INTO pb VALUES (1, 'a')",
	})
	// A share of 1 MiB / 4 = 256 KiB.
	pool := membudget.NewPool("memory.query", 1<<20)
	url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, MaxConnections: 4, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	exec := func(sql string) error {
		_, err := c.Exec(ctx, sql).ReadAll()
		return err
	}
	if _, err := c.Prepare(ctx, "s", "SELECT length($1::text)", nil); err != nil {
		t.Fatal(err)
	}
	param := []byte(strings.Repeat("x", 10000))
	// bindUntilRefused binds new portal names, one Bind and Flush at a
	// time, until one is refused; it returns how many were kept.
	bindUntilRefused := func(prefix string) int {
		t.Helper()
		fe := c.Frontend()
		for n := 0; n < 2000; n++ {
			fe.Send(&pgproto3.Bind{DestinationPortal: fmt.Sprintf("%s%d", prefix, n), PreparedStatement: "s", Parameters: [][]byte{param}})
			fe.Send(&pgproto3.Flush{})
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch m := msg.(type) {
			case *pgproto3.BindComplete:
			case *pgproto3.ErrorResponse:
				if m.Code != "53200" {
					t.Fatalf("Bind %d: %s %s, want 53200 past the session's share", n, m.Code, m.Message)
				}
				// Sync: the error ends the extended-protocol exchange.
				fe.Send(&pgproto3.Sync{})
				if err := fe.Flush(); err != nil {
					t.Fatal(err)
				}
				for {
					msg, err := fe.Receive()
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
						return n
					}
				}
			default:
				t.Fatalf("Bind %d: %T", n, msg)
			}
		}
		t.Fatalf("2,000 named portals of 10 KB kept under a 256 KiB share")
		return 0
	}

	// Inside a transaction block a Sync does not close them.
	if err := exec("BEGIN"); err != nil {
		t.Fatal(err)
	}
	n := bindUntilRefused("p")
	if n < 5 {
		t.Fatalf("only %d portals of 10 KB under a 256 KiB share", n)
	}
	// The transaction ends: its portals close and free the share.
	if err := exec("ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if m := bindUntilRefused("q"); m < n-1 {
		t.Errorf("after ROLLBACK: %d portals kept, %d before: the share was not freed", m, n)
	}

	// Cursors WITH HOLD outlive the transaction; past the share DECLARE
	// fails with 53200 and keeps nothing.
	declared := 0
	for ; declared < 2000; declared++ {
		err := exec(fmt.Sprintf("DECLARE c%d CURSOR WITH HOLD FOR SELECT id, v FROM pb WHERE id < 0", declared))
		if err == nil {
			continue
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53200" {
			t.Fatalf("DECLARE %d: %v, want 53200 past the session's share", declared, err)
		}
		break
	}
	if declared == 2000 || declared < 5 {
		t.Fatalf("%d empty WITH HOLD cursors kept under a 256 KiB share", declared)
	}
	if err := exec(fmt.Sprintf("FETCH ALL FROM c%d", declared)); err == nil {
		t.Errorf("the refused cursor c%d was kept", declared)
	}
	if err := exec("CLOSE ALL"); err != nil {
		t.Fatal(err)
	}
	if err := exec("DECLARE again CURSOR WITH HOLD FOR SELECT id FROM pb"); err != nil {
		t.Errorf("DECLARE after CLOSE ALL: %v", err)
	}
	// The session and the server answer on.
	res := c.ExecParams(ctx, "SELECT v FROM pb WHERE id = 1", nil, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "a" {
		t.Errorf("after: %v %q", res.Err, res.Rows)
	}
}
