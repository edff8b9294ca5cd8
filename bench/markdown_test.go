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

func TestMedianAndPercentile(t *testing.T) {
	t.Parallel()
	xs := []int64{9, 1, 5, 3}
	if got := median(xs); got != 3 {
		t.Errorf("median of an even count = %d, want 3 (the lower middle sample)", got)
	}
	if got := median([]float64{2.5, 0.5, 1.5}); got != 1.5 {
		t.Errorf("median of an odd count = %v, want 1.5", got)
	}
	if got := median[int64](nil); got != 0 {
		t.Errorf("median of none = %d", got)
	}
	for _, tc := range []struct {
		p    float64
		want int64
	}{{0, 1}, {25, 1}, {50, 3}, {75, 5}, {99, 9}, {100, 9}} {
		if got := percentile(xs, tc.p); got != tc.want {
			t.Errorf("percentile(%v, %v) = %d, want %d", xs, tc.p, got, tc.want)
		}
	}
	if xs[0] != 9 || xs[1] != 1 {
		t.Errorf("input sorted in place: %v", xs)
	}
}
