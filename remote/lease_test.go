package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/s3test"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestWritersRace: 16 sidecars open one prefix at once, three times over:
// exactly one wins each time, every other stops with ErrLeaseHeld naming
// the winner, and only the winner's commits land.
func TestWritersRace(t *testing.T) {
	srv := s3test.Start(t)
	for run := range 3 {
		c := newTestClient(t, srv, fmt.Sprintf("race%d", run))
		var wg sync.WaitGroup
		ws := make([]*Writer, 16)
		errs := make([]error, 16)
		for i := range ws {
			wg.Go(func() {
				ws[i], errs[i] = OpenWriter(t.Context(), c, WriterOptions{Holder: fmt.Sprintf("sidecar-%d", i), TTL: time.Minute})
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil:
				if winner >= 0 {
					t.Fatalf("run %d: sidecars %d and %d both hold the prefix", run, winner, i)
				}
				winner = i
			case !errors.Is(err, ErrLeaseHeld):
				t.Fatalf("run %d: sidecar %d: %v, want ErrLeaseHeld", run, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("run %d: nobody won: %v", run, errs)
		}
		t.Logf("run %d: sidecar-%d won; a loser's error: %v", run, winner, errs[(winner+1)%16])
		w := ws[winner]
		if err := w.Commit(t.Context(), func(m *Manifest) { m.Durable = wal.LSN(100 + run) }); err != nil {
			t.Fatal(err)
		}
		m, _, err := ReadManifest(t.Context(), c)
		if err != nil || m.Holder != fmt.Sprintf("sidecar-%d", winner) || m.Durable != wal.LSN(100+run) || m.Epoch != 1 {
			t.Fatalf("run %d: manifest %+v, %v", run, m, err)
		}
	}
}

// TestZombieFenced: a writer whose prefix was taken over (an operator's
// takeover while it still ran, or its lease ran out) has every later
// manifest write and renewal refused, and nothing it wrote replaces the
// successor's manifest.
func TestZombieFenced(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, "zombie")
	ctx := t.Context()
	a, err := OpenWriter(ctx, c, WriterOptions{Holder: "a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(ctx, func(m *Manifest) { m.Durable = 10 }); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWriter(ctx, c, WriterOptions{Holder: "b", TTL: time.Minute}); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("b while a holds the lease: %v, want ErrLeaseHeld", err)
	}
	b, err := OpenWriter(ctx, c, WriterOptions{Holder: "b", TTL: time.Minute, Takeover: true})
	if err != nil {
		t.Fatal(err)
	}
	if b.Epoch() != 2 || b.Manifest().Durable != 10 {
		t.Fatalf("b: epoch %d, durable %v; want 2 and a's 10", b.Epoch(), b.Manifest().Durable)
	}
	err = a.Commit(ctx, func(m *Manifest) { m.Durable = 20 })
	if !errors.Is(err, ErrFenced) {
		t.Fatalf("zombie commit: %v, want ErrFenced", err)
	}
	t.Logf("zombie commit refused: %v", err)
	if err := a.Renew(ctx); err == nil {
		t.Fatal("zombie renewed its lease")
	}
	if err := b.Commit(ctx, func(m *Manifest) { m.Durable = 30 }); err != nil {
		t.Fatal(err)
	}
	m, _, err := ReadManifest(ctx, c)
	if err != nil || m.Durable != 30 || m.Holder != "b" {
		t.Fatalf("manifest after the zombie: %+v %v", m, err)
	}

	// An expired lease is taken without Takeover; the old holder's next
	// commit is refused by its own clock.
	now := time.Now()
	clock := func() time.Time { return now }
	c2 := newTestClient(t, srv, "expiry")
	x, err := OpenWriter(ctx, c2, WriterOptions{Holder: "x", TTL: time.Second, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Second)
	y, err := OpenWriter(ctx, c2, WriterOptions{Holder: "y", TTL: time.Second, Now: clock})
	if err != nil {
		t.Fatalf("taking an expired lease: %v", err)
	}
	if err := x.Commit(ctx, func(*Manifest) {}); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("commit after the lease expired: %v, want ErrLeaseLost", err)
	}
	if y.Epoch() != 2 {
		t.Fatalf("epoch after expiry takeover: %d", y.Epoch())
	}
	// Released: the next writer need not wait.
	if err := y.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWriter(ctx, c2, WriterOptions{Holder: "z", TTL: time.Second, Now: clock}); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// TestReadWhileReplaced: a follower reading the manifest while the writer
// replaces it gets one whole version and its ETag, never a refusal. The
// first client read a HEAD then a GET with If-Match, and CI saw `sidecar
// serve --remote` fail to start with 412 when a commit fell in between.
func TestReadWhileReplaced(t *testing.T) {
	srv := s3test.Start(t)
	w := newTestClient(t, srv, "replaced")
	r := newTestClient(t, srv, "replaced")
	ctx := t.Context()
	if _, err := w.Put(ctx, "obj", []byte("v0000"), Cond{}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Put(ctx, "obj", fmt.Appendf(nil, "v%04d", i), Cond{}); err != nil {
				t.Errorf("put %d: %v", i, err)
				return
			}
		}
	})
	defer wg.Wait()
	defer close(stop)
	for i := range 300 {
		data, etag, err := r.Get(ctx, "obj")
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if len(data) != 5 || data[0] != 'v' || etag == "" {
			t.Fatalf("read %d: %q etag %q", i, data, etag)
		}
	}
}

// TestLostAnswerNotFenced: a manifest write or lease renewal that landed
// but whose answer was lost (the writer's context ended while it waited:
// the uploader's at shutdown) is the writer's own; its next commit and
// renewal go on instead of taking it for another writer's takeover. CI
// saw a restored sidecar's final upload at shutdown refused "taken over
// by another writer (now epoch 5, holder successor)" — itself.
func TestLostAnswerNotFenced(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, "lost")
	ctx := t.Context()
	w, err := OpenWriter(ctx, c, WriterOptions{Holder: "w", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	lose := func(what string, op func(context.Context) error) {
		t.Helper()
		srv.LoseNextAnswers(1)
		short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		if err := op(short); err == nil {
			t.Fatalf("%s with its answer lost: no error", what)
		} else {
			t.Logf("%s with its answer lost: %v", what, err)
		}
	}
	lose("commit", func(ctx context.Context) error {
		return w.Commit(ctx, func(m *Manifest) { m.Durable = 10 })
	})
	m, _, err := ReadManifest(ctx, c)
	if err != nil || m.Durable != 10 {
		t.Fatalf("the lost commit did not land (%+v, %v): the fault did not happen", m, err)
	}
	if err := w.Commit(ctx, func(m *Manifest) { m.Durable = 20 }); err != nil {
		t.Fatalf("commit after a lost answer: %v", err)
	}
	lose("renewal", w.Renew)
	if err := w.Renew(ctx); err != nil {
		t.Fatalf("renewal after a lost answer: %v", err)
	}
	// Lost twice in a row, then a write that did not land at all: the
	// commit after it must still go on from what is stored.
	lose("commit", func(ctx context.Context) error {
		return w.Commit(ctx, func(m *Manifest) { m.Durable = 30 })
	})
	srv.FailNext(100)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if err := w.Commit(short, func(m *Manifest) { m.Durable = 35 }); err == nil {
		t.Fatal("commit while the server refuses everything: no error")
	}
	cancel()
	srv.FailNext(0)
	if err := w.Commit(ctx, func(m *Manifest) { m.Durable = 40 }); err != nil {
		t.Fatalf("commit after a lost answer and a failed write: %v", err)
	}
	m, _, err = ReadManifest(ctx, c)
	if err != nil || m.Durable != 40 || m.Holder != "w" {
		t.Fatalf("manifest at the end: %+v, %v", m, err)
	}
	// The fence still holds: a takeover's epoch refuses w's next commit.
	if _, err := OpenWriter(ctx, c, WriterOptions{Holder: "x", TTL: time.Minute, Takeover: true}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx, func(m *Manifest) { m.Durable = 50 }); !errors.Is(err, ErrFenced) {
		t.Fatalf("commit after a takeover: %v, want ErrFenced", err)
	}
}
