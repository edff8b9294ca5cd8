package remote

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/s3test"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/prolly"
)

var seedFlag = seed.Flag()

// fakeClock is GC's clock in tests: it moves only when the test says, so
// no test depends on how fast the machine is.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// gcWorld is a writer of one prefix without a mirror: a tree mutated in
// rounds, each round one pack and one manifest commit whose Roots are the
// last keep roots (what retention keeps).
type gcWorld struct {
	t     *testing.T
	srv   *s3test.Server
	c     *Client
	w     *Writer
	st    *Store
	rng   *rand.Rand
	keep  int
	clock *fakeClock

	mu     sync.Mutex
	roots  []prolly.Root
	models map[addr.Hash]map[string]string
}

const gcGrace = time.Hour

func newGCWorld(t *testing.T, srv *s3test.Server, prefix string, seed uint64, clock *fakeClock) *gcWorld {
	t.Helper()
	g := &gcWorld{t: t, srv: srv, c: newTestClient(t, srv, prefix), rng: rand.New(rand.NewPCG(seed, 17)), keep: 3, clock: clock,
		models: map[addr.Hash]map[string]string{}}
	w, err := OpenWriter(t.Context(), g.c, WriterOptions{Holder: prefix, TTL: 1000 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	g.w = w
	g.st = NewStore(g.c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	return g
}

// round writes one version: n random edits (the first round builds 2,000
// keys), one pack, one manifest commit.
func (g *gcWorld) round(n int) {
	t := g.t
	ctx := t.Context()
	e := prolly.NewDefaultEngine(g.st)
	g.mu.Lock()
	var r prolly.Root
	model := map[string]string{}
	if k := len(g.roots); k > 0 {
		r = g.roots[k-1]
		model = maps.Clone(g.models[r.Hash])
	}
	g.mu.Unlock()
	var err error
	if r.Hash.IsZero() {
		b := e.NewBuilder(ctx)
		for i := range 2000 {
			k, v := fmt.Sprintf("k%06d", i), fmt.Sprintf("v0-%x", g.rng.Uint64())
			model[k] = v
			if err := b.Add([]byte(k), []byte(v)); err != nil {
				t.Fatal(err)
			}
		}
		if r, err = b.Finish(); err != nil {
			t.Fatal(err)
		}
	} else {
		var edits []prolly.Edit
		for range n {
			k := fmt.Sprintf("k%06d", g.rng.IntN(2400))
			if g.rng.IntN(4) == 0 {
				edits = append(edits, prolly.Edit{Key: []byte(k), Delete: true})
				delete(model, k)
			} else {
				v := fmt.Sprintf("v-%x", g.rng.Uint64())
				edits = append(edits, prolly.Edit{Key: []byte(k), Value: []byte(v)})
				model[k] = v
			}
		}
		slices.SortStableFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
		edits = lastEdit(edits)
		if r, err = e.Mutate(ctx, r, edits); err != nil {
			t.Fatal(err)
		}
	}
	ref, err := g.st.FlushPack(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.roots = append(g.roots, r)
	g.models[r.Hash] = model
	var names []string
	for _, x := range g.roots[max(0, len(g.roots)-g.keep):] {
		names = append(names, x.Hash.String())
	}
	g.mu.Unlock()
	if err := g.w.Commit(ctx, func(m *Manifest) {
		if ref.Nodes > 0 {
			m.Packs = append(m.Packs, ref)
		}
		m.Roots = names
	}); err != nil {
		t.Fatal(err)
	}
}

func lastEdit(es []prolly.Edit) []prolly.Edit {
	var out []prolly.Edit
	for _, e := range es {
		if k := len(out); k > 0 && bytes.Equal(out[k-1].Key, e.Key) {
			out[k-1] = e
			continue
		}
		out = append(out, e)
	}
	return out
}

func (g *gcWorld) gc(o GCOptions) GCStats {
	g.t.Helper()
	o.Now, o.Grace = g.clock.Now, gcGrace
	if o.CompactBelow == 0 {
		o.CompactBelow = 0.5
	}
	gs, err := GC(g.t.Context(), g.w, g.st, o)
	if err != nil {
		g.t.Fatalf("gc: %v", err)
	}
	return gs
}

func (g *gcWorld) model(h addr.Hash) (map[string]string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.models[h]
	return m, ok
}

// readAll reads every root of manifest m through a Store with an empty
// cache and compares each tree with its model.
func readAll(t *testing.T, c *Client, m *Manifest, model func(addr.Hash) (map[string]string, bool)) error {
	ctx := t.Context()
	st := NewStore(c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	if err := st.SetPacks(ctx, m.Packs); err != nil {
		return err
	}
	for _, s := range m.Roots {
		h, err := addr.Parse(s)
		if err != nil {
			return err
		}
		want, ok := model(h)
		if !ok {
			return fmt.Errorf("root %s: no model", h.Short())
		}
		e := prolly.NewDefaultEngine(st)
		cur, err := e.Range(ctx, prolly.Root{Hash: h, Spec: e.SpecID()}, nil, nil)
		if err != nil {
			return fmt.Errorf("root %s: %w", h.Short(), err)
		}
		n := 0
		for cur.Next() {
			if want[string(cur.Key())] != string(cur.Value()) {
				return fmt.Errorf("root %s: key %q is %q, want %q", h.Short(), cur.Key(), cur.Value(), want[string(cur.Key())])
			}
			n++
		}
		if err := cur.Err(); err != nil {
			return fmt.Errorf("root %s: %w", h.Short(), err)
		}
		if n != len(want) {
			return fmt.Errorf("root %s: %d keys, want %d", h.Short(), n, len(want))
		}
	}
	return nil
}

// packObjects lists the pack objects under c's prefix.
func packObjects(t *testing.T, c *Client) map[string]bool {
	t.Helper()
	objs, err := c.List(t.Context(), c.loc.key("packs/"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, o := range objs {
		out[o.Key] = true
	}
	return out
}

// checkSettled: after enough GC passes, the pack objects are exactly the
// manifest's packs and nothing is pending.
func checkSettled(t *testing.T, c *Client) *Manifest {
	t.Helper()
	m, _, err := ReadManifest(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	objs := packObjects(t, c)
	want := map[string]bool{}
	for _, p := range m.Packs {
		if p.Prefix == "" {
			want[p.Key(c.loc)] = true
		}
	}
	if len(m.Pending) != 0 || !maps.Equal(objs, want) {
		t.Fatalf("after GC: %d pending; %d pack objects, %d in the manifest (objects %v, manifest %v)", len(m.Pending), len(objs), len(want), slices.Sorted(maps.Keys(objs)), slices.Sorted(maps.Keys(want)))
	}
	return m
}

// TestGCFollowerReads: while the writer writes versions, runs GC after
// each (dead packs to pending, sparse ones compacted, pending deleted after
// the grace) and moves GC's clock on, a follower reads every retained tree
// again and again, half the time through a manifest one read old: no read
// ever fails. GC's clock moves only after the follower finished a read, so
// no read spans the grace (what the grace stands for in production).
func TestGCFollowerReads(t *testing.T) {
	srv := s3test.Start(t)
	clock := &fakeClock{t: time.Now()}
	g := newGCWorld(t, srv, "team/a", seed.New(t, seedFlag), clock)
	g.round(0)
	fc := newTestClient(t, srv, "team/a")

	done := make(chan struct{})
	reads := make(chan struct{}, 1)
	ferr := make(chan error, 1)
	go func() {
		var prev *Manifest
		for i := 0; ; i++ {
			select {
			case <-done:
				ferr <- nil
				return
			default:
			}
			m, _, err := ReadManifest(t.Context(), fc)
			if err != nil {
				ferr <- fmt.Errorf("read %d: %w", i, err)
				return
			}
			use := m
			if i%2 == 1 && prev != nil {
				use = prev
			}
			if err := readAll(t, fc, use, g.model); err != nil {
				ferr <- fmt.Errorf("follower read %d: %w", i, err)
				return
			}
			prev = m
			select {
			case reads <- struct{}{}:
			default:
			}
		}
	}()
	var total GCStats
	for round := range 30 {
		g.round(150)
		gs := g.gc(GCOptions{})
		total.Dead += gs.Dead
		total.Compacted += gs.Compacted
		total.Deleted += gs.Deleted
		select {
		case <-reads:
		case err := <-ferr:
			t.Fatalf("round %d: %v", round, err)
		case <-time.After(2 * time.Minute):
			t.Fatalf("round %d: the follower finished no read in 2 minutes", round)
		}
		clock.Advance(gcGrace / 3)
	}
	close(done)
	if err := <-ferr; err != nil {
		t.Fatal(err)
	}
	for range 3 {
		clock.Advance(2 * gcGrace)
		g.gc(GCOptions{})
	}
	m := checkSettled(t, g.c)
	if err := readAll(t, fc, m, g.model); err != nil {
		t.Fatal(err)
	}
	t.Logf("30 rounds: %d packs dead, %d compacted, %d deleted; %d packs left", total.Dead, total.Compacted, total.Deleted, len(m.Packs))
	if total.Deleted == 0 || total.Dead+total.Compacted == 0 {
		t.Fatalf("GC collected nothing: %+v", total)
	}
}

// TestGCFork: sidecar b forks a's history; its manifest references a's
// packs (none copied). a then rewrites everything and collects far past
// the grace: no pack b references is deleted, and b reads every tree. b
// writes on as its own writer, uploading only new nodes under its prefix,
// and its GC never touches a's packs.
func TestGCFork(t *testing.T) {
	srv := s3test.Start(t)
	clock := &fakeClock{t: time.Now()}
	s := seed.New(t, seedFlag)
	a := newGCWorld(t, srv, "team/a", s, clock)
	for range 3 {
		a.round(150)
	}
	forkLast := a.roots[len(a.roots)-1]
	bc := newTestClient(t, srv, "team/b")
	fm, err := Fork(t.Context(), a.c, bc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Fork(t.Context(), a.c, bc); err == nil || !strings.Contains(err.Error(), "already holds") {
		t.Fatalf("second fork into the same prefix: %v, want ErrForkExists", err)
	}
	if n := len(packObjects(t, bc)); n != 0 {
		t.Fatalf("the fork copied %d packs", n)
	}
	for _, p := range fm.Packs {
		if p.Prefix != "team/a" {
			t.Fatalf("fork's pack %+v does not reference team/a", p)
		}
	}
	forked := map[string]bool{}
	for _, p := range fm.Packs {
		forked[p.Key(bc.loc)] = true
	}
	// a moves on: every old version expires, GC runs long past the grace.
	var refd int
	for range 12 {
		a.round(400)
		refd = max(refd, a.gc(GCOptions{}).Referenced)
		clock.Advance(2 * gcGrace)
	}
	a.gc(GCOptions{}) // deletes what the last pass moved to pending
	objs := packObjects(t, a.c)
	for k := range forked {
		if !objs[k] {
			t.Fatalf("a's GC deleted pack %s, which b's manifest references", k)
		}
	}
	if refd == 0 {
		t.Fatal("a's GC saw no pack referenced by b")
	}
	bm, _, err := ReadManifest(t.Context(), bc)
	if err != nil {
		t.Fatal(err)
	}
	if err := readAll(t, bc, bm, a.model); err != nil {
		t.Fatalf("b reads its forked history: %v", err)
	}
	// a's own packs not referenced by b were collected.
	checkSettledExcept(t, a.c, forked)

	// b writes on: only the new nodes go up, under team/b.
	b := &gcWorld{t: t, srv: srv, c: bc, rng: rand.New(rand.NewPCG(s, 18)), keep: 3, clock: clock, models: map[addr.Hash]map[string]string{}}
	if b.w, err = OpenWriter(t.Context(), bc, WriterOptions{Holder: "team/b", TTL: 1000 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	b.st = NewStore(bc, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	if err := b.st.SetPacks(t.Context(), bm.Packs); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	for _, s := range bm.Roots {
		h, _ := addr.Parse(s)
		b.models[h] = a.models[h]
	}
	a.mu.Unlock()
	b.roots = []prolly.Root{forkLast}
	b.round(20)
	ref := b.w.Manifest().Packs
	own := ref[len(ref)-1]
	if own.Prefix != "" || own.Nodes == 0 || own.Nodes > 40 {
		t.Fatalf("b's first pack %+v: want only the few new nodes, under its own prefix", own)
	}
	for range 3 {
		b.round(20)
		b.gc(GCOptions{})
		clock.Advance(2 * gcGrace)
	}
	objs = packObjects(t, a.c)
	for k := range forked {
		if !objs[k] {
			t.Fatalf("b's GC deleted a's pack %s", k)
		}
	}
	bm2, _, err := ReadManifest(t.Context(), bc)
	if err != nil {
		t.Fatal(err)
	}
	if err := readAll(t, bc, bm2, b.model); err != nil {
		t.Fatalf("b reads its history: %v", err)
	}
}

// checkSettledExcept is checkSettled for a prefix some of whose packs a
// fork references: those may stay as objects outside the manifest.
func checkSettledExcept(t *testing.T, c *Client, refd map[string]bool) {
	t.Helper()
	m, _, err := ReadManifest(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, p := range m.Packs {
		want[p.Key(c.loc)] = true
	}
	for _, p := range m.Pending {
		if !refd[p.Key(c.loc)] {
			t.Fatalf("pending pack %s outlived the grace and is referenced by no one", p.Name)
		}
	}
	for k := range packObjects(t, c) {
		if !want[k] && !refd[k] {
			t.Fatalf("pack object %s is in no manifest and was not collected", k)
		}
	}
}

// TestGCCrash: a GC that dies after each of its steps (compacted pack
// uploaded; manifest switched; a pending pack deleted) leaves a manifest
// whose every tree reads back from a cold cache, and a restarted writer's
// later passes leave exactly the manifest's packs.
func TestGCCrash(t *testing.T) {
	srv := s3test.Start(t)
	s := seed.New(t, seedFlag)
	for i, step := range []string{"after-compact-pack", "after-switch", "after-delete"} {
		t.Run(step, func(t *testing.T) {
			clock := &fakeClock{t: time.Now()}
			prefix := fmt.Sprintf("crash/%d", i)
			g := newGCWorld(t, srv, prefix, s+uint64(i), clock)
			for range 8 {
				g.round(5) // few edits: old packs keep some live leaves
			}
			if step == "after-delete" {
				if gs := g.gc(GCOptions{CompactBelow: 0.99}); gs.Dead+gs.Compacted == 0 {
					t.Fatalf("first pass moved nothing to pending: %+v", gs)
				}
				clock.Advance(2 * gcGrace)
			}
			_, err := GC(t.Context(), g.w, g.st, GCOptions{Now: clock.Now, Grace: gcGrace, CompactBelow: 0.99, crashAt: step})
			if err != errCrash {
				t.Fatalf("GC did not reach step %s: %v", step, err)
			}
			m, _, err := ReadManifest(t.Context(), g.c)
			if err != nil {
				t.Fatal(err)
			}
			if err := readAll(t, g.c, m, g.model); err != nil {
				t.Fatalf("read after a crash %s: %v", step, err)
			}
			// The writer restarts: new lease epoch, a Store from the manifest.
			if g.w, err = OpenWriter(t.Context(), g.c, WriterOptions{Holder: prefix, TTL: 1000 * time.Hour}); err != nil {
				t.Fatal(err)
			}
			g.st = NewStore(g.c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
			if err := g.st.SetPacks(t.Context(), m.Packs); err != nil {
				t.Fatal(err)
			}
			g.round(150)
			for range 3 {
				clock.Advance(2 * gcGrace)
				g.gc(GCOptions{})
			}
			m = checkSettled(t, g.c)
			if err := readAll(t, g.c, m, g.model); err != nil {
				t.Fatal(err)
			}
		})
	}
}
