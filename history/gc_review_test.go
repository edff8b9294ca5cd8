package history

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// reviewScan reads public.t at ref as id → v.
func reviewScan(ctx context.Context, svc *Service, ref string) (map[string]string, error) {
	got := map[string]string{}
	err := svc.Scan(ctx, ReadRequest{Table: "public.t", AsOf: ref}, func(ReadHeader) error { return nil },
		func(r *Row) error { got[*r.Values[0]] = *r.Values[1]; return nil })
	return got, err
}

// reviewBranchRows reads public.t of a branch from the root its catalog
// record names, with the mirror's engine.
func reviewBranchRows(ctx context.Context, svc *Service, name string) (map[string]string, error) {
	b, ok, err := svc.refs.Catalog.Branch(name)
	if err != nil || !ok {
		return nil, fmt.Errorf("branch %s: found %v: %w", name, ok, err)
	}
	got := map[string]string{}
	root, ok := b.Root("public.t")
	if !ok {
		return got, nil
	}
	c, err := svc.mirror.Engine().Range(ctx, root, nil, nil)
	if err != nil {
		return nil, err
	}
	for c.Next() {
		vals, err := rowenc.Decode(c.Value())
		if err != nil {
			return nil, err
		}
		got[string(vals[0])] = string(vals[1])
	}
	return got, c.Err()
}

// reviewCheckStored walks every tree that stored records name (group
// records and branches) through a node store of its own over the same
// Badger: no cache, no pending Puts and no engine-pinned root of the
// mirror's node store can hide a node that a sweep deleted. It returns
// the number of distinct nodes read.
func reviewCheckStored(ctx context.Context, t *testing.T, f *historytest.Fixture, svc *Service) int {
	t.Helper()
	roots, err := f.Mirror.GroupRoots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := svc.refs.Catalog.Branches()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		for _, r := range b.Roots {
			roots = append(roots, r.Root)
		}
	}
	n, err := historytest.Whole(ctx, f.DB, roots)
	if err != nil {
		t.Fatalf("stored trees: %v", err)
	}
	return n
}

// TestReviewGCBesideEverything runs collections with retention in a
// loop while, at the same time, the writer commits (single rows, and
// transactions that spill), the table is resynced (MarkResync +
// TableCopied: a copy's build and group record during a GC), readers
// scan random versions, and tags, branches and merges kept as branches
// are created and deleted. A watchdog fails the test with every
// goroutine's stack if anything deadlocks. Afterwards, against the
// model: every retained version and every tag reads back exactly,
// every branch still reads what it read when made, every tree a stored
// record names is whole in Badger (read through a fresh node store), and
// GC deleted nodes.
func TestReviewGCBesideEverything(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 3))
	f := historytest.NewOpts(t, 1<<20, func(o *mirror.Options) { o.SpillRows = 40 })
	svc := New(f.DB, f.Mirror)
	ctx := context.Background()
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	cur := map[string]string{}
	rowsOf := func(m map[string]string) [][]*string {
		var out [][]*string
		for k, v := range m {
			out = append(out, []*string{historytest.S(k), historytest.S(v)})
		}
		return out
	}
	for id := range 300 {
		cur[strconv.Itoa(id)] = "v0"
	}
	f.CreateTable(rel, rowsOf(cur))

	var mu sync.Mutex // guards states, order, branches, tags
	states := map[wal.LSN]map[string]string{}
	var order []mirror.Version
	branches := map[string]map[string]string{} // kept branch → its rows when made
	tags := map[string]wal.LSN{}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var commits, gcRuns, gcDeleted, readsOK, readsRefused, refOps atomic.Int64

	// The watchdog covers the concurrent workload only (stopped when it
	// ends) and fires when the workload stops moving — no commit, GC run,
	// read or ref operation for 3 minutes — not when a loaded machine is
	// slow: a fixed 3 min for the whole workload fired under -race at
	// load 53, with nothing stuck in the goroutines it printed.
	watchStop, watchDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watchDone)
		progress := func() int64 {
			return commits.Load() + gcRuns.Load() + readsOK.Load() + readsRefused.Load() + refOps.Load()
		}
		last := progress()
		tick := time.NewTicker(3 * time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-watchStop:
				return
			case <-tick.C:
			}
			if p := progress(); p != last {
				last = p
				continue
			}
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			panic(fmt.Sprintf("seed %d: GC review workload made no progress for 3 min (deadlock?)\n%s", seed, buf[:n]))
		}
	}()
	stopWatchdog := sync.OnceFunc(func() { close(watchStop); <-watchDone })
	defer stopWatchdog()
	errc := make(chan error, 16)
	report := func(err error) {
		select {
		case errc <- err:
		default:
		}
	}
	pick := func(r *rand.Rand) (mirror.Version, map[string]string) {
		mu.Lock()
		defer mu.Unlock()
		v := order[r.IntN(len(order))]
		return v, states[v.EndLSN]
	}
	running := func() bool {
		select {
		case <-stop:
			return false
		default:
			return true
		}
	}

	// The writer, on the test goroutine (the fixture calls t.Fatal).
	commit := func(i int) {
		n := 1 + rng.IntN(3)
		if rng.IntN(12) == 0 {
			n = 100 // spills in chunks
		}
		next := maps.Clone(cur)
		v := f.Commit(func(tx *historytest.Tx) {
			for range n {
				id := strconv.Itoa(rng.IntN(320))
				if _, ok := next[id]; ok && rng.IntN(6) == 0 {
					tx.Delete(rel, id)
					delete(next, id)
					continue
				}
				val := "v" + strconv.Itoa(i)
				tx.Upsert(rel, []*string{historytest.S(id), historytest.S(val)})
				next[id] = val
			}
		})
		cur = next
		mu.Lock()
		states[v.EndLSN] = maps.Clone(cur)
		order = append(order, v)
		mu.Unlock()
	}
	for i := range 20 {
		commit(-1 - i)
	}

	// Collector: retention keeps roughly the last 60 commits.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for running() {
			mu.Lock()
			cutoff := time.Time{}
			if len(order) > 60 {
				cutoff = order[len(order)-60].CommitTime
			}
			mu.Unlock()
			st, err := svc.GC(ctx, GCRequest{ExpireBefore: cutoff})
			if errors.Is(err, mirror.ErrCopyBuilding) {
				// A resync's build began before this collection: it is
				// deferred, never waited for (mirror/gcbuild.go).
				time.Sleep(time.Millisecond)
				continue
			}
			if err != nil {
				report(fmt.Errorf("gc: %w", err))
				return
			}
			gcRuns.Add(1)
			gcDeleted.Add(st.Deleted)
			time.Sleep(time.Millisecond)
		}
	}()
	// Readers.
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(seed, uint64(10+r)))
			for running() {
				v, want := pick(rr)
				got, err := reviewScan(ctx, svc, v.EndLSN.String())
				switch {
				case err == nil:
					if !maps.Equal(got, want) {
						report(fmt.Errorf("read %s during GC differs from the model", v.EndLSN))
						return
					}
					readsOK.Add(1)
				case errors.Is(err, refs.ErrUnknownRef) || errors.Is(err, mirror.ErrExpired):
					readsRefused.Add(1)
				default:
					report(fmt.Errorf("read %s during GC: %w", v.EndLSN, err))
					return
				}
			}
		}()
	}
	// Refs: tags, branches, merges kept as branches, deletions.
	wg.Add(1)
	go func() {
		defer wg.Done()
		rr := rand.New(rand.NewPCG(seed, 20))
		for i := 0; running(); i++ {
			v, want := pick(rr)
			switch i % 4 {
			case 0:
				name := "tag" + strconv.Itoa(i)
				if _, err := svc.CreateTag(ctx, name, v.EndLSN.String()); err != nil {
					if !errors.Is(err, refs.ErrUnknownRef) && !errors.Is(err, mirror.ErrExpired) {
						report(fmt.Errorf("tag %s: %w", v.EndLSN, err))
						return
					}
					continue
				}
				mu.Lock()
				tags[name] = v.EndLSN
				mu.Unlock()
			case 1:
				name := "br" + strconv.Itoa(i)
				if _, err := svc.CreateBranch(ctx, name, v.EndLSN.String()); err != nil {
					if !errors.Is(err, refs.ErrUnknownRef) && !errors.Is(err, mirror.ErrExpired) {
						report(fmt.Errorf("branch %s: %w", v.EndLSN, err))
						return
					}
					continue
				}
				mu.Lock()
				branches[name] = want
				mu.Unlock()
			case 2:
				name := "mg" + strconv.Itoa(i)
				_, err := svc.Merge(ctx, MergeRequest{Ours: "HEAD", Theirs: v.EndLSN.String(), Base: "HEAD~3", Branch: name},
					func(*Event) error { return nil })
				if err != nil {
					if !errors.Is(err, refs.ErrUnknownRef) && !errors.Is(err, mirror.ErrExpired) {
						report(fmt.Errorf("merge: %w", err))
						return
					}
					continue
				}
				got, err := reviewScan(ctx, svc, name)
				if err != nil {
					report(fmt.Errorf("read merge branch %s: %w", name, err))
					return
				}
				mu.Lock()
				branches[name] = got
				mu.Unlock()
			case 3:
				mu.Lock()
				var victim string
				for name := range branches {
					if rr.IntN(2) == 0 {
						victim = name
						break
					}
				}
				if victim != "" {
					delete(branches, victim)
				}
				mu.Unlock()
				if victim != "" {
					if err := svc.DeleteBranch(ctx, victim); err != nil {
						report(fmt.Errorf("delete branch %s: %w", victim, err))
						return
					}
				}
			}
			refOps.Add(1)
		}
	}()

	start := time.Now()
	for i := 1; i <= 400 || gcRuns.Load() < 3; i++ {
		if i > 4000 {
			t.Fatalf("seed %d: %d GC runs after %d commits", seed, gcRuns.Load(), i)
		}
		commit(i)
		commits.Add(1)
		if i%150 == 0 {
			// A resync of the table while collections run: its tree is
			// rebuilt from a copy of the current rows.
			if err := f.Mirror.MarkResync(ctx, "public.t", "review"); err != nil {
				t.Fatal(err)
			}
			f.CreateTable(rel, rowsOf(cur))
		}
		select {
		case err := <-errc:
			close(stop)
			wg.Wait()
			t.Fatalf("seed %d: %v", seed, err)
		default:
		}
	}
	close(stop)
	wg.Wait()
	stopWatchdog()
	select {
	case err := <-errc:
		t.Fatalf("seed %d: %v", seed, err)
	default:
	}
	t.Logf("%d commits in %v beside %d GC runs (%d nodes deleted), %d reads matched, %d refused, %d ref operations",
		len(order), time.Since(start).Round(time.Millisecond), gcRuns.Load(), gcDeleted.Load(), readsOK.Load(), readsRefused.Load(), refOps.Load())
	if gcDeleted.Load() == 0 {
		t.Errorf("seed %d: no GC deleted anything although versions expired", seed)
	}

	// Everything stored is whole, with the writer stopped and once more
	// after a last collection.
	for _, when := range []string{"after the workload", "after a final GC"} {
		if when == "after a final GC" {
			if _, err := svc.GC(ctx, GCRequest{ExpireBefore: order[len(order)-60].CommitTime}); err != nil {
				t.Fatal(err)
			}
		}
		n := reviewCheckStored(ctx, t, f, svc)
		horizon, islands := f.Mirror.Horizon()
		retained := func(v wal.LSN) bool {
			if v >= horizon {
				return true
			}
			for _, is := range islands {
				if is.Base <= v && v <= is.Kept {
					return true
				}
			}
			return false
		}
		kept := 0
		for _, v := range order {
			got, err := reviewScan(ctx, svc, v.EndLSN.String())
			if retained(v.EndLSN) {
				if err != nil || !maps.Equal(got, states[v.EndLSN]) {
					t.Fatalf("seed %d: %s: retained version %s: err %v", seed, when, v.EndLSN, err)
				}
				kept++
			} else if err == nil {
				t.Fatalf("seed %d: %s: version %s below the horizon %s outside any island still resolves", seed, when, v.EndLSN, horizon)
			}
		}
		for name, lsn := range tags {
			got, err := reviewScan(ctx, svc, name)
			if err != nil || !maps.Equal(got, states[lsn]) {
				t.Fatalf("seed %d: %s: tag %s (%s): err %v", seed, when, name, lsn, err)
			}
		}
		for name, want := range branches {
			// Read through the catalog's root, not Resolve: resolving a
			// branch whose origin version expired fails (reported apart).
			got, err := reviewBranchRows(ctx, svc, name)
			if err != nil || !maps.Equal(got, want) {
				t.Fatalf("seed %d: %s: branch %s: err %v", seed, when, name, err)
			}
		}
		t.Logf("%s: %d stored nodes whole, %d of %d versions retained (horizon %s, %d islands), %d tags, %d branches",
			when, n, kept, len(order), horizon, len(islands), len(tags), len(branches))
	}
}
