package mirror

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// writer is the background load of the tests that change the database
// while the mirror resyncs: step(i) for i = 0, 1, … on one connection of
// its own, until stopped.
type writer struct {
	steps  atomic.Int64 // steps committed
	stop   chan struct{}
	exited chan struct{}
	err    error // how it ended; read after exited is closed
}

// startWriter runs step in the background on a connection to url; the
// test stops it with finish (and it is stopped when the test ends).
func startWriter(t *testing.T, url string, step func(ctx context.Context, conn *pgx.Conn, i int) error) *writer {
	w := &writer{stop: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(w.exited)
		conn, err := pgx.Connect(t.Context(), url)
		if err != nil {
			w.err = fmt.Errorf("writer: %w", err)
			return
		}
		defer conn.Close(context.Background())
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			if err := step(t.Context(), conn, i); err != nil {
				w.err = fmt.Errorf("writer step %d: %w", i, err)
				return
			}
			w.steps.Add(1)
		}
	}()
	t.Cleanup(func() { w.end() })
	return w
}

// await waits until n more steps have committed, so that what follows
// runs with writes landing before and during it.
func (w *writer) await(t *testing.T, n int64) {
	t.Helper()
	target := w.steps.Load() + n
	daemontest.Eventually(t, fmt.Sprintf("%d writer steps", n), 0, func() bool {
		select {
		case <-w.exited:
			return true
		default:
			return w.steps.Load() >= target
		}
	})
	select {
	case <-w.exited:
		t.Fatalf("the writer stopped: %v", w.err)
	default:
	}
}

// finish stops the writer and fails the test with the error it ended on.
func (w *writer) finish(t *testing.T) {
	t.Helper()
	if err := w.end(); err != nil {
		t.Fatal(err)
	}
}

func (w *writer) end() error {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.exited
	return w.err
}
