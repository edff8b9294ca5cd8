package bench

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var (
	flagVerifyRows = flag.Int("verify.rows", 0, "run the verify benchmark at this many rows (e.g. 10000000) and write -verify.out; skipped when 0")
	flagVerifyReps = flag.Int("verify.reps", 3, "repetitions for -verify.rows")
	flagVerifyOut  = flag.String("verify.out", "", "write the -verify.rows report (markdown, JSON beside it) here")
	flagVerifyNote = flag.String("verify.note", "", "file holding the interpretation section for -verify.out")
	flagVerifyJSON = flag.String("verify.json", "", "render -verify.out from this raw report (JSON) instead of running")
)

// TestRunVerifySmall runs every cell of the verify benchmark on a small
// table: verify must find exactly the hidden differing rows (RunVerify
// fails otherwise), and the report names every cell and target.
func TestRunVerifySmall(t *testing.T) {
	rep, err := RunVerify(t.Context(), VerifyOptions{Rows: 20_000, Reps: 1, Diffs: []int{1, 10}, Dir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"pg-level0", "verify", "datadiff", "verify-1", "verify-10"} {
		c := rep.Cell(id)
		if c == nil || len(c.Wall) != 1 || c.Wall[0] <= 0 {
			t.Fatalf("cell %s missing or untimed: %+v", id, c)
		}
	}
	if c := rep.Cell("verify-10"); c.Differences != 10 || c.Dirty < 1 || c.Dirty > 10 {
		t.Fatalf("10 hidden changes: %d differences in %d dirty buckets", c.Differences, c.Dirty)
	}
	var buf bytes.Buffer
	if err := WriteVerifyMarkdown(&buf, rep, "go test ./bench -run TestRunVerifySmall", "small run"); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"## Setup", "## Method", "## Results (20000 rows)", "### Targets", "≤ 1.2×", "≥ 3×", "per dirty bucket", "## How to reproduce"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

// TestVerifyFullSize is the benchmark run behind the report:
//
//	go test ./bench -run TestVerifyFullSize -timeout 2h -verify.rows 10000000 \
//	  -verify.out "$PWD/bench/results/verify-<date>.md"
func TestVerifyFullSize(t *testing.T) {
	var rep *VerifyReport
	switch {
	case *flagVerifyJSON != "":
		b, err := os.ReadFile(*flagVerifyJSON)
		if err != nil {
			t.Fatal(err)
		}
		rep = &VerifyReport{}
		if err := json.Unmarshal(b, rep); err != nil {
			t.Fatal(err)
		}
		// Untimed warm-up and final runs were recorded under empty names by
		// an earlier version of RunVerify.
		rep.Cells = slices.DeleteFunc(rep.Cells, func(c *VerifyCell) bool { return c.Name == "" })
	case *flagVerifyRows == 0:
		t.Skip("pass -verify.rows N to run the verify benchmark")
	default:
		var err error
		if rep, err = RunVerify(t.Context(), VerifyOptions{Rows: *flagVerifyRows, Reps: *flagVerifyReps, Logf: t.Logf}); err != nil {
			t.Fatal(err)
		}
	}
	note := "(interpretation not written yet)"
	if *flagVerifyNote != "" {
		b, err := os.ReadFile(*flagVerifyNote)
		if err != nil {
			t.Fatal(err)
		}
		note = string(b)
	}
	cmd := "go test ./bench -run TestVerifyFullSize -timeout 2h -verify.rows " + strconv.Itoa(rep.Rows) + " -verify.reps " + strconv.Itoa(rep.Reps) + " -verify.out \"$PWD/bench/results/" + VerifyResultName(rep.Started) + "\""
	var buf bytes.Buffer
	if err := WriteVerifyMarkdown(&buf, rep, cmd, note); err != nil {
		t.Fatal(err)
	}
	t.Log(buf.String())
	if *flagVerifyOut != "" {
		if err := WriteVerifyFiles(*flagVerifyOut, rep, cmd, note); err != nil {
			t.Fatal(err)
		}
	}
}
