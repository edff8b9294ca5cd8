package sqlfront_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// portalRun is what an extended-protocol exchange received: the rows as
// text, the messages that ended each Execute, the error's SQLSTATE.
type portalRun struct {
	rows []string
	ends []string
	code string
}

// sendMsgs sends msgs and flushes.
func sendMsgs(t *testing.T, c *pgconn.PgConn, msgs ...pgproto3.FrontendMessage) {
	t.Helper()
	for _, m := range msgs {
		c.Frontend().Send(m)
	}
	if err := c.Frontend().Flush(); err != nil {
		t.Fatal(err)
	}
}

// receiveUntil reads messages into run until one of the types in stop.
func receiveUntil(t *testing.T, c *pgconn.PgConn, run *portalRun, stop ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		m, err := c.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%T", m)
		switch x := m.(type) {
		case *pgproto3.DataRow:
			var b strings.Builder
			for _, v := range x.Values {
				b.WriteString(string(v))
				b.WriteByte('|')
			}
			run.rows = append(run.rows, b.String())
		case *pgproto3.ErrorResponse:
			run.code = x.Code
		case *pgproto3.PortalSuspended, *pgproto3.CommandComplete:
			run.ends = append(run.ends, name)
		}
		if slices.Contains(stop, name) {
			return name
		}
	}
}

// fetchInBatches runs q through an unnamed portal, Execute with max_rows
// batch until it completes, then Sync; after the first suspension it
// calls held.
func fetchInBatches(t *testing.T, url, q string, batch uint32, held func()) portalRun {
	t.Helper()
	c, err := pgconn.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var run portalRun
	sendMsgs(t, c, &pgproto3.Parse{Query: q}, &pgproto3.Bind{}, &pgproto3.Execute{MaxRows: batch}, &pgproto3.Flush{})
	for first := true; ; first = false {
		end := receiveUntil(t, c, &run, "*pgproto3.PortalSuspended", "*pgproto3.CommandComplete", "*pgproto3.ErrorResponse")
		if end != "*pgproto3.PortalSuspended" {
			break
		}
		if first && held != nil {
			held()
		}
		sendMsgs(t, c, &pgproto3.Execute{MaxRows: batch}, &pgproto3.Flush{})
	}
	sendMsgs(t, c, &pgproto3.Sync{})
	receiveUntil(t, c, &run, "*pgproto3.ReadyForQuery")
	return run
}

// TestPortalRowsBounded: an Execute with a row limit holds the rows not
// yet sent against memory.query — a result larger than the pool fails
// with 53200 holding nothing (it used to be buffered whole, unbounded);
// within the pool the batches are PostgreSQL's, and the held rows are
// given back at Sync and when the connection closes.
func TestPortalRowsBounded(t *testing.T) {
	r := newRig(t, []string{"public.pr"}, []string{
		"CREATE TABLE pr (id int PRIMARY KEY, v text)",
		"INSERT INTO pr SELECT i, repeat('x', 40) || i FROM generate_series(1, 20000) i",
	})
	small := membudget.NewPool("memory.query", 256<<10)
	smallURL := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: small, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	for _, q := range []string{"SELECT id, v FROM pr", "SELECT * FROM (SELECT id, v FROM pr WHERE id > 0) s"} {
		run := fetchInBatches(t, smallURL, q, 100, nil)
		if run.code != "53200" {
			t.Errorf("%s, Execute max_rows 100 under 256KiB: code %q after %d rows, want 53200", q, run.code, len(run.rows))
		}
		if small.Used() != 0 {
			t.Errorf("%s: %d bytes held after the refusal", q, small.Used())
		}
	}

	roomy := membudget.NewPool("memory.query", 64<<20)
	roomyURL := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: roomy, MaxConnections: 5, StatementTimeout: time.Minute}) + "/app?sslmode=disable"
	for _, q := range []string{"SELECT id, v FROM pr ORDER BY id", "SELECT * FROM (SELECT id, v FROM pr WHERE id % 3 = 0) s ORDER BY v DESC LIMIT 5000"} {
		want := fetchInBatches(t, r.pgURL, q, 700, nil)
		got := fetchInBatches(t, roomyURL, q, 700, func() {
			if roomy.Used() == 0 {
				t.Errorf("%s: a suspended portal's rows are not charged", q)
			}
		})
		if want.code != "" || got.code != "" || !slices.Equal(want.rows, got.rows) || !slices.Equal(want.ends, got.ends) {
			t.Errorf("%s in batches of 700: PostgreSQL %d rows %v %q, sidecar %d rows %v %q", q, len(want.rows), want.ends, want.code, len(got.rows), got.ends, got.code)
		}
		if roomy.Used() != 0 {
			t.Errorf("%s: %d bytes held after Sync", q, roomy.Used())
		}
	}

	// A connection that goes away with a suspended portal gives its
	// rows back.
	c, err := pgconn.Connect(context.Background(), roomyURL)
	if err != nil {
		t.Fatal(err)
	}
	sendMsgs(t, c, &pgproto3.Parse{Query: "SELECT id, v FROM pr"}, &pgproto3.Bind{}, &pgproto3.Execute{MaxRows: 10}, &pgproto3.Flush{})
	var run portalRun
	if end := receiveUntil(t, c, &run, "*pgproto3.PortalSuspended", "*pgproto3.CommandComplete", "*pgproto3.ErrorResponse"); end != "*pgproto3.PortalSuspended" || roomy.Used() == 0 {
		t.Fatalf("want a suspended portal holding rows: %s, %d bytes held", end, roomy.Used())
	}
	c.Close(context.Background())
	for deadline := time.Now().Add(time.Minute); roomy.Used() != 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if roomy.Used() != 0 {
		t.Errorf("%d bytes still held a minute after the connection closed", roomy.Used())
	}
}
