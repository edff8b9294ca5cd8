package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRunProllySmall runs the whole matrix at two small sizes in a temp dir
// and checks that every cell is there with a sane value, so the benchmark
// cannot rot between the long runs.
func TestRunProllySmall(t *testing.T) {
	var progress bytes.Buffer
	o := ProllyOptions{Records: []int{20_000, 30_000}, Dir: t.TempDir(), Reps: 2, Seed: 7, Batch: 2_000, Out: &progress}
	rep, err := RunProlly(t.Context(), o)
	if err != nil {
		t.Fatalf("RunProlly: %v\nprogress:\n%s", err, progress.String())
	}
	if len(rep.Sizes) != 2 {
		t.Fatalf("%d sizes, want 2", len(rep.Sizes))
	}
	for _, s := range rep.Sizes {
		for _, spec := range prollyCells {
			c := s.Cell(spec.id)
			if c == nil {
				// Diff and merge may be skipped, with a reason, while the
				// engine lacks them; nothing else may.
				reason, ok := s.Skipped[spec.id]
				if ok && (strings.HasPrefix(spec.id, "diff/") || strings.HasPrefix(spec.id, "merge/")) {
					t.Logf("%d: %s skipped: %s", s.Records, spec.id, reason)
					continue
				}
				t.Errorf("%d records: cell %s missing", s.Records, spec.id)
				continue
			}
			want := o.Reps
			if spec.id == "build" || spec.id == "scan" {
				want = 1
			}
			if len(c.Samples) != want {
				t.Errorf("%d records: %s has %d samples, want %d", s.Records, spec.id, len(c.Samples), want)
			}
			for _, d := range c.Samples {
				if d <= 0 || d > time.Minute {
					t.Errorf("%d records: %s sample %v not in (0, 1m]", s.Records, spec.id, d)
				}
			}
			if c.Min() > c.Median() || c.Median() > c.Max() {
				t.Errorf("%d records: %s min %v median %v max %v out of order", s.Records, spec.id, c.Min(), c.Median(), c.Max())
			}
		}
		tr := s.Tree
		// 20k rows of ~60 bytes: tens of leaves of a few KiB.
		if tr.Height < 2 || tr.Nodes < 10 || tr.SerializedBytes < int64(s.Records)*(KeySize+ValueSize) {
			t.Errorf("%d records: implausible tree %+v", s.Records, tr)
		}
		if tr.StoredBytes <= 0 || tr.DiskAfterBuild <= 0 || tr.DiskAtEnd < tr.DiskAfterBuild {
			t.Errorf("%d records: implausible sizes %+v", s.Records, tr)
		}
		if tr.PeakRSSBuild <= 0 || tr.PeakRSSRun < tr.PeakRSSBuild && tr.PeakRSSReset {
			t.Errorf("%d records: implausible RSS %+v", s.Records, tr)
		}
	}
	if rs := rep.Ratios(); len(rs) != 2 {
		t.Errorf("ratios %+v, want 2", rs)
	} else {
		for _, r := range rs {
			if !(r.Value > 0) {
				t.Errorf("ratio %s = %v", r.Name, r.Value)
			}
		}
	}

	var md bytes.Buffer
	if err := WriteProllyMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Setup", "## Method", "## Headline metrics", "| cell | ours 20k | ours 30k |", "Random batch, 10k", "## Storage", "## Machine-independent ratios", "## Interpretation", "## How to reproduce", "--records 20000,30000"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("report does not encode as JSON: %v", err)
	}
	t.Logf("progress:\n%s", progress.String())
}
