package prolly_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
)

// The Badger-backed store must satisfy the engine's interface.
var _ prolly.NodeStore = (*store.NodeStore[*prolly.Node])(nil)

func openBadger(tb testing.TB, dir string) (*store.DB, *store.NodeStore[*prolly.Node]) {
	tb.Helper()
	db, err := store.Open(store.Options{Dir: dir})
	if err != nil {
		tb.Fatal(err)
	}
	return db, store.NewNodeStore[*prolly.Node](db, prolly.NodeCodec{})
}

func key(i int) []byte      { return []byte(fmt.Sprintf("key-%020d", i)) }
func value(i, g int) []byte { return []byte(fmt.Sprintf("value-%09d-%011d", g, i)) }

// TestOnBadger runs build, mutate, diff and check through the real store,
// across a close and reopen.
func TestOnBadger(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	db, ns := openBadger(t, dir)
	e := prolly.NewDefaultEngine(ns)
	b := e.NewBuilder(ctx)
	const n = 50000
	for i := 0; i < n; i++ {
		if err := b.Add(key(2*i), value(i, 0)); err != nil {
			t.Fatal(err)
		}
	}
	base, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var eds []prolly.Edit
	for i := 0; i < n; i += 97 {
		eds = append(eds, prolly.Edit{Key: key(2 * i), Value: value(i, 1)}, prolly.Edit{Key: key(2*i + 1), Value: value(i, 1)})
	}
	next, err := e.Mutate(ctx, base, eds)
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, ns = openBadger(t, dir)
	defer db.Close()
	e = prolly.NewDefaultEngine(ns)
	if err := e.Check(ctx, next); err != nil {
		t.Fatal(err)
	}
	d, err := e.Diff(ctx, base, next, prolly.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	added, changed := 0, 0
	for d.Next() {
		switch d.Entry().Kind {
		case prolly.Added:
			added++
		case prolly.Changed:
			changed++
		default:
			t.Fatalf("unexpected %v %s", d.Entry().Kind, d.Entry().Key)
		}
	}
	if d.Err() != nil || added != len(eds)/2 || changed != len(eds)/2 {
		t.Fatalf("diff: %d added, %d changed, %v; want %d each", added, changed, d.Err(), len(eds)/2)
	}
}

// BenchmarkBuildBadger builds -benchrows rows (default 1M) of the seed
// shape into a Badger store on disk, flush included.
func BenchmarkBuildBadger(b *testing.B) {
	n := 1_000_000
	if f := flag.Lookup("benchrows"); f != nil && f.Value.String() != "" {
		n, _ = strconv.Atoi(f.Value.String())
	}
	for range b.N {
		b.StopTimer()
		db, ns := openBadger(b, b.TempDir())
		e := prolly.NewDefaultEngine(ns)
		ctx := context.Background()
		runtime.GC()
		b.StartTimer()
		t0, c0 := time.Now(), cpuTime()
		bl := e.NewBuilder(ctx)
		k, v := make([]byte, 0, 24), make([]byte, 0, 27)
		for i := 0; i < n; i++ {
			k = fmt.Appendf(k[:0], "key-%020d", 2*i)
			v = fmt.Appendf(v[:0], "value-%09d-%011d", 0, i)
			if err := bl.Add(k, v); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := bl.Finish(); err != nil {
			b.Fatal(err)
		}
		if err := ns.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(n), "ns/row")
		b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(n), "cpu-ns/row")
		b.StopTimer()
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// badgerFixture builds rows of the seed shape into a Badger store on disk,
// then reopens it so the node cache starts cold.
func badgerFixture(b *testing.B) (*store.DB, *prolly.Engine, prolly.Root, int) {
	b.Helper()
	n := 1_000_000
	if f := flag.Lookup("benchrows"); f != nil && f.Value.String() != "" {
		n, _ = strconv.Atoi(f.Value.String())
	}
	dir := b.TempDir()
	db, ns := openBadger(b, dir)
	e := prolly.NewDefaultEngine(ns)
	ctx := context.Background()
	bl := e.NewBuilder(ctx)
	for i := 0; i < n; i++ {
		if err := bl.Add(key(2*i), value(i, 0)); err != nil {
			b.Fatal(err)
		}
	}
	r, err := bl.Finish()
	if err != nil {
		b.Fatal(err)
	}
	if err := ns.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	db, ns = openBadger(b, dir)
	b.Cleanup(func() { db.Close() })
	return db, prolly.NewDefaultEngine(ns), r, n
}

func randomEdits(rng interface{ IntN(int) int }, n, count, gen int) []prolly.Edit {
	seen := map[int]bool{}
	for len(seen) < count {
		seen[rng.IntN(n)] = true
	}
	idx := make([]int, 0, count)
	for i := range seen {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	eds := make([]prolly.Edit, len(idx))
	for j, i := range idx {
		eds[j] = prolly.Edit{Key: key(2 * i), Value: value(i, gen)}
	}
	return eds
}

// BenchmarkMutate10kBadger applies batches of 10k updates (random rows,
// consecutive rows, appends past the end) to a tree of -benchrows rows in a
// Badger store whose cache started cold; each batch applies to the same base.
func BenchmarkMutate10kBadger(b *testing.B) {
	_, e, r, n := badgerFixture(b)
	ctx := context.Background()
	for _, pattern := range []string{"random", "clustered", "append"} {
		b.Run(pattern, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			var cpu time.Duration
			for i := range b.N {
				b.StopTimer()
				var eds []prolly.Edit
				switch pattern {
				case "random":
					eds = randomEdits(rng, n, 10000, i+1)
				case "clustered":
					for j := range 10000 {
						k := n/2 - 5000 + j
						eds = append(eds, prolly.Edit{Key: key(2 * k), Value: value(k, i+1)})
					}
				case "append":
					for j := range 10000 {
						eds = append(eds, prolly.Edit{Key: key(2 * (n + j)), Value: value(n+j, i+1)})
					}
				}
				b.StartTimer()
				c0 := cpuTime()
				if _, err := e.Mutate(ctx, r, eds); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime returns the process's user+system CPU time: on this shared
// machine, wall time mostly measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDiffRandom10kBadger diffs a tree of -benchrows rows against itself
// with 10k random updates, in a Badger store whose cache started cold.
func BenchmarkDiffRandom10kBadger(b *testing.B) {
	_, e, r, n := badgerFixture(b)
	rng := rand.New(rand.NewPCG(2, 2))
	ctx := context.Background()
	to, err := e.Mutate(ctx, r, randomEdits(rng, n, 10000, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		d, err := e.Diff(ctx, r, to, prolly.DiffOptions{})
		if err != nil {
			b.Fatal(err)
		}
		c := 0
		for d.Next() {
			c++
		}
		if d.Err() != nil || c != 10000 {
			b.Fatalf("diff: %d entries, %v", c, d.Err())
		}
	}
	b.ReportMetric(float64((cpuTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// A warm descent starts at the engine's pinned root and follows the weak
// pointers nodes keep to their decoded children: resident nodes cost no
// store read, collected ones are read again (the pointers never keep a node
// alive), and after Unpin and a cache clear the whole path is read.
func TestPinnedRootAndWeakChildren(t *testing.T) {
	_, ns := openBadger(t, t.TempDir())
	e := prolly.NewDefaultEngine(ns)
	ctx := t.Context()
	b := e.NewBuilder(ctx)
	for i := range 50000 {
		if err := b.Add(key(i), value(i, 0)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := e.Stats(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if st.Height < 3 {
		t.Fatalf("height %d: the test needs internal nodes above the leaves' parents", st.Height)
	}
	reads := func(k int) int64 {
		t.Helper()
		before := ns.Stats().Reads
		v, ok, err := e.Get(ctx, r, key(k))
		if err != nil || !ok || string(v) != string(value(k, 0)) {
			t.Fatalf("get %d: %q %v %v", k, v, ok, err)
		}
		return ns.Stats().Reads - before
	}
	ns.ClearCache()
	e.Unpin()
	if got := reads(123); got != int64(st.Height) {
		t.Fatalf("cold get read %d nodes, want the height %d", got, st.Height)
	}
	if got := reads(123); got != 0 {
		t.Fatalf("warm get read %d nodes, want 0", got)
	}
	// Only the root is held strongly: once the cache lets go and the
	// collector runs, the rest of the path is read again.
	ns.ClearCache()
	runtime.GC()
	if got := reads(123); got != int64(st.Height-1) {
		t.Fatalf("get with only the root pinned read %d nodes, want %d", got, st.Height-1)
	}
	ns.ClearCache()
	e.Unpin()
	if got := reads(125); got != int64(st.Height) {
		t.Fatalf("get after Unpin read %d nodes, want %d", got, st.Height)
	}
}
