package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestFormatsAndLevels(t *testing.T) {
	var buf bytes.Buffer
	lg, err := New(&buf, "warn", "json")
	if err != nil {
		t.Fatal(err)
	}
	lg.Info("hidden")
	lg.Warn("shown", "table", "public.t")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one line at warn level, got %q", buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if rec["msg"] != "shown" || rec["table"] != "public.t" || rec["level"] != "WARN" {
		t.Errorf("record %v", rec)
	}

	buf.Reset()
	lg, err = New(&buf, "debug", "text")
	if err != nil {
		t.Fatal(err)
	}
	lg.Debug("dbg", "k", 1)
	if !strings.Contains(buf.String(), "level=DEBUG msg=dbg k=1") {
		t.Errorf("text output %q", buf.String())
	}
	if _, err := New(&buf, "loud", "text"); err == nil {
		t.Error("bad level accepted")
	}
	if _, err := New(&buf, "info", "xml"); err == nil {
		t.Error("bad format accepted")
	}
}

// lsn is an LSN type of its own, as wal.LSN and pglogrepl.LSN are.
type lsn uint64

func (l lsn) String() string { return formatLSN(uint64(l)) }

// TestJSONValues: JSON logs write LSNs as PostgreSQL prints them (X/Y),
// whether the value is an LSN type or a bare integer under an *_lsn key,
// and durations as seconds; the text format writes LSNs the same way.
func TestJSONValues(t *testing.T) {
	var buf bytes.Buffer
	lg, err := New(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	lg.Info("x", "lsn", lsn(0x16_B374D848), "durable_lsn", uint64(0x1_00000010), "took", 1500*time.Millisecond,
		"rows", uint64(7), "other", lsn(0x20))
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("not JSON: %v: %s", err, buf.String())
	}
	for k, want := range map[string]any{"lsn": "16/B374D848", "durable_lsn": "1/10", "took": 1.5, "rows": float64(7)} {
		if rec[k] != want {
			t.Errorf("%s = %#v, want %#v (line %s)", k, rec[k], want, buf.String())
		}
	}
	// A Stringer of another kind, under another key, is the handler's business.
	if rec["other"] != float64(0x20) {
		t.Errorf("other = %#v", rec["other"])
	}

	buf.Reset()
	lg, _ = New(&buf, "info", "text")
	lg.Info("x", "lsn", lsn(0x16_B374D848), "durable_lsn", uint64(0x1_00000010), "took", 1500*time.Millisecond)
	if got := buf.String(); !strings.Contains(got, "lsn=16/B374D848 durable_lsn=1/10 took=1.5s") {
		t.Errorf("text line %q", got)
	}
}
