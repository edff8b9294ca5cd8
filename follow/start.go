package follow

import (
	"context"
	"errors"
	"sync"

	"github.com/sidecar-dev/sidecar/replication"
)

// Running is a Follower run in the background by Start, which owns its
// goroutine: Stop ends it.
type Running struct {
	f      *Follower
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Run's result, set before done is closed
	once   sync.Once
}

// Start runs a Follower on a goroutine of its own and returns once it
// streams (the initial copy or the resume and any resync done), or with
// the error that ended it before. The run is not bound to ctx: ctx bounds
// only the wait for streaming; Stop ends the run.
func Start(ctx context.Context, cfg Config) (*Running, error) {
	streaming := make(chan struct{})
	var once sync.Once
	onPhase := cfg.OnPhase
	cfg.OnPhase = func(p string) {
		if p == PhaseStreaming {
			once.Do(func() { close(streaming) })
		}
		if onPhase != nil {
			onPhase(p)
		}
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &Running{f: New(cfg), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = r.f.Run(rctx)
	}()
	select {
	case <-streaming:
		return r, nil
	case <-r.done:
		cancel()
		if r.err == nil {
			r.err = errors.New("follow: stopped before streaming")
		}
		return nil, r.err
	case <-ctx.Done():
		r.Stop()
		return nil, ctx.Err()
	}
}

// Follower returns the running Follower.
func (r *Running) Follower() *Follower { return r.f }

// Streamer returns the running stream.
func (r *Running) Streamer() *replication.Streamer { return r.f.Streamer() }

// Done is closed when the run ended (Stop, or a fatal error: see Err).
func (r *Running) Done() <-chan struct{} { return r.done }

// Err returns the error that ended the run (nil while it runs or after a
// clean Stop).
func (r *Running) Err() error {
	select {
	case <-r.done:
		if errors.Is(r.err, context.Canceled) {
			return nil
		}
		return r.err
	default:
		return nil
	}
}

// Stop ends the run and waits for it; it returns the run's error, nil
// for a clean stop. The target stays open.
func (r *Running) Stop() error {
	r.once.Do(r.cancel)
	<-r.done
	return r.Err()
}
