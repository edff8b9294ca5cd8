package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/seed"
)

// TestNodeStoreModel runs random Puts, Gets, GetManys, Flushes, cache
// clears and Close/Open cycles against a map of what was Put, with a tiny
// cache and pending bound so that eviction and background batches happen
// all the time. Every reopen closes the NodeStore (flushing it) first, as
// the mirror does, so the model never forgets a Put.
func TestNodeStoreModel(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 1))
	fail := func(step int, format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d step %d: %s", seed, step, fmt.Sprintf(format, args...))
	}

	dir := t.TempDir()
	opts := Options{Dir: dir, CacheBytes: 64 << 10, PendingBytes: 24 << 10, ReadConcurrency: 3}
	db, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := NewNodeStore(db, testCodec{})
	defer func() { db.Close() }()

	// A fixed universe of nodes, so Puts repeat and Gets hit and miss.
	gen := newLeafGen(seed, rng.IntN(2) == 0)
	const universe = 300
	hs := make([]addr.Hash, universe)
	ds := make([][]byte, universe)
	for i := range hs {
		ds[i] = gen.leaf()
		hs[i] = addr.Of(ds[i])
	}
	model := map[addr.Hash][]byte{}
	ctx := t.Context()
	for step := range 3000 {
		switch op := rng.IntN(1000); {
		case op < 400:
			i := rng.IntN(universe)
			if err := s.Put(ctx, hs[i], ds[i], &testNode{data: ds[i]}); err != nil {
				fail(step, "put: %v", err)
			}
			model[hs[i]] = ds[i]
		case op < 700:
			i := rng.IntN(universe)
			n, err := s.Get(ctx, hs[i])
			want, ok := model[hs[i]]
			switch {
			case ok && err != nil:
				fail(step, "get %d: %v", i, err)
			case ok && !bytes.Equal(n.data, want):
				fail(step, "get %d: wrong bytes", i)
			case !ok && !errors.Is(err, addr.ErrNotFound):
				fail(step, "get of never-put %d: %v, %v", i, n, err)
			}
		case op < 850:
			req := make([]addr.Hash, 1+rng.IntN(40))
			allKnown := true
			for k := range req {
				req[k] = hs[rng.IntN(universe)]
				if _, ok := model[req[k]]; !ok {
					allKnown = false
				}
			}
			got, err := s.GetMany(ctx, req)
			if allKnown != (err == nil) || (!allKnown && !errors.Is(err, addr.ErrNotFound)) {
				fail(step, "get many (all known %v): %v", allKnown, err)
			}
			for k := range got {
				if !bytes.Equal(got[k].data, model[req[k]]) {
					fail(step, "get many position %d: wrong bytes", k)
				}
			}
		case op < 920:
			if err := s.Flush(ctx); err != nil {
				fail(step, "flush: %v", err)
			}
		case op < 995:
			s.ClearCache()
		default:
			if err := s.Close(ctx); err != nil {
				fail(step, "close store: %v", err)
			}
			if err := db.Close(); err != nil {
				fail(step, "close db: %v", err)
			}
			if db, err = Open(opts); err != nil {
				fail(step, "reopen: %v", err)
			}
			s = NewNodeStore(db, testCodec{})
		}
		if st := s.Stats(); st.CacheBytes > st.CacheCapacity {
			fail(step, "cache holds %d bytes, bound %d", st.CacheBytes, st.CacheCapacity)
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
