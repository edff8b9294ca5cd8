package bench

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReportFiles(t *testing.T) {
	t.Parallel()
	type raw struct{ N int }
	path := filepath.Join(t.TempDir(), "new", "dir", "x-2026-11-30.md")
	err := writeReportFiles(path, raw{N: 7}, func(w io.Writer) error {
		_, err := io.WriteString(w, "# report\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if md, err := os.ReadFile(path); err != nil || string(md) != "# report\n" {
		t.Errorf("markdown = %q, %v", md, err)
	}
	if JSONPath(path) != strings.TrimSuffix(path, ".md")+".json" {
		t.Fatalf("JSONPath(%s) = %s", path, JSONPath(path))
	}
	b, err := os.ReadFile(JSONPath(path))
	var back raw
	if err != nil || json.Unmarshal(b, &back) != nil || back.N != 7 || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("raw report = %q, %v", b, err)
	}

	boom := errors.New("boom")
	bad := filepath.Join(t.TempDir(), "bad.md")
	err = writeReportFiles(bad, raw{}, func(io.Writer) error { return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), bad) {
		t.Errorf("render error = %v, want boom naming %s", err, bad)
	}
	if _, err := os.Stat(JSONPath(bad)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("raw report written after the markdown failed: %v", err)
	}
}
