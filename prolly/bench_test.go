package prolly

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The benchmark shape follows the seed report: 24-byte ordered keys, 27-byte
// values, 1M rows (set -benchrows for more), MemStore so the numbers are the
// engine's own costs.

func benchRows(b *testing.B) int {
	if s := testingFlag("benchrows"); s != "" {
		n, err := strconv.Atoi(s)
		if err == nil {
			return n
		}
	}
	return 1_000_000
}

// benchKey is "key-" and i in 20 decimal digits: 24 bytes, ordered like i.
func benchKey(dst []byte, i int) []byte { return appendDigits(append(dst[:0], "key-"...), i, 20) }

// benchValue is 27 bytes naming the row and its generation.
func benchValue(dst []byte, i, gen int) []byte {
	return appendDigits(append(appendDigits(append(dst[:0], "value-"...), gen, 9), '-'), i, 11)
}

func appendDigits(dst []byte, v, width int) []byte {
	n := len(dst)
	for j := 0; j < width; j++ {
		dst = append(dst, '0')
	}
	for j := len(dst) - 1; j >= n && v > 0; j-- {
		dst[j] = byte('0' + v%10)
		v /= 10
	}
	return dst
}

type benchFixture struct {
	e    *Engine
	ms   *MemStore
	root Root
	n    int
}

func newBenchFixture(b *testing.B, n int) *benchFixture {
	b.Helper()
	ms := NewMemStore(MemStoreOptions{})
	e := NewDefaultEngine(ms)
	bl := e.NewBuilder(context.Background())
	var k, v []byte
	for i := 0; i < n; i++ {
		k, v = benchKey(k, 2*i), benchValue(v, i, 0)
		if err := bl.Add(k, v); err != nil {
			b.Fatal(err)
		}
	}
	r, err := bl.Finish()
	if err != nil {
		b.Fatal(err)
	}
	return &benchFixture{e: e, ms: ms, root: r, n: n}
}

// edits returns 10k-style edit batches: "random" updates random rows,
// "clustered" updates consecutive rows in the middle, "append" adds rows past
// the end.
func (f *benchFixture) edits(pattern string, count int, gen int, rng *rand.Rand) []Edit {
	var idx []int
	switch pattern {
	case "random":
		seen := map[int]bool{}
		for len(idx) < count {
			if i := rng.IntN(f.n); !seen[i] {
				seen[i] = true
				idx = append(idx, i)
			}
		}
		slices.Sort(idx)
	case "clustered":
		start := f.n/2 - count/2 + gen*count
		for i := 0; i < count; i++ {
			idx = append(idx, start+i)
		}
	case "append":
		for i := 0; i < count; i++ {
			idx = append(idx, f.n+gen*count+i)
		}
	}
	eds := make([]Edit, len(idx))
	for j, i := range idx {
		eds[j] = Edit{Key: benchKey(nil, 2*i), Value: benchValue(nil, i, gen+1)}
	}
	return eds
}

// procCPU returns the process's user+system CPU time: on this shared
// machine wall time also measures the neighbours, CPU time does not.
func procCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, c0 time.Duration) {
	b.ReportMetric(float64((procCPU()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func BenchmarkBuild(b *testing.B) {
	n := benchRows(b)
	b.ReportAllocs()
	c0 := procCPU()
	for b.Loop() {
		newBenchFixture(b, n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
	reportCPU(b, c0)
}

func BenchmarkGetWarm(b *testing.B) {
	f := newBenchFixture(b, benchRows(b))
	rng := rand.New(rand.NewPCG(1, 1))
	keys := make([][]byte, 4096)
	for i := range keys {
		keys[i] = benchKey(nil, 2*rng.IntN(f.n))
	}
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok, err := f.e.Get(ctx, f.root, keys[i%len(keys)]); err != nil || !ok {
			b.Fatal("missing", err)
		}
		i++
	}
}

func BenchmarkGetManyRandom10k(b *testing.B) {
	f := newBenchFixture(b, benchRows(b))
	rng := rand.New(rand.NewPCG(2, 2))
	var keys [][]byte
	for _, ed := range f.edits("random", 10000, 0, rng) {
		keys = append(keys, ed.Key)
	}
	ctx := context.Background()
	for b.Loop() {
		found := 0
		if err := f.e.GetMany(ctx, f.root, keys, func(int, []byte, bool) error { found++; return nil }); err != nil || found != len(keys) {
			b.Fatal(err)
		}
	}
}

func BenchmarkRangeScan10k(b *testing.B) {
	f := newBenchFixture(b, benchRows(b))
	rng := rand.New(rand.NewPCG(3, 3))
	ctx := context.Background()
	for b.Loop() {
		c, err := f.e.Range(ctx, f.root, benchKey(nil, 2*rng.IntN(f.n-10000)), nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 10000 && c.Next(); i++ {
		}
		if c.Err() != nil {
			b.Fatal(c.Err())
		}
	}
}

func BenchmarkFullScan(b *testing.B) {
	f := newBenchFixture(b, benchRows(b))
	ctx := context.Background()
	for b.Loop() {
		c, err := f.e.Range(ctx, f.root, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for c.Next() {
			n++
		}
		if n != f.n {
			b.Fatalf("scanned %d rows", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(f.n), "ns/row")
}

func benchMutate(b *testing.B, pattern string, count int) {
	f := newBenchFixture(b, benchRows(b))
	rng := rand.New(rand.NewPCG(4, 4))
	ctx := context.Background()
	var written int64
	var cpu time.Duration
	b.ResetTimer()
	for gen := range b.N {
		b.StopTimer()
		eds := f.edits(pattern, count, gen, rng)
		w0 := f.ms.Writes()
		b.StartTimer()
		c0 := procCPU()
		if _, err := f.e.Mutate(ctx, f.root, eds); err != nil {
			b.Fatal(err)
		}
		cpu += procCPU() - c0
		written += f.ms.Writes() - w0
	}
	b.ReportMetric(float64(written)/float64(b.N), "nodes-written/op")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func BenchmarkMutateRandom10k(b *testing.B)    { benchMutate(b, "random", 10000) }
func BenchmarkMutateClustered10k(b *testing.B) { benchMutate(b, "clustered", 10000) }
func BenchmarkMutateAppend10k(b *testing.B)    { benchMutate(b, "append", 10000) }
func BenchmarkMutateRandom1(b *testing.B)      { benchMutate(b, "random", 1) }

func benchDiff(b *testing.B, pattern string) {
	f := newBenchFixture(b, benchRows(b))
	rng := rand.New(rand.NewPCG(5, 5))
	ctx := context.Background()
	to, err := f.e.Mutate(ctx, f.root, f.edits(pattern, 10000, 0, rng))
	if err != nil {
		b.Fatal(err)
	}
	f.ms.ResetCounters()
	c0 := procCPU()
	for b.Loop() {
		d, err := f.e.Diff(ctx, f.root, to, DiffOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for d.Next() {
			n++
		}
		if d.Err() != nil || n != 10000 {
			b.Fatalf("diff: %d entries, %v", n, d.Err())
		}
	}
	b.ReportMetric(float64(f.ms.Reads())/float64(b.N), "node-reads/op")
	reportCPU(b, c0)
}

func BenchmarkDiffRandom10k(b *testing.B)    { benchDiff(b, "random") }
func BenchmarkDiffClustered10k(b *testing.B) { benchDiff(b, "clustered") }

func benchMerge(b *testing.B, pattern string) {
	f := newBenchFixture(b, benchRows(b))
	rng := rand.New(rand.NewPCG(6, 6))
	ctx := context.Background()
	// Disjoint 10k changes per side: theirs edits generation 1 rows, ours
	// generation 0 rows elsewhere (appends land past each other).
	oe := f.edits(pattern, 10000, 0, rng)
	te := f.edits(pattern, 10000, 1, rng)
	inOurs := map[string]bool{}
	for _, ed := range oe {
		inOurs[string(ed.Key)] = true
	}
	te = slices.DeleteFunc(te, func(ed Edit) bool { return inOurs[string(ed.Key)] })
	ours, err := f.e.Mutate(ctx, f.root, oe)
	if err != nil {
		b.Fatal(err)
	}
	theirs, err := f.e.Mutate(ctx, f.root, te)
	if err != nil {
		b.Fatal(err)
	}
	c0 := procCPU()
	for b.Loop() {
		res, err := f.e.Merge(ctx, f.root, ours, theirs, nil)
		if err != nil || len(res.Conflicts) != 0 || res.Applied != len(te) {
			b.Fatalf("merge: %v, %d conflicts, %d applied", err, len(res.Conflicts), res.Applied)
		}
	}
	reportCPU(b, c0)
}

func BenchmarkMergeRandom20k(b *testing.B)    { benchMerge(b, "random") }
func BenchmarkMergeClustered20k(b *testing.B) { benchMerge(b, "clustered") }

func BenchmarkDigestRange(b *testing.B) {
	f := newBenchFixture(b, benchRows(b))
	rng := rand.New(rand.NewPCG(7, 7))
	ctx := context.Background()
	for b.Loop() {
		i, j := rng.IntN(f.n), rng.IntN(f.n)
		if _, err := f.e.DigestRange(ctx, f.root, benchKey(nil, 2*min(i, j)), benchKey(nil, 2*max(i, j))); err != nil {
			b.Fatal(err)
		}
	}
}
