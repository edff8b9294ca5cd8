package replication

import (
	"context"
	"sync"
)

// restartState lets a caller end the stream's current replication
// connection and wait until its session handed its last change to the
// sink ([Streamer.Restart]).
type restartState struct {
	mu        sync.Mutex
	cancel    context.CancelFunc // the running session's; nil between sessions
	done      chan struct{}      // closed when that session has ended
	requested bool
}

// begin starts a session under a context Restart can end.
func (r *restartState) begin(ctx context.Context) (context.Context, chan struct{}) {
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	r.mu.Lock()
	r.cancel, r.done, r.requested = cancel, done, false
	r.mu.Unlock()
	return sctx, done
}

// end marks the session ended and reports whether Restart asked for it.
func (r *restartState) end(done chan struct{}) bool {
	r.mu.Lock()
	cancel, requested := r.cancel, r.requested
	r.cancel, r.requested = nil, false
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	close(done)
	return requested
}

// Restart ends the current replication connection and returns once its
// session has ended (it hands no more changes to the sink); Run then
// reconnects at once from the sink's durable LSN, with a new walsender.
// A walsender caches per table whether the publication includes it:
// PostgreSQL 14 keeps a table's entry stale after ALTER TABLE … ATTACH
// PARTITION to a published root, so the attached partition's changes
// are never sent by the walsender that saw the table before. The
// follower restarts the stream before it follows a new partition
// (issue 21 item 4). Without a session running it does nothing (the
// next one starts a new walsender anyway).
func (s *Streamer) Restart(ctx context.Context) error {
	r := &s.restart
	r.mu.Lock()
	cancel, done := r.cancel, r.done
	if cancel != nil {
		r.requested = true
	}
	r.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
