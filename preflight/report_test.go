package preflight

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var sample = Report{Checks: []Check{
	{Name: "connection", Status: OK, Detail: "connected to u@h:5432/db"},
	{Name: "tables", Status: Warn, Detail: "no table has a key.", Fix: "add keys"},
	{Name: "wal_level", Status: Fail, Detail: "wal_level = replica, but logical decoding needs wal_level = logical", Fix: "ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL"},
}}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	if err := sample.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "OK   connection: connected to u@h:5432/db\n" +
		"WARN tables: no table has a key. Fix: add keys\n" +
		"FAIL wal_level: wal_level = replica, but logical decoding needs wal_level = logical. Fix: ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL\n" +
		"not ready: 1 check(s) failed, 1 warning(s)\n"
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestReady(t *testing.T) {
	if sample.Ready() {
		t.Error("report with a Fail is Ready")
	}
	ok := Report{Checks: sample.Checks[:2]}
	if !ok.Ready() {
		t.Error("report with only OK and Warn is not Ready")
	}
	if !(Report{}).Ready() {
		t.Error("empty report is not Ready")
	}
}

// TestJSONShape pins the documented JSON contract.
func TestJSONShape(t *testing.T) {
	b, err := json.Marshal(sample)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"ready": false,
		"checks": []any{
			map[string]any{"name": "connection", "status": "ok", "detail": "connected to u@h:5432/db"},
			map[string]any{"name": "tables", "status": "warn", "detail": "no table has a key.", "fix": "add keys"},
			map[string]any{"name": "wal_level", "status": "fail", "detail": sample.Checks[2].Detail, "fix": sample.Checks[2].Fix},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON = %s\nwant %v", b, want)
	}
	b, err = json.Marshal(Report{})
	if err != nil || string(b) != `{"ready":true,"checks":[]}` {
		t.Errorf("empty report JSON = %s, %v", b, err)
	}
}
