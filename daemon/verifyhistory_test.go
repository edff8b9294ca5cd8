package daemon

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// logLines is GET /api/log: one JSON line per version, newest first.
func logLines(t *testing.T, base string) []string {
	t.Helper()
	code, body := httpGet(t, base+"/api/log")
	if code != 200 {
		t.Fatalf("/api/log: %d %s", code, body)
	}
	return strings.Split(strings.TrimSpace(body), "\n")
}

// Issue 21 item 10: each verify committed a logical decoding message (its
// catch-up marker) and the mirror recorded it as a version with no row
// change, so `diff HEAD~1 HEAD` after a verify showed nothing. Verify must
// leave history as it was, and the durable LSN still moves past the
// marker (the slot is acknowledged past it; a restart resumes after it).
func TestVerifyLeavesHistoryAsItWas(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE v (id int PRIMARY KEY, x text)", "INSERT INTO v SELECT g, 'x' || g FROM generate_series(1, 100) g")
	cfg := testConfig(t, url, "public.v")
	r := start(t, cfg, io.Discard)
	// Two commits, each durable, so HEAD~1 is a commit too (the first
	// marker may fall inside the copy: see marker).
	for _, sql := range []string{"UPDATE v SET x = 'a' WHERE id = 1", "UPDATE v SET x = 'b' WHERE id = 2"} {
		r.waitDurable(t, marker(t, url, sql))
	}
	before := logLines(t, r.addr)
	if len(before) < 2 {
		t.Fatalf("want the copy and a commit in the log before verifying, got %q", before)
	}
	_, prev := httpGet(t, r.addr+"/api/resolve?ref=HEAD~1")
	_, head := httpGet(t, r.addr+"/api/resolve?ref=HEAD")
	durable0 := mustLSN(t, r.status(t).DurableLSN)

	for i := 0; i < 3; i++ {
		execSQL(t, url, "SELECT pg_catalog.txid_current()") // WAL past the head: verify needs its marker
		if code, b := postVerify(t, r.addr); code != 200 || !strings.Contains(b, `"equal"`) {
			t.Fatalf("verify %d: %d %s", i, code, b)
		}
	}
	after := logLines(t, r.addr)
	if len(after) != len(before) || after[0] != before[0] {
		t.Fatalf("verify changed history: %d versions before, %d after\nnewest before: %s\nnewest after:  %s", len(before), len(after), before[0], after[0])
	}
	if _, p := httpGet(t, r.addr+"/api/resolve?ref=HEAD~1"); p != prev {
		t.Errorf("HEAD~1 after verify: %s, before: %s", p, prev)
	}
	if _, h := httpGet(t, r.addr+"/api/resolve?ref=HEAD"); h != head {
		t.Errorf("HEAD after verify: %s, before: %s", h, head)
	}
	// The markers were taken: durable moved past them, with no version.
	durable1 := mustLSN(t, r.status(t).DurableLSN)
	if durable1 <= durable0 {
		t.Errorf("durable LSN %s did not move past verify's markers (was %s)", durable1, durable0)
	}

	// A restart opens a mirror durable past its last version, resumes
	// after the markers and keeps streaming.
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	if c := slotConfirmed(t, url, cfg.Slot); c < durable1 {
		t.Errorf("slot confirmed %s after a clean stop, below the durable %s", c, durable1)
	}
	r2 := start(t, cfg, io.Discard)
	r2.waitDurable(t, marker(t, url, "UPDATE v SET x = 'c' WHERE id = 3"))
	if got := logLines(t, r2.addr); len(got) != len(before)+1 {
		t.Errorf("after a restart and one commit: %d versions, want %d", len(got), len(before)+1)
	}
}

// postVerify is POST /api/verify with no body (every table).
func postVerify(t *testing.T, base string) (int, string) {
	t.Helper()
	resp, err := http.Post(base+"/api/verify", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
