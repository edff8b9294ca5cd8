package radixindex

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The benchmark measures one whole run per shape and size (use
// -benchtime 1x; b.N runs repeat it):
//
//	go test -run XXX -bench Index -benchtime 1x ./radixindex/ -args -radix.sizes=1000000,10000000
//
// Shapes follow ../shared/notes/storage.md §1.4: seq8 = big-endian
// uint64 0…n−1 inserted in order; rand8 = random uint64 in random order;
// k24 = 8-byte tenant (0–999) + 16 random bytes. Keys sit in one arena
// that stands in for the heap (the KeyFunc returns a slice of it); row id
// = arena index. Metrics are per key unless named otherwise; cpu-* is
// getrusage user+sys of the process over the same span.
var (
	benchSizes  = flag.String("radix.sizes", "1000000", "comma-separated key counts for BenchmarkIndex")
	benchFilter = flag.String("radix.shapes", "seq8,rand8,k24", "comma-separated key shapes for BenchmarkIndex")
)

type benchShape struct {
	name  string
	width int
	gen   func(rng *rand.Rand, i int, dst []byte)
}

var benchShapes = []benchShape{
	{"seq8", 8, func(_ *rand.Rand, i int, dst []byte) { binary.BigEndian.PutUint64(dst, uint64(i)) }},
	{"rand8", 8, func(rng *rand.Rand, _ int, dst []byte) { binary.BigEndian.PutUint64(dst, rng.Uint64()) }},
	{"k24", 24, func(rng *rand.Rand, _ int, dst []byte) {
		binary.BigEndian.PutUint64(dst, rng.Uint64N(1000))
		binary.BigEndian.PutUint64(dst[8:], rng.Uint64())
		binary.BigEndian.PutUint64(dst[16:], rng.Uint64())
	}},
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// span times fn in wall and CPU time.
func span(fn func()) (wall, cpu time.Duration) {
	c0, w0 := cpuNow(), time.Now()
	fn()
	return time.Since(w0), cpuNow() - c0
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// benchMap returns a lookup in a Go map from the n arena keys (8-byte
// keys as uint64, 24-byte keys as arrays) to their row ids.
func benchMap(w, n int, key func(uint64) []byte) func([]byte) (uint64, bool) {
	if w == 8 {
		m := make(map[uint64]uint64, n)
		for i := range uint64(n) {
			m[binary.BigEndian.Uint64(key(i))] = i
		}
		return func(k []byte) (uint64, bool) { v, ok := m[binary.BigEndian.Uint64(k)]; return v, ok }
	}
	m := make(map[[24]byte]uint64, n)
	for i := range uint64(n) {
		m[[24]byte(key(i))] = i
	}
	return func(k []byte) (uint64, bool) { v, ok := m[[24]byte(k)]; return v, ok }
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func BenchmarkIndex(b *testing.B) {
	var sizes []int
	for _, s := range strings.Split(*benchSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 20000 {
			b.Fatalf("-radix.sizes: %q is not a count ≥ 20000", s)
		}
		sizes = append(sizes, n)
	}
	for _, sh := range benchShapes {
		if !slices.Contains(strings.Split(*benchFilter, ","), sh.name) {
			continue
		}
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/%d", sh.name, n), func(b *testing.B) {
				for range b.N {
					benchOne(b, sh, n)
				}
			})
		}
	}
}

func benchOne(b *testing.B, sh benchShape, n int) {
	w := sh.width
	rng := rand.New(rand.NewPCG(uint64(n), uint64(w)))
	arena := make([]byte, n*w)
	for i := range n {
		sh.gen(rng, i, arena[i*w:(i+1)*w])
	}
	key := func(id uint64) []byte { return arena[int(id)*w : int(id)*w+w : int(id)*w+w] }
	keyOf := func(_ []byte, id uint64) []byte { return key(id) }
	per := func(d time.Duration, k int) float64 { return float64(d.Nanoseconds()) / float64(k) }

	// Insert all keys (seq8 in order, the random shapes in their random order).
	before := heapAlloc()
	tr := New(keyOf)
	wall, cpu := span(func() {
		for i := range n {
			tr.Put(key(uint64(i)), uint64(i))
		}
	})
	if tr.Len() != n {
		b.Fatalf("%d keys after %d distinct Puts (duplicate random keys?)", tr.Len(), n)
	}
	heapBytes := heapAlloc() - before
	b.ReportMetric(float64(tr.MemoryBytes())/float64(n), "B/key")
	b.ReportMetric(float64(heapBytes)/float64(n), "heapB/key")
	b.ReportMetric(float64(tr.n4.live()), "node4s")
	b.ReportMetric(float64(tr.n16.live()), "node16s")
	b.ReportMetric(float64(tr.n48.live()), "node48s")
	b.ReportMetric(float64(tr.n256.live()), "node256s")
	b.ReportMetric(per(wall, n), "insert-ns")
	b.ReportMetric(per(cpu, n), "insert-cpu-ns")

	// Point lookups of existing keys in random order. The probe keys are
	// copies (a request's key is not the row's), so the check at the leaf
	// reads the arena as it would read the heap. A Go map from the same
	// keys to the row ids is the yardstick: blocks of lookups alternate
	// between the two (A B A B …) and the medians are reported, with the
	// median of the pairwise CPU ratios.
	probes := min(n, 2_000_000)
	ids := make([]uint64, probes)
	pk := make([]byte, probes*w)
	for i := range ids {
		ids[i] = rng.Uint64N(uint64(n))
		copy(pk[i*w:], key(ids[i]))
	}
	probe := func(i int) []byte { return pk[i*w : i*w+w] }
	lookupMap := benchMap(w, n, key)
	const blocks = 10
	var artWall, artCPU, mapWall, mapCPU, ratio []float64
	var miss int
	for blk := range blocks {
		lo, hi := blk*probes/blocks, (blk+1)*probes/blocks
		wall, cpu := span(func() {
			for i := lo; i < hi; i++ {
				if got, ok := tr.Get(probe(i)); !ok || got != ids[i] {
					miss++
				}
			}
		})
		mw, mc := span(func() {
			for i := lo; i < hi; i++ {
				if got, ok := lookupMap(probe(i)); !ok || got != ids[i] {
					miss++
				}
			}
		})
		artWall, artCPU = append(artWall, per(wall, hi-lo)), append(artCPU, per(cpu, hi-lo))
		mapWall, mapCPU = append(mapWall, per(mw, hi-lo)), append(mapCPU, per(mc, hi-lo))
		ratio = append(ratio, float64(cpu)/float64(max(mc, 1)))
	}
	if miss > 0 {
		b.Fatalf("%d lookups missed", miss)
	}
	lookupMap = nil
	b.ReportMetric(median(artWall), "get-ns")
	b.ReportMetric(median(artCPU), "get-cpu-ns")
	b.ReportMetric(median(mapWall), "map-get-ns")
	b.ReportMetric(median(mapCPU), "map-get-cpu-ns")
	b.ReportMetric(median(ratio), "get/map-cpu")
	if sh.name == "seq8" {
		// The same lookups with the key check computed instead of read
		// from the arena: what the leaf's key check costs, and about what
		// a leaf holding its key inline would save on reads.
		ct := New(func(dst []byte, id uint64) []byte { return binary.BigEndian.AppendUint64(dst, id) })
		ct.root, ct.n, ct.n4, ct.n16, ct.n48, ct.n256 = tr.root, tr.n, tr.n4, tr.n16, tr.n48, tr.n256
		wall, cpu := span(func() {
			for i := range ids {
				ct.Get(probe(i))
			}
		})
		b.ReportMetric(per(wall, probes), "get-nokeyread-ns")
		b.ReportMetric(per(cpu, probes), "get-nokeyread-cpu-ns")
	}

	// Seek to a random existing key, then 10k keys in order.
	const seeks, run = 100, 10_000
	it := tr.Iter(nil)
	steps := 0
	wall, cpu = span(func() {
		for s := range seeks {
			ok := it.Seek(probe(s))
			for k := 0; ok && k < run; k++ {
				steps++
				ok = it.Next()
			}
		}
	})
	b.ReportMetric(float64(wall.Microseconds())/seeks, "seek10k-µs")
	b.ReportMetric(per(cpu, steps), "scan-cpu-ns")

	// Bulk load from the sorted order (taken from the tree, not timed).
	sorted := make([]uint64, 0, n)
	for ok := it.First(); ok; ok = it.Next() {
		sorted = append(sorted, it.RowID())
	}
	bt := New(keyOf)
	wall, cpu = span(func() {
		err := bt.Rebuild(func(yield func([]byte, uint64) bool) {
			for _, id := range sorted {
				if !yield(key(id), id) {
					return
				}
			}
		})
		if err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(per(wall, n), "bulk-ns")
	b.ReportMetric(per(cpu, n), "bulk-cpu-ns")
	b.ReportMetric(float64(bt.MemoryBytes())/float64(n), "bulk-B/key")
	bt = nil

	// Compact the insert-built tree (after everything above used it).
	var after int
	wall, cpu = span(func() { _, after = tr.Compact() })
	b.ReportMetric(float64(after)/float64(n), "compact-B/key")
	b.ReportMetric(per(cpu, n), "compact-cpu-ns")

	// Checkpoint to memory and restore.
	var buf bytes.Buffer
	buf.Grow(n * 8)
	wall, _ = span(func() {
		if _, err := tr.WriteCheckpoint(&buf, 1); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(float64(buf.Len())/float64(n), "ckpt-B/key")
	b.ReportMetric(per(wall, n), "ckpt-write-ns")
	wall, cpu = span(func() {
		rt, _, err := Restore(buf.Bytes(), keyOf)
		if err != nil || rt.Len() != n {
			b.Fatalf("restore: %v", err)
		}
	})
	b.ReportMetric(per(wall, n), "restore-ns")
	b.ReportMetric(per(cpu, n), "restore-cpu-ns")
	runtime.KeepAlive(tr)
}
