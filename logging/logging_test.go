package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
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
