package daemon

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sidecar-dev/sidecar/metrics"
	"github.com/sidecar-dev/sidecar/replication"
)

// TestCopyProgressETA: a table copied as one range, with the planner's
// estimate, gets an ETA in its log line and in sidecar_copy_eta_seconds
// before it is done (the ETA used to count ranges only, so it stayed
// empty until the one range ended), and 0 once done.
func TestCopyProgressETA(t *testing.T) {
	var logs bytes.Buffer
	d := &daemon{met: metrics.New(), log: slog.New(slog.NewTextHandler(&logs, nil)), opts: Options{ProgressEvery: time.Second}}
	p := replication.CopyProgress{Table: "public.t", Ranges: 1, EstimatedRows: 10000}
	for s := 1; s <= 5; s++ {
		p.Rows, p.Bytes, p.Elapsed = int64(s*100), int64(s*4000), time.Duration(s)*time.Second
		d.copyProgress(p)
	}
	// 9500 rows left at 100 rows/s, then the build of 10000 rows at
	// 1.0 times the COPY's 0.01 s a row (replication.DefaultBuildFactor).
	if !strings.Contains(logs.String(), "estimated_rows=10000 building=false built=0 done=false eta=3m15s") {
		t.Errorf("log lines:\n%s", logs.String())
	}
	eta := d.eta.left.WithLabelValues("public.t")
	if v := testutil.ToFloat64(eta); v != 195 {
		t.Errorf("sidecar_copy_eta_seconds = %v, want 195", v)
	}
	if v := testutil.ToFloat64(d.eta.estimated.WithLabelValues("public.t")); v != 10000 {
		t.Errorf("sidecar_copy_rows_estimated = %v", v)
	}
	if v := testutil.ToFloat64(d.eta.bytes.WithLabelValues("public.t")); v != 20000 {
		t.Errorf("sidecar_copy_bytes = %v, want 20000", v)
	}
	// status shows the rows, bytes and estimate beside the ETA.
	d.mu.Lock()
	if cs := d.copyStatusLocked(); len(cs) != 1 || cs[0].Bytes != 20000 || cs[0].EstimatedRows != 10000 || cs[0].ETASeconds != 195 {
		t.Errorf("status copy = %+v", cs)
	}
	left, ok := d.lastETA("public.t")
	d.mu.Unlock()
	if !ok || left != 195*time.Second {
		t.Errorf("lastETA = %v %v", left, ok)
	}
	p.Rows, p.Done, p.Elapsed = 10000, true, 6*time.Second
	d.copyProgress(p)
	if v := testutil.ToFloat64(eta); v != 0 {
		t.Errorf("sidecar_copy_eta_seconds when done = %v", v)
	}
}
