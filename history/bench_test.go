package history

import (
	"flag"
	"io"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

var benchProfile = flag.String("history.cpuprofile", "", "write a CPU profile of TestHistoryBench's timed part")

var benchRows = flag.Int("history.rows", 0, "run TestHistoryBench on a table of this many rows (0: skip)")

// TestHistoryBench measures issue #7's history targets on a table of
// -history.rows rows: a diff of two versions 10k random changes apart
// (time to the first row and to the end, JSON lines), its --stat, and the
// revert of a 10k-row bad DELETE followed by 10k later writes.
//
//	go test ./history -run TestHistoryBench -history.rows 1000000 -v
func TestHistoryBench(t *testing.T) {
	n := *benchRows
	if n == 0 {
		t.Skip("set -history.rows N")
	}
	const changes = 10_000
	f := historytest.NewSized(t, 256<<20) // the store's default cache
	svc := New(f.DB, f.Mirror)
	h := f.BuildRevertHistory(n, changes)
	t.Logf("copy of %d rows: %s; history written in %s", n, h.Copy, h.Total)
	a, b := h.A, h.B
	ctx := t.Context()
	if *benchProfile != "" {
		pf, err := os.Create(*benchProfile)
		if err != nil {
			t.Fatal(err)
		}
		pprof.StartCPUProfile(pf)
		defer func() { pprof.StopCPUProfile(); pf.Close() }()
	}
	w := NewSQLWriter(io.Discard)
	var first time.Duration
	start := time.Now()
	sum, err := svc.Diff(ctx, DiffRequest{From: a, To: b}, func(e *Event) error {
		if first == 0 && e.Type == EventRow {
			first = time.Since(start)
		}
		return w.Write(e)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("diff of %d changes (%d rows differ) in a %d-row table: first row %s, all %s (SQL patch)", changes, sum.Rows, n, first, time.Since(start))
	jw, _ := NewDiffWriter("json", io.Discard)
	start = time.Now()
	if _, err := svc.Diff(ctx, DiffRequest{From: a, To: b}, jw.Write); err != nil {
		t.Fatal(err)
	}
	t.Logf("diff as JSON lines: %s", time.Since(start))
	start = time.Now()
	if _, err := svc.Diff(ctx, DiffRequest{From: a, To: b, Stat: true}, func(*Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	t.Logf("diff --stat: %s", time.Since(start))

	start = time.Now()
	w = NewSQLWriter(io.Discard)
	rs, err := svc.Revert(ctx, RevertRequest{From: h.Before, To: h.Bad}, w.Write)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Logf("revert of a %d-row DELETE with %d later writes: patch of %d statements, %d conflicts, %s", changes, changes, rs.Changes, rs.Conflicts, time.Since(start))
	start = time.Now()
	for range 100 {
		if _, err := svc.Resolve(ctx, "HEAD~20"); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("resolve HEAD~20: %s each", time.Since(start)/100)
}
