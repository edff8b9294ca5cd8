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
	e := &CopyETA{Window: sec(10)}
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
	e = &CopyETA{}
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
	e := &CopyETA{}
	e.Observe(CopyProgress{Rows: 900, Ranges: 1, EstimatedRows: 1000, Elapsed: 90 * time.Second})
	e.Observe(CopyProgress{Rows: 1000, Ranges: 1, EstimatedRows: 1000, Elapsed: 100 * time.Second, Done: true})
	e.Observe(CopyProgress{Rows: 10, Ranges: 1, EstimatedRows: 1000, Elapsed: time.Second})
	if left, ok := e.Observe(CopyProgress{Rows: 20, Ranges: 1, EstimatedRows: 1000, Elapsed: 2 * time.Second}); !ok || left != 98*time.Second {
		t.Errorf("resync: %v %v, want 98s (980 rows at 10/s)", left, ok)
	}
}
