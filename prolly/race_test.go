package prolly

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestConcurrentReaders runs gets, scans, diffs, digests and mutations of
// the same trees from several goroutines (run with -race): the engine holds
// no per-tree state and nodes are immutable.
func TestConcurrentReaders(t *testing.T) {
	e, _ := newTestEngine(t)
	rng := seedRand(t, 51, 51)
	m := randModel(rng, 20000, 100000, 30)
	base := m.build(t, e)
	eds := randEdits(rng, m, 500, 100000)
	next, err := e.Mutate(t.Context(), base, eds)
	if err != nil {
		t.Fatal(err)
	}
	wantDiff := len(modelDiff(m, m.apply(eds), nil, nil))
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			errs <- readerLoop(ctx, e, base, next, wantDiff, g)
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func readerLoop(ctx context.Context, e *Engine, base, next Root, wantDiff, g int) error {
	rng := rand.New(rand.NewPCG(uint64(g), 7))
	for i := 0; i < 20; i++ {
		d, err := e.Diff(ctx, base, next, DiffOptions{})
		if err != nil {
			return err
		}
		n := 0
		for d.Next() {
			n++
		}
		if err := d.Err(); err != nil {
			return err
		}
		if n != wantDiff {
			return fmt.Errorf("reader %d: diff has %d entries, want %d", g, n, wantDiff)
		}
		if _, _, err := e.Get(ctx, next, []byte(intKey(rng.IntN(100000)))); err != nil {
			return err
		}
		if _, err := e.DigestRange(ctx, next, []byte(intKey(rng.IntN(50000))), nil); err != nil {
			return err
		}
		if _, err := e.Mutate(ctx, next, []Edit{{Key: []byte(intKey(rng.IntN(100000))), Value: []byte{byte(g)}}}); err != nil {
			return err
		}
	}
	return nil
}
