package daemon

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestResyncAPIRejectsBadRequests: POST /api/resync answers a client's
// mistake with a 4xx and a short error, and marks nothing: an unknown
// field (which once resynced every table), a malformed table name (once
// 500), a body over the cap (once read whole and echoed back), a wrong
// method (once 404).
func TestResyncAPIRejectsBadRequests(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, `CREATE TABLE t (id int PRIMARY KEY, v text)`, `INSERT INTO t VALUES (1, 'a')`)
	cfg := testConfig(t, url, "public.t")
	var logs syncBuilder
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, `UPDATE t SET v = 'b' WHERE id = 1`))
	huge := `{"tables":["` + strings.Repeat("x", 3<<20) + `"]}`
	for _, c := range []struct {
		name, method, body string
		code               int
	}{
		{"unknown field", "POST", `{"table":["public.t"]}`, 400},
		{"malformed name", "POST", `{"tables":["a.b.c.d"]}`, 400},
		{"bad character", "POST", `{"tables":["ord-ers"]}`, 400},
		{"unknown table", "POST", `{"tables":["public.nope"]}`, 404},
		{"body over the cap", "POST", huge, 413},
		{"not JSON", "POST", `tables=public.t`, 400},
		{"wrong method", "GET", ``, 405},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), c.method, r.addr+"/api/resync", strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(body), `"error"`) {
			t.Errorf("%s: %d %.300s, want %d with an error", c.name, resp.StatusCode, body, c.code)
		}
		if len(body) > 1024 {
			t.Errorf("%s: a %d-byte error answer echoes the input", c.name, len(body))
		}
	}
	for _, ts := range r.status(t).Tables {
		if ts.State != "ready" {
			t.Errorf("a rejected request marked %s %s", ts.Name, ts.State)
		}
	}
}
