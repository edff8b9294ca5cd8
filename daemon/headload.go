// Loading the in-memory HEAD after the listeners are up (issue 21 item
// 11): a restart serves reads from the trees at once and from the
// in-memory HEAD once it is restored and caught up.

package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/snapshot"
)

// Phases of the in-memory HEAD, as status reports them.
const (
	headLoading    = "loading"     // restoring its checkpoint
	headCatchingUp = "catching_up" // subscribed: brought to the mirror's head (or rebuilt from the trees)
	headReady      = "ready"       // caught up once; follows every commit
	headFailed     = "failed"      // could not subscribe: reads stay on the trees
)

// headReadWait bounds how long opening a table waits for a following
// in-memory HEAD to reach the version read (snapshot.Store.Wait): it
// trails the trees by one commit group, milliseconds, and a read that
// gives up goes to a tree, which for a scan of a large table is minutes.
const headReadWait = time.Second

// HeadStatus is the in-memory HEAD in GET /api/status. Reads are served
// from the trees until Phase is "ready" (and for a version the HEAD does
// not hold exactly, after).
type HeadStatus struct {
	Phase    string  `json:"phase"`
	Restored bool    `json:"restored_from_checkpoint"`
	Tables   int     `json:"tables"`
	LSN      string  `json:"lsn"`
	Seconds  float64 `json:"seconds"` // since the start of loading, until ready
	// ReadsHead and ReadsTree count the tables reads opened from the
	// in-memory HEAD and from the trees since the start.
	ReadsHead int64 `json:"reads_head"`
	ReadsTree int64 `json:"reads_tree"`
	// Snapshots counts the heap snapshots the HEAD handed to scans (the
	// SQL port's and /api/query's).
	Snapshots int64  `json:"snapshots"`
	Error     string `json:"error,omitempty"`
	// RestoredPages of CheckpointPages: how far the restore of the
	// checkpoint's heap pages is (while Phase is "loading").
	RestoredPages   int64 `json:"restored_pages"`
	CheckpointPages int64 `json:"checkpoint_pages"`
	// Declined are the tables the HEAD does not hold (a row's key too
	// long for its index): their reads go to the trees, the others' not.
	Declined []head.DeclinedTable `json:"declined,omitempty"`
}

// headLoad is the daemon's in-memory HEAD and how far it is loaded.
type headLoad struct {
	model *head.Model

	mu       sync.Mutex
	phase    string
	restored bool
	sub      *mirror.Subscription
	started  time.Time
	took     time.Duration
	err      string
	reads    *snapshot.ReadCounts // the history service's (nil until set)
}

func newHeadLoad(model *head.Model) *headLoad {
	return &headLoad{model: model, phase: headLoading, started: time.Now()}
}

func (h *headLoad) set(fn func(h *headLoad)) {
	h.mu.Lock()
	fn(h)
	h.mu.Unlock()
}

// loading says why a full-table read at HEAD should wait for the
// in-memory HEAD ("" when it should not): it is restoring its checkpoint,
// or catching up after one, so it answers soon, sooner than a tree
// scan of a large table (the SQL port refuses such reads meanwhile,
// sqlfront.HistorySource.HeadLoading). A HEAD rebuilt from the trees or
// failed gives "": the trees answer.
func (h *headLoad) loading() string {
	h.mu.Lock()
	phase, restored := h.phase, h.restored
	h.mu.Unlock()
	done, total := h.model.RestoreProgress()
	switch {
	case phase == headLoading && total > 0:
		return fmt.Sprintf("the in-memory HEAD is loading (%d %% restored)", done*100/total)
	case phase == headLoading:
		return "the in-memory HEAD is loading"
	case phase == headCatchingUp && restored:
		return "the in-memory HEAD is catching up after its restore (100 % restored)"
	}
	return ""
}

// subscribed reports whether the model was subscribed to the mirror (so
// it follows it and a checkpoint of it at shutdown is worth taking).
func (h *headLoad) subscribed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sub != nil
}

// status is the HeadStatus now.
func (h *headLoad) status() *HeadStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := &HeadStatus{Phase: h.phase, Restored: h.restored, Tables: len(h.model.Tables()), LSN: h.model.Current().String(), Error: h.err}
	st.Snapshots = h.model.Snapshots()
	st.RestoredPages, st.CheckpointPages = h.model.RestoreProgress()
	if d := h.model.Declined(); len(d) > 0 {
		st.Declined = d
	}
	if h.reads != nil {
		st.ReadsHead, st.ReadsTree = h.reads.Head.Load(), h.reads.Tree.Load()
	}
	if h.phase == headReady {
		st.Seconds = h.took.Seconds()
	} else {
		st.Seconds = time.Since(h.started).Seconds()
	}
	return st
}

// loadHead restores the model from its checkpoint, subscribes it to the
// mirror and waits until its first catch-up is applied, logging each
// step. Reads go to the trees meanwhile. A failure leaves them there and
// is reported, not fatal: the trees are the truth.
//
// It then watches the subscription for as long as the daemon runs: an
// Apply that fails stops it, and the model is subscribed again (after a
// pause that grows with repeated failures) — emptied first when the
// failure left it unusable (head.Model.Unusable: applied in part), so
// that the mirror rebuilds it from the trees. Reads go to the trees
// meanwhile; a half-applied HEAD is never served.
func (d *daemon) loadHead(ctx context.Context, h *headLoad) {
	if d.opts.BeforeHeadLoad != nil {
		d.opts.BeforeHeadLoad()
	}
	// After a crash the first reads go to the trees, and wait for the
	// commits Open replayed to be flushed into them: the restore, which
	// takes every core it gets for minutes at 10M rows, starts after that
	// flush (issue 21 item 11).
	select {
	case <-d.m.Recovered():
	case <-ctx.Done():
		return
	}
	restored := h.model.Load()
	h.set(func(h *headLoad) { h.restored = restored })
	pause := time.Duration(0)
	for attempt := 0; ; attempt++ {
		sub, err := d.followHead(ctx, h, restored, attempt)
		if err == nil || ctx.Err() != nil || errors.Is(err, context.Canceled) {
			return // the daemon stops (the mirror closed)
		}
		if sub == nil {
			return // not subscribed at all: reads stay on the trees
		}
		// The subscription failed: its apply did (the mirror goes on).
		rebuild := h.model.Unusable()
		pause = min(max(2*pause, time.Second), time.Minute)
		d.log.Error("in-memory HEAD apply failed; reads are served from the trees until it is brought forward again",
			"err", err, "rebuild_from_trees", rebuild, "retry_in", pause)
		h.set(func(h *headLoad) { h.phase, h.err = headFailed, err.Error() })
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		if rebuild {
			h.model.Reset()
		}
		restored = false
		h.set(func(h *headLoad) { h.started = time.Now() })
	}
}

// followHead subscribes the model, waits until it is caught up (phase
// ready) and then until the subscription ends. It returns the
// subscription's error (nil when the daemon stops) and the subscription
// (nil when it could not subscribe).
func (d *daemon) followHead(ctx context.Context, h *headLoad, restored bool, attempt int) (*mirror.Subscription, error) {
	sub, err := d.m.Subscribe(h.model, mirror.SubscribeOptions{})
	if err != nil {
		d.log.Error("in-memory HEAD not started; reads are served from the trees", "err", err)
		h.set(func(h *headLoad) { h.phase, h.err = headFailed, err.Error() })
		return nil, err
	}
	// Caught up once the catch-up batch to the head of now (target) is
	// applied: delivered reaches it, or, when the mirror has no commit
	// (target 0), the subscription has nothing left to apply.
	target := d.m.Head().EndLSN
	h.set(func(h *headLoad) { h.sub, h.phase = sub, headCatchingUp })
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	// During the initial copy the tables arrive one by one: not ready
	// before it is done.
	for !(target > 0 && sub.Delivered() >= target || sub.CatchUps() > 0 && sub.Idle()) || d.copying() {
		select {
		case <-ctx.Done():
			return sub, nil
		case <-sub.Done():
			return sub, sub.Err()
		case <-tick.C:
		}
	}
	// Following: a read at a version the model has not applied yet (it
	// trails the trees by a commit group) waits for it, up to
	// headReadWait, instead of going to a tree: under a steady update
	// load a count(*) of 3M rows otherwise went to the tree (minutes)
	// with the HEAD ready (restart-2026-12-05.md). Cleared when this
	// subscription ends (a failed apply, the daemon stopping), so that a
	// model being rebuilt is never waited for.
	h.model.SetFollowing(true)
	defer h.model.SetFollowing(false)
	h.set(func(h *headLoad) { h.phase, h.took, h.err = headReady, time.Since(h.started), "" })
	d.log.Info("in-memory HEAD ready", "restored_from_checkpoint", restored, "tables", len(h.model.Tables()), "lsn", h.model.Current(),
		"took", time.Since(h.started).Round(time.Millisecond), "attempt", attempt+1)
	select {
	case <-ctx.Done():
		return sub, nil
	case <-sub.Done():
		return sub, sub.Err()
	}
}

// copying reports whether the daemon is starting or in its initial copy.
func (d *daemon) copying() bool {
	p := d.getPhase()
	return p == "starting" || p == "copying"
}
