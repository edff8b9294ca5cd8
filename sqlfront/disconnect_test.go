package sqlfront_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/internal/testkit/racedetector"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// statementRunning reports whether a session goroutine is executing a
// statement (its stack is inside session.run).
func statementRunning() bool {
	buf := make([]byte, 4<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "sqlfront.(*session).run(") {
			return true
		}
	}
	return false
}

// Issue 21 item 7: a client that disconnects while its statement runs
// stops the statement: a join of 9e8 rows (minutes on the evaluator)
// ends within seconds of the client leaving, and so does its goroutine.
func TestDisconnectCancels(t *testing.T) {
	r := newRig(t, []string{"public.dup"}, []string{
		"CREATE TABLE dup (id int PRIMARY KEY, k int)",
		"INSERT INTO dup SELECT g, 1 FROM generate_series(1, 30000) g",
	})
	srv := serveSQL(t, sqlfront.Options{Source: r.src, StatementTimeout: 10 * time.Minute})
	t.Run("pipelined input stays", func(t *testing.T) {
		// A statement long enough to be watched, with the next messages
		// already sent: the watch peeks, never consumes.
		raw := dialRaw(t, srv.Addr())
		defer raw.c.Close()
		// dialRaw's 60 s deadline is short for a 3M-row join under -race
		// on a loaded machine (CI saw it run out at load 70): a generous
		// ceiling, as every wait here.
		raw.c.SetDeadline(time.Now().Add(5 * time.Minute))
		// The join's size only makes the statement outlast watchAfter
		// (50 ms): under the race detector, ten times slower, a tenth of
		// it does (3M rows took 86 s there at load 65).
		ids, want := 100, "3000000"
		if racedetector.Enabled {
			ids, want = 10, "300000"
		}
		raw.fe.Send(&pgproto3.Query{String: fmt.Sprintf("SELECT count(*) FROM dup a JOIN dup b ON a.k = b.k WHERE a.id <= %d", ids)})
		raw.fe.Send(&pgproto3.Parse{Query: "SELECT $1::int8 + 1"})
		raw.fe.Send(&pgproto3.Bind{Parameters: [][]byte{[]byte("41")}})
		raw.fe.Send(&pgproto3.Execute{})
		raw.fe.Send(&pgproto3.Sync{})
		raw.fe.Send(&pgproto3.Query{String: "SELECT 'after'"})
		raw.flush(t)
		var got []string
		for ready := 0; ready < 3; {
			m, err := raw.fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch m := m.(type) {
			case *pgproto3.DataRow:
				got = append(got, string(m.Values[0]))
			case *pgproto3.ErrorResponse:
				t.Fatalf("%s %s", m.Code, m.Message)
			case *pgproto3.ReadyForQuery:
				ready++
			}
		}
		if strings.Join(got, ",") != want+",42,after" {
			t.Errorf("pipelined results: %v", got)
		}
	})
	for _, q := range []string{
		"SELECT count(*) FROM dup a JOIN dup b ON a.k = b.k",
		"SELECT a.id FROM dup a JOIN dup b ON a.k = b.k WHERE a.id + b.id < 0", // no rows to write
	} {
		t.Run(q, func(t *testing.T) {
			c, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fe := pgproto3.NewFrontend(c, c)
			fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "app"}})
			fe.Send(&pgproto3.Query{String: q})
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for !statementRunning() {
				if ctx.Err() != nil {
					t.Fatal("the statement did not start within a minute")
				}
				time.Sleep(5 * time.Millisecond)
			}
			c.Close()
			left := time.Now()
			for statementRunning() {
				if time.Since(left) > 20*time.Second {
					t.Fatal("the statement still runs 20 s after its client left")
				}
				time.Sleep(10 * time.Millisecond)
			}
			waitSessionsEnd(t)
			t.Logf("the statement and its session ended %v after the client left", time.Since(left).Round(time.Millisecond))
		})
	}
}
