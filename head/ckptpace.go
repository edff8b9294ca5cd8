package head

import (
	"sync/atomic"
	"time"
)

// Pacing of background checkpoints (issue 24: reads right after a copy).
// The first checkpoint after an initial copy writes every heap page and
// the whole radix index and key store (at 3M rows 3,106 page images in 10
// batches of ≤ 16 MiB and 49 MB of parts; 6–15 s at load 35–55), and its
// goroutines — the encoder, the image writer, Badger's — held the
// process's processors (GOMAXPROCS is the machine's 2) for most of it:
// the reads beside it waited for one (Go scheduling latency p99 42–117
// ms against ≈ 0.1 ms after it), and a point get took 1.5–17 ms instead
// of 0.1–0.3 ms. A background checkpoint is now paced: its encoder rests
// after each stretch of work so that it works at most ckptPaceDuty of the
// wall time, and hands the image writer smaller batches
// (ckptPaceBatchBytes), so neither holds a processor for long, and the
// images written are synced as they go (every ckptPaceSyncBatches
// batches) instead of all by the manifest's sync at the end (ten times as
// much at 30M rows, written back at once, slowing every reader of the
// disk). A paced checkpoint takes at most about 1/ckptPaceDuty its
// unpaced time. Checkpoint (shutdown, tests) is not paced: nothing is
// read then and the owner waits for it; nor is the rest of a paced one
// once Close waits for it.
const (
	// ckptPaceDuty is the share of wall time a paced checkpoint's
	// encoder works.
	ckptPaceDuty = 0.5
	// ckptPaceSlice is the work between two rests.
	ckptPaceSlice = 4 * time.Millisecond
	// ckptPaceBatchBytes is a paced checkpoint's ceiling on the page
	// images handed to the writer at once (heap.WriteOptions.BatchBytes;
	// the unpaced default is heap.CheckpointBatchBytes, 32 MiB).
	ckptPaceBatchBytes = 4 << 20
	// ckptPaceSyncBatches is how many of a paced checkpoint's image
	// batches (half ckptPaceBatchBytes each) are written between two
	// syncs of the store (≈ 32 MiB).
	ckptPaceSyncBatches = 16
)

// ckptPacer spreads one checkpoint's work over time: pace, called after
// each unit of work (a page image encoded, an image part written), sleeps
// once the work since the last rest reaches slice, for as long as keeps
// the work at duty of the time. Used by one goroutine at a time (the
// checkpoint's writer); a nil pacer does not pace.
type ckptPacer struct {
	duty  float64
	slice time.Duration
	from  time.Time     // start of the current stretch of work
	slept time.Duration // every rest so far (CheckpointStats.Paced)
	// now and sleep are the clock (time.Now, time.Sleep; a test's own).
	now   func() time.Time
	sleep func(time.Duration)
	// hurry, once set (the model is closing and waits for the
	// checkpoint), ends the pacing.
	hurry *atomic.Bool
}

// newCkptPacer returns a pacer working duty (0 < duty < 1) of the time
// in stretches of slice.
func newCkptPacer(duty float64, slice time.Duration) *ckptPacer {
	return &ckptPacer{duty: duty, slice: slice, now: time.Now, sleep: time.Sleep}
}

// pace rests if the work since the last rest reached the slice.
func (p *ckptPacer) pace() {
	if p == nil || p.hurry != nil && p.hurry.Load() {
		return
	}
	now := p.now()
	if p.from.IsZero() {
		p.from = now
		return
	}
	worked := now.Sub(p.from)
	if worked < p.slice {
		return
	}
	rest := time.Duration(float64(worked) * (1 - p.duty) / p.duty)
	p.sleep(rest)
	p.slept += rest
	p.from = p.now()
}

// restedFor is the time the pacer slept (0 for nil).
func (p *ckptPacer) restedFor() time.Duration {
	if p == nil {
		return 0
	}
	return p.slept
}
