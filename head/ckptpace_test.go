package head

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/mirror"
)

// fakeClock is a pacer's clock for tests: every reading is a step of work
// later than the one before (step 0: only work moves it), and a sleep
// moves it on by the time slept.
type fakeClock struct {
	t      time.Time
	step   time.Duration
	reads  int
	sleeps int
	slept  time.Duration
}

func (c *fakeClock) now() time.Time {
	c.reads++
	c.t = c.t.Add(c.step)
	return c.t
}

func (c *fakeClock) work(d time.Duration) { c.t = c.t.Add(d) }

func (c *fakeClock) sleep(d time.Duration) {
	c.sleeps++
	c.slept += d
	c.t = c.t.Add(d)
}

func (c *fakeClock) pacer(duty float64, slice time.Duration) *ckptPacer {
	p := newCkptPacer(duty, slice)
	p.now, p.sleep = c.now, c.sleep
	return p
}

// TestCkptPacerDuty: a pacer rests once a stretch of work reaches its
// slice, for as long as keeps the work at its duty of the time: 1 ms of
// work a call, a 4 ms slice, duty ½ — a rest of 4 ms after every 4 ms of
// work; none once hurried (Close waits). A nil pacer does nothing.
func TestCkptPacerDuty(t *testing.T) {
	c := &fakeClock{t: time.Unix(1, 0)}
	p := c.pacer(0.5, 4*time.Millisecond)
	start := c.t
	p.pace()
	for range 400 {
		c.work(time.Millisecond)
		p.pace()
	}
	total := c.t.Sub(start)
	if c.sleeps != 100 {
		t.Fatalf("%d rests for 400 ms of work in 4 ms slices, want ≈ 100", c.sleeps)
	}
	if share := float64(c.slept) / float64(total); share != 0.5 {
		t.Fatalf("rested %v of %v (%.2f), want half at duty ½", c.slept, total, share)
	}
	if p.restedFor() != c.slept {
		t.Fatalf("restedFor %v, slept %v", p.restedFor(), c.slept)
	}
	// Hurried (the model closing): no more rests.
	var hurry atomic.Bool
	p.hurry = &hurry
	hurry.Store(true)
	rests := c.sleeps
	for range 40 {
		c.work(time.Millisecond)
		p.pace()
	}
	if c.sleeps != rests {
		t.Fatalf("a hurried pacer rested %d times", c.sleeps-rests)
	}
	var none *ckptPacer
	none.pace()
	if none.restedFor() != 0 {
		t.Fatal("a nil pacer rested")
	}
}

// TestBackgroundCheckpointPaced: a checkpoint started from Apply (the
// first after a copy: every heap page, the whole index and key store)
// paces itself — its pacer is asked after every page image and image
// part written and rests between them — and what it wrote restores to
// the trees' rows. Checkpoint (shutdown) is not paced. Before, nothing
// paced it (no pacer was asked: "0 calls").
func TestBackgroundCheckpointPaced(t *testing.T) {
	f := openFeed(t)
	a := relation(1, "a")
	rows := map[int]int{}
	for i := range 3000 {
		rows[i] = i % 100
	}
	clock := &fakeClock{t: time.Unix(1, 0), step: time.Millisecond}
	started := make(chan struct{})
	persist := &Persist{DB: f.db, Every: time.Nanosecond, Mirror: f.m}
	persist.newPacer = func() *ckptPacer {
		select {
		case <-started:
		default:
			close(started)
		}
		return clock.pacer(0.5, 4*time.Millisecond)
	}
	opts := Options{Heap: heapSmallPages, Persist: persist}
	mod := New(opts)
	t.Cleanup(mod.Close)
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.copyTable(a, rows)
	f.waitDelivered(sub)
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("no background checkpoint started after the copy")
	}
	// Written (the slot is held from before the pacer is made until
	// then); not Close first, which ends the pacing.
	for deadline := time.Now().Add(time.Minute); mod.Checkpointing(); {
		if time.Now().After(deadline) {
			t.Fatal("the background checkpoint did not end")
		}
		time.Sleep(time.Millisecond)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	mod.Close()
	pages := len(rows) / 64
	if clock.reads < pages || clock.sleeps == 0 {
		t.Fatalf("the pacer was asked %d times and rested %d times for a checkpoint of ≥ %d pages", clock.reads, clock.sleeps, pages)
	}
	back := Restore(opts)
	t.Cleanup(back.Close)
	back.WaitWarm()
	if n, err := back.Compare(t.Context(), f.m); err != nil || n != len(rows) || back.Unusable() {
		t.Fatalf("restored %d rows (want %d), unusable %v: %v", n, len(rows), back.Unusable(), err)
	}
	// The shutdown checkpoint is not paced.
	asked := clock.reads
	if _, err := back.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if clock.reads != asked {
		t.Fatalf("Checkpoint asked a pacer %d times", clock.reads-asked)
	}
}
