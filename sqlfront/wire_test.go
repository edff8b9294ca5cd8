package sqlfront_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// emptyServer serves SQL over a new, empty mirror (no PostgreSQL needed:
// the protocol tests and the fuzz target only talk the wire protocol).
func emptyServer(t testing.TB, opts sqlfront.Options) *sqlfront.Server {
	t.Helper()
	db, mi, closeMirror := mirrortest.Open(t, t.TempDir())
	t.Cleanup(closeMirror)
	opts.Source = &sqlfront.HistorySource{H: history.New(db, mi), M: mi}
	return serveSQL(t, opts)
}

// rawSession is a connection that completed startup, for writing
// messages by hand.
type rawSession struct {
	c  net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t testing.TB, addr string) *rawSession {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(60 * time.Second))
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "app", "database": "app"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	r := &rawSession{c: c, fe: fe}
	r.until(t, func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ReadyForQuery); return ok })
	return r
}

// until reads messages until stop says so; it fails on an error.
func (r *rawSession) until(t testing.TB, stop func(pgproto3.BackendMessage) bool) {
	t.Helper()
	for {
		m, err := r.fe.Receive()
		if err != nil {
			t.Fatalf("receive: %v", err)
		}
		if stop(m) {
			return
		}
	}
}

// fatalThenEOF reads until an ErrorResponse, wants it FATAL with code,
// then wants the server to close the connection.
func (r *rawSession) fatalThenEOF(t testing.TB, code string) {
	t.Helper()
	var e *pgproto3.ErrorResponse
	for e == nil {
		m, err := r.fe.Receive()
		if err != nil {
			t.Fatalf("want an ErrorResponse %s, got %v", code, err)
		}
		e, _ = m.(*pgproto3.ErrorResponse)
	}
	if e.Code != code || e.Severity != "FATAL" {
		t.Errorf("want FATAL %s, got %s %s: %s", code, e.Severity, e.Code, e.Message)
	}
	if _, err := r.fe.Receive(); err == nil {
		t.Errorf("connection still open after FATAL %s", code)
	}
}

func header(typ byte, length uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{typ}, length)
}

// sessionGoroutines counts the goroutines running a connection.
func sessionGoroutines() (int, string) {
	buf := make([]byte, 4<<20)
	all := string(buf[:runtime.Stack(buf, true)])
	n := 0
	for _, g := range strings.Split(all, "\n\n") {
		if strings.Contains(g, "sqlfront.(*Server).handle") {
			n++
		}
	}
	return n, all
}

// waitSessionsEnd waits (generously) for every connection's goroutine to
// end.
func waitSessionsEnd(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, all := sessionGoroutines()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connection goroutines still running after 30 s:\n%s", n, all)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Issue 21 item 6: twenty clients each claiming a 2 GiB message get
// 08P01 and are closed, without the server allocating for the claim;
// every goroutine ends with its client. (That a body's memory grows only
// as its bytes arrive is TestReadBodyGrowsWithArrivals.)
func TestMessageBounds(t *testing.T) {
	srv := emptyServer(t, sqlfront.Options{MaxConnections: 100, MaxMessageSize: 8 << 20})
	addr := srv.Addr()
	heapInUse := func() uint64 { var ms runtime.MemStats; runtime.GC(); runtime.ReadMemStats(&ms); return ms.HeapInuse }
	heap0 := heapInUse()

	const clients = 20
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := dialRaw(t, addr)
			defer r.c.Close()
			if _, err := r.c.Write(append(header('Q', 1<<31-1), "SELECT 1"...)); err != nil {
				t.Error(err)
				return
			}
			r.fatalThenEOF(t, "08P01")
		}()
	}
	wg.Wait()
	grew := int64(heapInUse()) - int64(heap0)
	t.Logf("%d connections claiming 2 GiB each: heap in use grew by %d KiB", clients, grew>>10)
	if grew > 64<<20 {
		t.Errorf("heap grew by %d MiB for %d 2 GiB claims", grew>>20, clients)
	}

	waitSessionsEnd(t)

	// Startup packets: at most 10,000 bytes, as in PostgreSQL.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	c.Write(binary.BigEndian.AppendUint32(nil, 1<<31-1))
	r := &rawSession{c: c, fe: pgproto3.NewFrontend(c, c)}
	r.fatalThenEOF(t, "08P01")

	// Small messages (Sync, Execute, …) are bounded at 10,000 bytes.
	r = dialRaw(t, addr)
	defer r.c.Close()
	r.c.Write(header('S', 20000))
	r.fatalThenEOF(t, "08P01")

	// An unknown message type closes the connection with 08P01.
	r = dialRaw(t, addr)
	defer r.c.Close()
	r.c.Write(header('z', 4))
	r.fatalThenEOF(t, "08P01")
}

// A Bind whose length is valid but whose content is not gets 08P01 and
// the session goes on (PostgreSQL's "insufficient data left in
// message"), as does a malformed Query.
func TestMalformedBind(t *testing.T) {
	srv := emptyServer(t, sqlfront.Options{})
	r := dialRaw(t, srv.Addr())
	defer r.c.Close()
	r.fe.Send(&pgproto3.Parse{Name: "s", Query: "SELECT $1::int4 + 1"})
	r.flush(t)
	// Bind claiming 5 parameters with 2 bytes of parameter data.
	body := []byte{0, 's', 0} // portal "", statement "s"
	body = binary.BigEndian.AppendUint16(body, 0)
	body = binary.BigEndian.AppendUint16(body, 5)
	body = append(body, 0, 0)
	msg := append(header('B', uint32(4+len(body))), body...)
	msg = append(msg, 'S', 0, 0, 0, 4)
	if _, err := r.c.Write(msg); err != nil {
		t.Fatal(err)
	}
	var got *pgproto3.ErrorResponse
	r.until(t, func(m pgproto3.BackendMessage) bool {
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			got = e
		}
		_, ok := m.(*pgproto3.ReadyForQuery)
		return ok
	})
	if got == nil || got.Code != "08P01" || got.Severity != "ERROR" {
		t.Fatalf("malformed Bind: want ERROR 08P01, got %+v", got)
	}
	// A malformed Query (no terminating NUL) likewise.
	r.c.Write(append(header('Q', 4+3), "abc"...))
	got = nil
	r.until(t, func(m pgproto3.BackendMessage) bool {
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			got = e
		}
		_, ok := m.(*pgproto3.ReadyForQuery)
		return ok
	})
	if got == nil || got.Code != "08P01" {
		t.Fatalf("malformed Query: want 08P01, got %+v", got)
	}
	// The session still answers.
	r.fe.Send(&pgproto3.Bind{PreparedStatement: "s", Parameters: [][]byte{[]byte("41")}})
	r.fe.Send(&pgproto3.Execute{})
	r.fe.Send(&pgproto3.Sync{})
	r.flush(t)
	var row string
	r.until(t, func(m pgproto3.BackendMessage) bool {
		switch m := m.(type) {
		case *pgproto3.DataRow:
			row = string(m.Values[0])
		case *pgproto3.ErrorResponse:
			t.Errorf("after the malformed messages: %s %s", m.Code, m.Message)
		}
		_, ok := m.(*pgproto3.ReadyForQuery)
		return ok
	})
	if row != "42" {
		t.Errorf("after the malformed messages: got %q, want 42", row)
	}
}

// flush sends what the frontend buffered.
func (r *rawSession) flush(t testing.TB) {
	t.Helper()
	if err := r.fe.Flush(); err != nil {
		t.Fatal(err)
	}
}

func asPgErrCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// FuzzSession sends arbitrary bytes to a served session, after a valid
// startup (or, when the input starts with a zero byte, as the startup
// packet itself): the server must answer or close, never hang or crash,
// and the connection's goroutine must end when the client does.
func FuzzSession(f *testing.F) {
	f.Add([]byte("Q\x00\x00\x00\x0dSELECT 1\x00"))
	f.Add([]byte("P\x00\x00\x00\x16\x00SELECT $1::int\x00\x00\x00B\x00\x00\x00\x0e\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00E\x00\x00\x00\x09\x00\x00\x00\x00\x00S\x00\x00\x00\x04"))
	f.Add([]byte("Q\x7f\xff\xff\xffSELECT"))
	f.Add([]byte("\x00\x00\x00\x08\x04\xd2\x16\x2f"))
	f.Add([]byte("\x00\x00\x00\x10\x00\x03\x00\x00user\x00a\x00\x00"))
	srv := emptyServer(f, sqlfront.Options{MaxConnections: 1000, MaxMessageSize: 1 << 16})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := net.DialTimeout("tcp", srv.Addr(), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if len(data) == 0 || data[0] != 0 {
			fe := pgproto3.NewFrontend(c, c)
			fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "app"}})
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Write(data); err != nil {
			return // the server closed first: fine
		}
		c.(*net.TCPConn).CloseWrite()
		// The server must end the conversation: read until EOF.
		if _, err := io.Copy(io.Discard, c); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the server neither answered nor closed within 30 s")
			}
		}
	})
}
