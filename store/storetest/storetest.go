// Package storetest is the conformance suite every prolly.NodeStore passes
// (prolly.MemStore, store.NodeStore over Badger, remote.Store over object
// storage): Put visible at once, durable after Flush across a reopen, Get
// and GetMany in order with duplicates, missing nodes wrapping
// addr.ErrNotFound, corrupt bytes refused, concurrent readers, and whole
// trees built, reopened, mutated and diffed against a map model.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
)

// Backing is one store implementation under test: the storage behind it
// and how to reach it again.
type Backing interface {
	// Open returns the store over this backing (called once).
	Open(t *testing.T) prolly.NodeStore
	// Reopen returns a new store over the same backing after a Flush, as
	// a restarted process would see it (the old one is no longer used).
	Reopen(t *testing.T) prolly.NodeStore
	// Corrupt damages the stored bytes of h; a store reopened afterwards
	// must refuse the node.
	Corrupt(t *testing.T, h addr.Hash)
}

// Run runs the suite, each case on a fresh backing from newBacking.
func Run(t *testing.T, newBacking func(t *testing.T) Backing) {
	seed := rand.Uint64()
	t.Logf("storetest seed %d", seed)
	t.Run("PutGetFlushReopen", func(t *testing.T) { testPutGetReopen(t, newBacking(t), seed) })
	t.Run("GetManyOrderDuplicatesMissing", func(t *testing.T) { testGetMany(t, newBacking(t), seed) })
	t.Run("Corrupt", func(t *testing.T) { testCorrupt(t, newBacking(t), seed) })
	t.Run("ConcurrentReaders", func(t *testing.T) { testConcurrent(t, newBacking(t), seed) })
	t.Run("TreeModel", func(t *testing.T) { testTreeModel(t, newBacking(t), seed) })
}

// build writes a tree of n keys (values derived from the seed) and returns
// its root and the model.
func build(t *testing.T, ns prolly.NodeStore, rng *rand.Rand, n int) (prolly.Root, map[string]string) {
	t.Helper()
	e := prolly.NewDefaultEngine(ns)
	b := e.NewBuilder(t.Context())
	model := map[string]string{}
	keys := make([]string, 0, n)
	for i := range n {
		keys = append(keys, fmt.Sprintf("k%08d", i*3))
	}
	for _, k := range keys {
		v := fmt.Sprintf("v%d-%x", rng.IntN(1000), rng.Uint64())
		model[k] = v
		if err := b.Add([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return r, model
}

// nodes lists the addresses of every node of r, internal ones first.
func nodes(t *testing.T, ns prolly.NodeStore, r prolly.Root) (internal, leaves []addr.Hash) {
	t.Helper()
	e := prolly.NewDefaultEngine(ns)
	if err := e.Walk(t.Context(), r, func(h addr.Hash, level int) (bool, error) {
		if level == 0 {
			leaves = append(leaves, h)
		} else {
			internal = append(internal, h)
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	return internal, leaves
}

// check compares the tree at r with the model.
func check(t *testing.T, ns prolly.NodeStore, r prolly.Root, model map[string]string) {
	t.Helper()
	ctx := t.Context()
	e := prolly.NewDefaultEngine(ns)
	c, err := e.Range(ctx, r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for c.Next() {
		k, v := string(c.Key()), string(c.Value())
		if model[k] != v {
			t.Fatalf("key %q: tree has %q, model %q", k, v, model[k])
		}
		n++
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(model) {
		t.Fatalf("tree has %d keys, model %d", n, len(model))
	}
}

func testPutGetReopen(t *testing.T, b Backing, seed uint64) {
	ctx := t.Context()
	ns := b.Open(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	r, model := build(t, ns, rng, 3000)
	// Visible before Flush.
	check(t, ns, r, model)
	in, lv := nodes(t, ns, r)
	for _, h := range append(in, lv...) {
		n, err := ns.Get(ctx, h)
		if err != nil {
			t.Fatalf("get %s before flush: %v", h.Short(), err)
		}
		if addr.Of(n.Bytes()) != h {
			t.Fatalf("get %s: bytes hash to %s", h.Short(), addr.Of(n.Bytes()).Short())
		}
	}
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	ns = b.Reopen(t)
	check(t, ns, r, model)
	for _, h := range lv {
		n, err := ns.Get(ctx, h)
		if err != nil || addr.Of(n.Bytes()) != h {
			t.Fatalf("get %s after reopen: %v", h.Short(), err)
		}
	}
	var missing addr.Hash
	missing[0] = 0xee
	if _, err := ns.Get(ctx, missing); !errors.Is(err, addr.ErrNotFound) {
		t.Fatalf("get of a missing node: %v, want ErrNotFound", err)
	}
}

func testGetMany(t *testing.T, b Backing, seed uint64) {
	ctx := t.Context()
	ns := b.Open(t)
	rng := rand.New(rand.NewPCG(seed, 2))
	r, _ := build(t, ns, rng, 2000)
	_, lv := nodes(t, ns, r)
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	ns = b.Reopen(t)
	if got, err := ns.GetMany(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("GetMany(nil) = %d nodes, %v", len(got), err)
	}
	for round := range 5 {
		var hs []addr.Hash
		for range 1 + rng.IntN(40) {
			hs = append(hs, lv[rng.IntN(len(lv))])
		}
		hs = append(hs, hs[0]) // a duplicate
		if round%2 == 1 {
			slices.Reverse(hs)
		}
		got, err := ns.GetMany(ctx, hs)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for i, h := range hs {
			if got[i] == nil || addr.Of(got[i].Bytes()) != h {
				t.Fatalf("round %d: node %d is not %s", round, i, h.Short())
			}
		}
	}
	var missing addr.Hash
	missing[0] = 0xee
	if _, err := ns.GetMany(ctx, []addr.Hash{lv[0], missing, lv[1]}); !errors.Is(err, addr.ErrNotFound) {
		t.Fatalf("GetMany with a missing node: %v, want ErrNotFound", err)
	}
}

func testCorrupt(t *testing.T, b Backing, seed uint64) {
	ctx := t.Context()
	ns := b.Open(t)
	rng := rand.New(rand.NewPCG(seed, 3))
	r, _ := build(t, ns, rng, 2000)
	_, lv := nodes(t, ns, r)
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	bad := lv[rng.IntN(len(lv))]
	b.Corrupt(t, bad)
	ns = b.Reopen(t)
	n, err := ns.Get(ctx, bad)
	if err == nil {
		t.Fatalf("corrupt node %s was returned (%d bytes)", bad.Short(), len(n.Bytes()))
	}
	if !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, prolly.ErrCorruptNode) {
		t.Fatalf("corrupt node %s: %v, want a corruption error", bad.Short(), err)
	}
	if _, err := ns.GetMany(ctx, []addr.Hash{lv[0], bad}); err == nil {
		t.Fatalf("GetMany returned corrupt node %s", bad.Short())
	}
}

func testConcurrent(t *testing.T, b Backing, seed uint64) {
	ctx := t.Context()
	ns := b.Open(t)
	r, model := build(t, ns, rand.New(rand.NewPCG(seed, 4)), 4000)
	in, lv := nodes(t, ns, r)
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	ns = b.Reopen(t)
	all := append(in, lv...)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(100+w)))
			for range 20 {
				hs := make([]addr.Hash, 1+rng.IntN(16))
				for i := range hs {
					hs[i] = all[rng.IntN(len(all))]
				}
				got, err := ns.GetMany(ctx, hs)
				if err != nil {
					errs <- err
					return
				}
				for i, h := range hs {
					if addr.Of(got[i].Bytes()) != h {
						errs <- fmt.Errorf("worker %d: wrong node for %s", w, h.Short())
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	check(t, ns, r, model)
}

func testTreeModel(t *testing.T, b Backing, seed uint64) {
	ctx := context.Background()
	ns := b.Open(t)
	rng := rand.New(rand.NewPCG(seed, 5))
	r, model := build(t, ns, rng, 5000)
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for step := range 3 {
		ns = b.Reopen(t)
		check(t, ns, r, model)
		e := prolly.NewDefaultEngine(ns)
		old := maps.Clone(model)
		var edits []prolly.Edit
		for range 200 {
			k := fmt.Sprintf("k%08d", rng.IntN(16000))
			if rng.IntN(3) == 0 {
				edits = append(edits, prolly.Edit{Key: []byte(k), Delete: true})
				delete(model, k)
			} else {
				v := fmt.Sprintf("s%d-%x", step, rng.Uint64())
				edits = append(edits, prolly.Edit{Key: []byte(k), Value: []byte(v)})
				model[k] = v
			}
		}
		slices.SortStableFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
		edits = lastPerKey(edits)
		r2, err := e.Mutate(ctx, r, edits)
		if err != nil {
			t.Fatalf("step %d: mutate: %v", step, err)
		}
		d, err := e.Diff(ctx, r, r2, prolly.DiffOptions{})
		if err != nil {
			t.Fatal(err)
		}
		changed := 0
		for d.Next() {
			en := d.Entry()
			k := string(en.Key)
			if old[k] == model[k] {
				t.Fatalf("step %d: diff lists unchanged key %q", step, k)
			}
			changed++
		}
		if err := d.Err(); err != nil {
			t.Fatal(err)
		}
		want := 0
		for k := range union(old, model) {
			if old[k] != model[k] {
				want++
			}
		}
		if changed != want {
			t.Fatalf("step %d: diff has %d entries, model %d", step, changed, want)
		}
		if err := ns.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		r = r2
	}
	ns = b.Reopen(t)
	check(t, ns, r, model)
}

func lastPerKey(es []prolly.Edit) []prolly.Edit {
	out := es[:0]
	for i, e := range es {
		if i+1 < len(es) && bytes.Equal(es[i+1].Key, e.Key) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func union(a, b map[string]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}
