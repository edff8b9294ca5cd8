package replication

import (
	"testing"
	"time"
)

// TestCopyETA: the time left is the estimated rows left at the rate of
// the last window (so a copy that slowed down says so), ranges left when
// the table has no usable estimate, nothing for one unestimated range,
// and 0 once done. A table copied as one range used to have no ETA at
// all until it was done.
func TestCopyETA(t *testing.T) {
	sec := func(s int) time.Duration { return time.Duration(s) * time.Second }
	e := &CopyETA{Window: sec(10), BuildFactor: -1} // the COPY phase alone (TestCopyETACoversBuild)
	if _, ok := e.Observe(CopyProgress{Ranges: 1, EstimatedRows: 1000}); ok {
		t.Error("an ETA before any row")
	}
	// 10 rows/s for 20 s, then 2 rows/s: after the window has passed,
	// the ETA follows the slower pace.
	var left time.Duration
	var ok bool
	rows := int64(0)
	for s := 1; s <= 40; s++ {
		if s <= 20 {
			rows += 10
		} else {
			rows += 2
		}
		left, ok = e.Observe(CopyProgress{Rows: rows, Ranges: 1, EstimatedRows: 1000, Elapsed: sec(s)})
		if s == 20 && (!ok || left != sec(80)) { // 800 left at 10/s
			t.Errorf("at 20 s: %v %v, want 80s", left, ok)
		}
	}
	if want := sec((1000 - 240) / 2); !ok || left != want { // 760 left at 2/s
		t.Errorf("after slowing down: %v %v, want %v", left, ok, want)
	}
	if l, k := e.Last(); l != left || !k {
		t.Errorf("Last = %v %v", l, k)
	}
	if left, ok := e.Observe(CopyProgress{Rows: 1000, Done: true, Elapsed: sec(41)}); !ok || left != 0 {
		t.Errorf("done: %v %v", left, ok)
	}

	// No estimate (never analyzed): ranges left at the ranges' pace.
	e = &CopyETA{BuildFactor: -1}
	if left, ok := e.Observe(CopyProgress{Rows: 500, Ranges: 4, RangesDone: 1, Elapsed: sec(10)}); !ok || left != sec(30) {
		t.Errorf("by ranges: %v %v, want 30s", left, ok)
	}
	// Grown past its estimate, one range: nothing honest to say.
	e = &CopyETA{}
	if _, ok := e.Observe(CopyProgress{Rows: 500, Ranges: 1, EstimatedRows: 400, Elapsed: sec(10)}); ok {
		t.Error("an ETA past the estimate with one range")
	}

	// Samples stay bounded however often progress comes.
	e = &CopyETA{Window: time.Hour}
	for i := 1; i <= 10*etaSamples; i++ {
		e.Observe(CopyProgress{Rows: int64(i), Ranges: 1, EstimatedRows: 1 << 40, Elapsed: time.Duration(i) * time.Millisecond})
	}
	if len(e.samples) > etaSamples+1 {
		t.Errorf("%d samples kept", len(e.samples))
	}
}

// TestCopyETAResync: a second copy of the table (a resync, its elapsed
// time starting again) is estimated from its own progress.
func TestCopyETAResync(t *testing.T) {
	e := &CopyETA{BuildFactor: -1}
	e.Observe(CopyProgress{Rows: 900, Ranges: 1, EstimatedRows: 1000, Elapsed: 90 * time.Second})
	e.Observe(CopyProgress{Rows: 1000, Ranges: 1, EstimatedRows: 1000, Elapsed: 100 * time.Second, Done: true})
	e.Observe(CopyProgress{Rows: 10, Ranges: 1, EstimatedRows: 1000, Elapsed: time.Second})
	if left, ok := e.Observe(CopyProgress{Rows: 20, Ranges: 1, EstimatedRows: 1000, Elapsed: 2 * time.Second}); !ok || left != 98*time.Second {
		t.Errorf("resync: %v %v, want 98s (980 rows at 10/s)", left, ok)
	}
}

// TestCopyETACoversBuild: the estimate covers the table's build after
// its last range (the merge into the tree and the in-memory HEAD), not
// only the COPY: before the build reports progress at BuildFactor times
// the COPY's time per row, then at the build's own pace. Before, the
// estimate said "1 s" at the end of a 10M-row COPY whose build then took
// minutes.
func TestCopyETACoversBuild(t *testing.T) {
	sec := func(s int) time.Duration { return time.Duration(s) * time.Second }
	e := &CopyETA{Window: sec(10), BuildFactor: 2}
	// 10 rows/s of an estimated 1000: 0.1 s a row, so the build of 1000
	// rows is estimated at 200 s.
	var left time.Duration
	var ok bool
	for s := 1; s <= 99; s++ {
		left, ok = e.Observe(CopyProgress{Rows: int64(10 * s), Ranges: 1, EstimatedRows: 1000, Elapsed: sec(s)})
		if s == 50 && (!ok || left != sec(50+200)) {
			t.Errorf("half copied: %v %v, want 250s (50 s of COPY, 200 s of build)", left, ok)
		}
	}
	if !ok || left != sec(1+200) {
		t.Errorf("at the end of the COPY: %v %v, want 201s (1 s of COPY, 200 s of build)", left, ok)
	}
	// The build starts: no pace yet, the estimate counts down.
	if left, ok := e.Observe(CopyProgress{Rows: 1000, Ranges: 1, EstimatedRows: 1000, Building: true, Elapsed: sec(100)}); !ok || left != sec(200) {
		t.Errorf("build started: %v %v, want 200s", left, ok)
	}
	if left, ok := e.Observe(CopyProgress{Rows: 1000, Ranges: 1, EstimatedRows: 1000, Building: true, Elapsed: sec(110)}); !ok || left != sec(190) {
		t.Errorf("10 s into the build: %v %v, want 190s", left, ok)
	}
	// Its own pace once it shows one: 10 rows/s over the window.
	e.Observe(CopyProgress{Rows: 1000, Ranges: 1, EstimatedRows: 1000, Building: true, Built: 100, Elapsed: sec(120)})
	if left, ok := e.Observe(CopyProgress{Rows: 1000, Ranges: 1, EstimatedRows: 1000, Building: true, Built: 200, Elapsed: sec(130)}); !ok || left != sec(80) {
		t.Errorf("building at 10 rows/s, 800 left: %v %v, want 80s", left, ok)
	}
	if left, ok := e.Observe(CopyProgress{Rows: 1000, Done: true, Elapsed: sec(200)}); !ok || left != 0 {
		t.Errorf("done: %v %v", left, ok)
	}
	// A build the sink does not report: the prior, never below 0.
	e = &CopyETA{BuildFactor: 1}
	e.Observe(CopyProgress{Rows: 100, Ranges: 1, EstimatedRows: 200, Elapsed: sec(10)})
	if left, ok := e.Observe(CopyProgress{Rows: 200, Ranges: 1, Building: true, Elapsed: sec(20)}); !ok || left != sec(20) {
		t.Errorf("unreported build: %v %v, want 20s", left, ok)
	}
	if left, ok := e.Observe(CopyProgress{Rows: 200, Ranges: 1, Building: true, Elapsed: sec(60)}); !ok || left != 0 {
		t.Errorf("unreported build past its estimate: %v %v, want 0", left, ok)
	}
}

// TestCopyETANotFromFirstRow: the first report of a copy comes with its
// first row, milliseconds in; its average pace (one row in 19 ms) is no
// basis for an estimate (it said 46 hours for a 3M-row copy that took
// 24 s). The estimate waits for a pace over the window, or a second of
// copying.
func TestCopyETANotFromFirstRow(t *testing.T) {
	e := &CopyETA{}
	if left, ok := e.Observe(CopyProgress{Rows: 1, Ranges: 4, EstimatedRows: 3_000_000, Elapsed: 19 * time.Millisecond}); ok {
		t.Errorf("an ETA from the first row: %v", left)
	}
	// A second later, 290k rows: 290k rows/s over the window, 2.71M
	// rows left (9.3 s) plus the build at DefaultBuildFactor times the
	// COPY's time per row (3.5 µs a row).
	left, ok := e.Observe(CopyProgress{Rows: 290_001, Ranges: 4, EstimatedRows: 3_000_000, Elapsed: 1019 * time.Millisecond})
	if !ok || left < 9*time.Second || left > 60*time.Second {
		t.Errorf("a second in: %v %v, want 9-60 s", left, ok)
	}
	// The first row late (the snapshot and the describe slow at load
	// 50): one row in 6 s is no pace either (it said 1,690 hours).
	e = &CopyETA{}
	if left, ok := e.Observe(CopyProgress{Rows: 1, Ranges: 4, EstimatedRows: 1_000_000, Elapsed: 6 * time.Second}); ok {
		t.Errorf("an ETA from a first row 6 s in: %v", left)
	}
	if left, ok := e.Observe(CopyProgress{Rows: 100_001, Ranges: 4, EstimatedRows: 1_000_000, Elapsed: 7 * time.Second}); !ok || left < 9*time.Second || left > 60*time.Second {
		t.Errorf("a second later, 100k rows: %v %v, want 9-60 s", left, ok)
	}
	// One report only, a second or more in: its average pace.
	e = &CopyETA{BuildFactor: -1}
	if left, ok := e.Observe(CopyProgress{Rows: 100, Ranges: 1, EstimatedRows: 300, Elapsed: 2 * time.Second}); !ok || left != 4*time.Second {
		t.Errorf("one report 2 s in: %v %v, want 4s", left, ok)
	}
}
