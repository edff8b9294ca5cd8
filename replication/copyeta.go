// Copy ETA: the time left of one table's copy, from its progress reports.

package replication

import "time"

// DefaultETAWindow is the span of recent progress whose rate [CopyETA]
// extrapolates: long enough to smooth a range boundary, short enough to
// follow a change of pace (a server getting busy, a worker set free).
const DefaultETAWindow = 30 * time.Second

// etaSamples bounds the samples kept (progress comes at most once per
// CopyOptions.ProgressInterval, a second by default, so a 30 s window
// holds about 30).
const etaSamples = 128

// DefaultBuildFactor is how much longer than its COPY phase a table's
// build (its rows merged into the tree, after the last range) takes, per
// row, before the build's own pace is known. It was 3.5 while the
// in-memory HEAD was built after the COPY too (build over COPY phase
// 3.1-5.1, copy-2026-12-06-s18.md); since the HEAD is built during the
// COPY (mirror.CopyIntakeBuilder, session 24) the build after it measured
// 0.83-1.43 times the COPY phase at 1M rows and 0.67 at 10M, load 43-64
// (scale-2026-12-07-s24-copy.md), and the 3.5 made a 1M-row copy's ETA
// 1m19s-1m43s with 45 s left, a 10M-row copy's 28-31 min with 10-12 left.
const DefaultBuildFactor = 1.0

// CopyETA estimates the time left of one table's copy, its build
// included: the rows left (the planner's estimate, pg_class.reltuples,
// taken in the copy's snapshot, minus the rows copied) at the rate of the
// last Window of progress, plus the build of every row at BuildFactor
// times the COPY's time per row. Once the build reports progress
// (CopyProgress.Building) it is the rows left to build at the build's
// own rate. Without a usable estimate (a table never analyzed, or one
// that grew past it) the COPY's part falls back to the block ranges left
// at the pace ranges have completed, and to no estimate for a table
// copied as one range. Feed it every report of one table, in order; it
// is not safe for concurrent use.
type CopyETA struct {
	// Window is the span of recent progress whose rate is used
	// (DefaultETAWindow when zero).
	Window time.Duration
	// BuildFactor is the build's time per row over the COPY's before the
	// build's pace is known (DefaultBuildFactor when zero; negative: the
	// build is not counted).
	BuildFactor float64

	samples []etaSample
	last    time.Duration
	known   bool
	// perRow is the COPY's time per row (its elapsed time over its rows)
	// at its last report; building whether the build has started, at
	// buildStart.
	perRow     float64
	building   bool
	buildStart time.Duration
}

// minETAElapsed is the least elapsed time a copy's average pace is taken
// from before the window shows one: a range's first progress report
// comes with its first row, a few milliseconds into the copy, and a
// pace of one row in those (53 rows/s) made the daemon's first ETA of a
// 3M-row copy 46 hours (copy-2026-12-06-s18.md).
const minETAElapsed = time.Second

type etaSample struct {
	at   time.Duration // CopyProgress.Elapsed
	rows int64
}

// Observe records p and returns the estimated time left; ok is false when
// nothing yet supports an estimate. A done table has 0 left.
func (e *CopyETA) Observe(p CopyProgress) (left time.Duration, ok bool) {
	left, ok = e.estimate(p)
	e.last, e.known = left, ok
	return left, ok
}

// Last is the latest estimate Observe returned.
func (e *CopyETA) Last() (time.Duration, bool) { return e.last, e.known }

func (e *CopyETA) estimate(p CopyProgress) (time.Duration, bool) {
	if p.Done {
		e.samples, e.building = e.samples[:0], false
		return 0, true
	}
	if n := len(e.samples); n > 0 && p.Elapsed < e.samples[n-1].at {
		e.samples, e.building = e.samples[:0], false // a new copy of the table (a resync)
	}
	factor := e.BuildFactor
	if factor == 0 {
		factor = DefaultBuildFactor
	}
	if p.Building {
		return e.buildLeft(p, factor)
	}
	copyLeft, total, rate, ok := e.copyLeft(p)
	if !ok {
		return 0, false
	}
	switch {
	case rate > 0:
		// The COPY's pace now: Elapsed also counts the time before the
		// first row (the snapshot, the describe), which made a 1M-row
		// copy's build 4 min at load 50 a second after its first row.
		e.perRow = 1 / rate
	case p.Rows > 0 && p.Elapsed > 0:
		e.perRow = p.Elapsed.Seconds() / float64(p.Rows)
	}
	if factor < 0 || e.perRow == 0 {
		return copyLeft, true
	}
	return copyLeft + time.Duration(float64(total)*factor*e.perRow*float64(time.Second)), true
}

// buildLeft is the time left of the build: the rows left to build at the
// build's pace over the window, or, before it shows one, every row at
// factor times the COPY's time per row, less the time built so far.
func (e *CopyETA) buildLeft(p CopyProgress, factor float64) (time.Duration, bool) {
	if !e.building {
		e.building, e.buildStart = true, p.Elapsed
		e.samples = e.samples[:0]
	}
	if p.Built >= p.Rows {
		return 0, true
	}
	if rate := e.rate(p.Elapsed, p.Built); rate > 0 && p.Built > 0 {
		return time.Duration(float64(p.Rows-p.Built) / rate * float64(time.Second)), true
	}
	if factor < 0 || e.perRow == 0 {
		return 0, false
	}
	prior := time.Duration(float64(p.Rows) * factor * e.perRow * float64(time.Second))
	return max(0, prior-(p.Elapsed-e.buildStart)), true
}

// copyLeft is the time left of the COPY phase, the rows the table is
// expected to hold, and the rows' pace it used (0: by ranges).
func (e *CopyETA) copyLeft(p CopyProgress) (left time.Duration, total int64, rate float64, ok bool) {
	rate = e.rate(p.Elapsed, p.Rows)
	if rate == 0 && p.Elapsed >= minETAElapsed && p.Rows > 0 && p.Rows*100 >= p.EstimatedRows {
		// Elapsed counts from the copy's start, the snapshot and the
		// describe included: at load 50 a first row came 6 s in, and one
		// row in 6 s made a 1M-row copy's ETA 1,690 hours (session 24).
		// The average pace says something once it covers a share of the
		// rows; before that, the window's rate, from the next report.
		rate = float64(p.Rows) / p.Elapsed.Seconds()
	}
	switch {
	case p.EstimatedRows > p.Rows && rate > 0:
		return time.Duration(float64(p.EstimatedRows-p.Rows) / rate * float64(time.Second)), p.EstimatedRows, rate, true
	case p.Ranges > 1 && p.RangesDone > 0 && p.Elapsed > 0:
		return time.Duration(float64(p.Elapsed) * float64(p.Ranges-p.RangesDone) / float64(p.RangesDone)),
			p.Rows * int64(p.Ranges) / int64(p.RangesDone), 0, true
	}
	return 0, 0, 0, false
}

// rate records (at, n) and returns n's growth per second over the last
// window (0 before two samples apart).
func (e *CopyETA) rate(at time.Duration, n int64) float64 {
	window := e.Window
	if window <= 0 {
		window = DefaultETAWindow
	}
	if k := len(e.samples); k == 0 || at > e.samples[k-1].at {
		e.samples = append(e.samples, etaSample{at, n})
	}
	// Keep the newest sample at least a window old as the window's start.
	for len(e.samples) > 2 && (at-e.samples[1].at >= window || len(e.samples) > etaSamples) {
		e.samples = e.samples[1:]
	}
	if first := e.samples[0]; len(e.samples) >= 2 && n > first.rows && at > first.at {
		return float64(n-first.rows) / (at - first.at).Seconds()
	}
	return 0
}
