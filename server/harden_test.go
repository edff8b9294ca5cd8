package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/server"
)

// hardenFixture serves a small history and one body-taking route through
// a real server: what every malformed request below is sent to.
func hardenFixture(t *testing.T, opts server.Options) string {
	t.Helper()
	f := historytest.New(t)
	svc := history.New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	S := historytest.S
	f.CreateTable(rel, [][]*string{{S("1"), S("a")}, {S("2"), S("b")}})
	f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{S("2"), S("c")}) })
	opts.Addr = "127.0.0.1:0"
	srv, err := server.Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	server.RegisterHistory(srv, svc)
	// A route shaped like POST /api/resync: a list of tables.
	srv.HandleAPI("POST /api/tables", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tables []string `json:"tables"`
		}
		if err := server.DecodeJSON(r, &req); err != nil {
			server.WriteError(w, server.StatusOf(err, http.StatusBadRequest), err)
			return
		}
		server.WriteJSON(w, http.StatusOK, req)
	})
	return serveUntilCleanup(t, srv)
}

// serveUntilCleanup serves s until the test ends and returns its URL.
func serveUntilCleanup(t *testing.T, s *server.Server) string {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + s.Addr()
}

// send makes one request and returns status, Allow header and body.
func send(t *testing.T, method, url string, body io.Reader) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header.Get("Allow"), string(b)
}

// TestAPIRejectsBadRequests: every malformed request is a 4xx with a
// short JSON error that does not echo the input (issue 16 item 4).
func TestAPIRejectsBadRequests(t *testing.T) {
	base := hardenFixture(t, server.Options{})
	long := strings.Repeat("a", 200)
	huge := `{"tables":["` + strings.Repeat("x", 3<<20) + `"]}`
	cases := []struct {
		name, method, path, body string
		code                     int
		allow                    string // wanted Allow header, for 405
	}{
		{"tag ../../x", "POST", "/api/tag", `{"name":"../../x"}`, 400, ""},
		{"tag HEAD", "POST", "/api/tag", `{"name":"HEAD"}`, 400, ""},
		{"tag an LSN", "POST", "/api/tag", `{"name":"0/1234"}`, 400, ""},
		{"tag 200 chars", "POST", "/api/tag", `{"name":"` + long + `"}`, 400, ""},
		{"tag empty name", "POST", "/api/tag", `{"name":""}`, 400, ""},
		{"delete tag bad name", "POST", "/api/tag", `{"name":"../x","delete":true}`, 400, ""},
		{"branch HEAD", "POST", "/api/branch", `{"name":"HEAD"}`, 400, ""},
		{"tag unknown field", "POST", "/api/tag", `{"name":"ok","nmae":"x"}`, 400, ""},
		{"tag two values", "POST", "/api/tag", `{"name":"a1"} {"name":"b1"}`, 400, ""},
		{"tag trailing junk", "POST", "/api/tag", `{"name":"a1"} junk`, 400, ""},
		{"tag empty body", "POST", "/api/tag", ``, 400, ""},
		{"tag not JSON", "POST", "/api/tag", `name=x`, 400, ""},
		{"tag wrong type", "POST", "/api/tag", `{"name":7}`, 400, ""},
		{"tables unknown field", "POST", "/api/tables", `{"table":["public.t"]}`, 400, ""},
		{"tables body over the cap", "POST", "/api/tables", huge, 413, ""},
		{"merge unknown field", "POST", "/api/merge", `{"zzz":1}`, 400, ""},
		{"merge body over the cap", "POST", "/api/merge", huge, 413, ""},
		{"GET a POST route", "GET", "/api/tag", "", 405, "POST"},
		{"DELETE a GET route", "DELETE", "/api/log", "", 405, "GET, HEAD"},
		{"PUT merge", "PUT", "/api/merge", "{}", 405, "POST"},
		{"unknown route", "GET", "/api/" + long, "", 404, ""},
		{"outside the API", "GET", "/" + long, "", 404, ""},
		{"dot-dot out of the API", "GET", "/api/../../etc/passwd", "", 404, ""},
		{"scan without table", "GET", "/api/scan", "", 400, ""},
		{"bad limit", "GET", "/api/scan?table=public.t&limit=-1", "", 400, ""},
		{"bad ref", "GET", "/api/diff?from=HEAD~x&to=HEAD", "", 400, ""},
	}
	for _, c := range cases {
		code, allow, body := send(t, c.method, base+c.path, strings.NewReader(c.body))
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
			t.Errorf("%s: body %.200q is not a JSON error (%v)", c.name, body, err)
		}
		if code != c.code {
			t.Errorf("%s: status %d, want %d: %.300s", c.name, code, c.code, body)
		}
		if c.allow != "" && allow != c.allow {
			t.Errorf("%s: Allow %q, want %q", c.name, allow, c.allow)
		}
		if len(body) > 1024 || strings.Contains(body, long) || strings.Contains(body, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") {
			t.Errorf("%s: the error echoes the input (%d bytes): %.200s", c.name, len(body), body)
		}
	}
	// The good requests still work.
	if code, _, body := send(t, "POST", base+"/api/tables", strings.NewReader(`{"tables":["public.t"]}`)); code != 200 {
		t.Errorf("good tables request: %d %s", code, body)
	}
	if code, _, body := send(t, "POST", base+"/api/tag", strings.NewReader(`{"name":"v1"}`)); code != 201 {
		t.Errorf("good tag: %d %s", code, body)
	}
}

// TestSlowBodyIsCut: a client that sends its headers and then stalls
// in the body is cut after ReadTimeout instead of holding a connection
// and a handler for ever.
func TestSlowBodyIsCut(t *testing.T) {
	base := hardenFixture(t, server.Options{ReadTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"tables\":")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, _ := io.ReadAll(conn) // the answer (400) and then EOF, or just EOF
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("a stalled body held the connection %v (answer %q)", d, resp)
	}
	if bytes.Contains(resp, []byte(" 200 ")) {
		t.Fatalf("a cut body was answered 200: %q", resp)
	}
}

// TestWriteTimeouts: an /api/ answer may compute and stream for longer
// than WriteTimeout (each write gets its own deadline), while a client
// that stops reading is cut after about WriteTimeout.
func TestWriteTimeouts(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s, err := server.Listen(server.Options{Addr: "127.0.0.1:0", WriteTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	s.HandleAPI("GET /api/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * timeout) // computing before the first byte
		server.WriteJSON(w, http.StatusOK, map[string]string{"ok": "yes"})
	})
	s.HandleAPI("GET /api/trickle", func(w http.ResponseWriter, r *http.Request) {
		for i := range 3 {
			if _, err := io.WriteString(w, `{"line":`+string(rune('0'+i))+"}\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(2 * timeout)
		}
	})
	cut := make(chan time.Duration, 1)
	writing := make(chan struct{})
	s.HandleAPI("GET /api/flood", func(w http.ResponseWriter, r *http.Request) {
		line := []byte(strings.Repeat("x", 64<<10) + "\n")
		var start time.Time
		for n := 0; ; n++ {
			if _, err := w.Write(line); err != nil {
				cut <- time.Since(start)
				return
			}
			if n == 0 {
				start = time.Now()
				close(writing)
			}
		}
	})
	base := serveUntilCleanup(t, s)
	if code, _, body := send(t, "GET", base+"/api/slow", nil); code != 200 || !strings.Contains(body, "yes") {
		t.Errorf("an answer computed for 3×WriteTimeout: %d %q", code, body)
	}
	if code, _, body := send(t, "GET", base+"/api/trickle", nil); code != 200 || strings.Count(body, "line") != 3 {
		t.Errorf("a stream longer than WriteTimeout: %d %q", code, body)
	}
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /api/flood HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	<-writing // and never read
	select {
	case d := <-cut:
		t.Logf("a client that stopped reading was cut after %v", d)
	case <-time.After(30 * time.Second):
		t.Fatal("a client that stopped reading held its handler for 30 s")
	}
}
