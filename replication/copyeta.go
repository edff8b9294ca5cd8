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

// CopyETA estimates the time left of one table's copy: the rows left (the
// planner's estimate, pg_class.reltuples, taken in the copy's snapshot,
// minus the rows copied) at the rate of the last Window of progress.
// Without a usable estimate (a table never analyzed, or one that grew
// past it) it falls back to the block ranges left at the pace ranges have
// completed, and to no estimate for a table copied as one range. Feed it
// every report of one table, in order; it is not safe for concurrent use.
type CopyETA struct {
	// Window is the span of recent progress whose rate is used
	// (DefaultETAWindow when zero).
	Window time.Duration

	samples []etaSample
	last    time.Duration
	known   bool
}

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
		e.samples = e.samples[:0]
		return 0, true
	}
	if n := len(e.samples); n > 0 && p.Elapsed < e.samples[n-1].at {
		e.samples = e.samples[:0] // a new copy of the table (a resync)
	}
	window := e.Window
	if window <= 0 {
		window = DefaultETAWindow
	}
	if n := len(e.samples); n == 0 || p.Elapsed > e.samples[n-1].at {
		e.samples = append(e.samples, etaSample{p.Elapsed, p.Rows})
	}
	// Keep the newest sample at least a window old as the window's start.
	for len(e.samples) > 2 && (p.Elapsed-e.samples[1].at >= window || len(e.samples) > etaSamples) {
		e.samples = e.samples[1:]
	}
	var rate float64 // rows per second
	if first := e.samples[0]; len(e.samples) >= 2 && p.Rows > first.rows && p.Elapsed > first.at {
		rate = float64(p.Rows-first.rows) / (p.Elapsed - first.at).Seconds()
	} else if p.Elapsed > 0 && p.Rows > 0 {
		rate = float64(p.Rows) / p.Elapsed.Seconds()
	}
	switch {
	case p.EstimatedRows > p.Rows && rate > 0:
		return time.Duration(float64(p.EstimatedRows-p.Rows) / rate * float64(time.Second)), true
	case p.Ranges > 1 && p.RangesDone > 0 && p.Elapsed > 0:
		return time.Duration(float64(p.Elapsed) * float64(p.Ranges-p.RangesDone) / float64(p.RangesDone)), true
	}
	return 0, false
}
