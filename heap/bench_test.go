package heap

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// The seed-003 workload (../shared/seeds/003_…): a table of n rows, UPDATE
// score = score + 10 for id ≤ n/2, DELETE id ≤ n/5, then VACUUM and
// VACUUM FULL; here in the heap alone, with the issue-14 table shape
// (id bigint, k text, v text, score int, grp int). Rows are inserted in id
// order, so row ids follow the key, as after an initial copy.
//
//	go test -run XXX -bench 'Seed003' -benchtime 5x ./heap/
//
// Each iteration starts from a freshly built heap (not timed); the metrics
// are medians over the iterations of wall and CPU (user+sys) time.

var seedSchema = Schema{Columns: []Column{
	{"id", KindInt8}, {"k", KindText}, {"v", KindText}, {"score", KindInt4}, {"grp", KindInt4},
}}

func seedRow(dst []byte, id, score int64) []byte {
	var buf [24]byte
	dst = rowenc.AppendValue(dst, strconv.AppendInt(buf[:0], id, 10))
	k := append(append(buf[:0:0], 'k'), strconv.AppendInt(buf[:0], id*7919%1000003, 10)...)
	dst = rowenc.AppendValue(dst, k)
	v := fmt.Appendf(nil, "v%015x", uint64(id)*0x9E3779B97F4A7C15)
	dst = rowenc.AppendValue(dst, v)
	dst = rowenc.AppendValue(dst, strconv.AppendInt(buf[:0], score, 10))
	return rowenc.AppendValue(dst, strconv.AppendInt(buf[:0], id%100, 10))
}

// buildSeed returns a heap of n seed rows (ids 1..n) and their row ids.
func buildSeed(tb testing.TB, n int, cfg Config) (*Heap, []RowID) {
	h := mustNew(tb, seedSchema, cfg)
	ids := make([]RowID, 0, n)
	const chunk = 100000
	for lo := 1; lo <= n; lo += chunk {
		var b Batch
		for id := lo; id < lo+chunk && id <= n; id++ {
			b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: seedRow(nil, int64(id), int64(id%1000))})
		}
		ids = append(ids, mustApply(tb, h, b)...)
	}
	return h, ids
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type timing struct{ wall, cpu []time.Duration }

func (t *timing) measure(fn func()) {
	runtime.GC()
	c0, w0 := cpuNow(), time.Now()
	fn()
	t.wall = append(t.wall, time.Since(w0))
	t.cpu = append(t.cpu, cpuNow()-c0)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func (t *timing) report(b *testing.B) {
	b.ReportMetric(float64(median(t.wall).Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(median(t.cpu).Microseconds())/1000, "median-cpu-ms")
	b.Logf("wall %v; cpu %v", t.wall, t.cpu)
}

func BenchmarkSeed003(b *testing.B) {
	const n = 1000000
	for _, op := range []string{"update50", "delete20", "vacuum", "compactfull", "delete20-autovacuum"} {
		b.Run(op, func(b *testing.B) {
			var tm timing
			for range b.N {
				b.StopTimer()
				cfg := Config{DeadPercent: -1}
				if op == "delete20-autovacuum" {
					cfg.DeadPercent = 0
				}
				h, ids := buildSeed(b, n, cfg)
				upd := Batch{LSN: 1}
				for i := range n / 2 {
					id := int64(i + 1)
					upd.Ops = append(upd.Ops, Op{Kind: OpUpdate, ID: ids[i], Row: seedRow(nil, id, id%1000+10)})
				}
				del := Batch{LSN: 2}
				for i := range n / 5 {
					del.Ops = append(del.Ops, Op{Kind: OpDelete, ID: ids[i]})
				}
				switch op {
				case "update50":
					tm.measure(func() { mustApply(b, h, upd) })
					s := h.Snapshot()
					if st := s.Stats(3); st.Count != n {
						b.Fatalf("count %d", st.Count)
					}
					s.Release()
				case "delete20", "delete20-autovacuum":
					mustApply(b, h, upd)
					tm.measure(func() { mustApply(b, h, del) })
				case "vacuum":
					mustApply(b, h, upd)
					mustApply(b, h, del)
					tm.measure(func() { h.Vacuum() })
				case "compactfull":
					mustApply(b, h, upd)
					mustApply(b, h, del)
					var moves []Move
					tm.measure(func() { moves = h.Compact() })
					if s := h.Snapshot(); s.Rows() != n-n/5 || len(moves) == 0 {
						b.Fatalf("rows %d moves %d", s.Rows(), len(moves))
					}
				}
				h.Close()
			}
			tm.report(b)
		})
	}
}

// sumColumn sums int column c over the snapshot's live, non-NULL values
// with workers goroutines (pages split round-robin): the kernel issue 14
// will run, as a floor for it.
func sumColumn(s *Snapshot, c, workers int) Int128 {
	parts := make([]Int128, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var acc Int128
			for p := w; p < s.NumPages(); p += workers {
				pv := s.Page(p)
				vals, live, nulls := pv.Int64s(c), pv.Live(), pv.Nulls(c)
				var sum int64 // a page of ≤ 65536 int32 values cannot overflow int64
				for wi, m := range live {
					m &^= nulls[wi]
					base := wi * 64
					if m == ^uint64(0) {
						var a0, a1, a2, a3 int64
						v := vals[base : base+64 : base+64]
						for i := 0; i < 64; i += 4 {
							a0 += v[i]
							a1 += v[i+1]
							a2 += v[i+2]
							a3 += v[i+3]
						}
						sum += a0 + a1 + a2 + a3
						continue
					}
					for m != 0 {
						sum += vals[base+bits.TrailingZeros64(m)]
						m &= m - 1
					}
				}
				acc.Add(sum)
			}
			parts[w] = acc
		}()
	}
	wg.Wait()
	var total Int128
	for _, p := range parts {
		total.AddInt128(p)
	}
	return total
}

func BenchmarkSumInt(b *testing.B) {
	for _, n := range []int{1000000, 10000000} {
		b.Run(fmt.Sprintf("rows%dM", n/1000000), func(b *testing.B) {
			h, _ := buildSeed(b, n, Config{})
			defer h.Close()
			s := h.Snapshot()
			defer s.Release()
			want := s.Stats(3).Sum
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("goroutines%d", workers), func(b *testing.B) {
					var tm timing
					for range b.N {
						tm.measure(func() {
							if got := sumColumn(s, 3, workers); got != want {
								b.Fatalf("sum %v, kept %v", got, want)
							}
						})
					}
					tm.report(b)
				})
			}
			b.Run("summary", func(b *testing.B) {
				for range b.N {
					if st := s.Stats(3); st.Sum != want {
						b.Fatal("sum")
					}
				}
			})
		})
	}
}

// BenchmarkFootprint reports bytes per row of the decoded heap (Go heap
// growth after GC) and of its checkpoint images per codec, and the decode
// speed of those images (1 goroutine): the s2-vs-zstd measurement.
func BenchmarkFootprint(b *testing.B) {
	const n = 1000000
	for range b.N {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		h, ids := buildSeed(b, n, Config{})
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/n, "heap-B/row")
		s := h.Snapshot()
		var raws [][]byte
		rawTotal := 0
		for i := range s.NumPages() {
			img := encodePage(nil, s.v.pages.at(i), &h.schema)
			raws = append(raws, img)
			rawTotal += len(img)
		}
		b.ReportMetric(float64(rawTotal)/n, "image-B/row")
		for _, c := range []Codec{CodecS2, CodecZstd} {
			var blobs [][]byte
			total := 0
			t0 := time.Now()
			for _, img := range raws {
				blob := h.z.compress(nil, img, c)
				blobs = append(blobs, blob)
				total += len(blob)
			}
			enc := time.Since(t0)
			var buf []byte
			var tm timing
			for range 5 {
				tm.measure(func() {
					for _, blob := range blobs {
						var err error
						if buf, err = h.z.decompress(buf, blob); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			dec := median(tm.wall)
			tm2 := timing{}
			tm2.measure(func() {
				for _, blob := range blobs {
					raw, err := h.z.decompress(nil, blob)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := decodePage(raw, &h.schema, h.cfg.PageRows, 0); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.ReportMetric(float64(total)/n, c.String()+"-B/row")
			b.ReportMetric(float64(rawTotal)/float64(total), c.String()+"-ratio")
			b.ReportMetric(float64(rawTotal)/dec.Seconds()/1e6, c.String()+"-decode-MB/s")
			b.Logf("%v: %d pages, raw %d B, compressed %d B (ratio %.2f), encode %v (%.0f MB/s), decompress median %v (%.0f MB/s, cpu %v), decompress+decode to pages %v",
				c, len(raws), rawTotal, total, float64(rawTotal)/float64(total), enc, float64(rawTotal)/enc.Seconds()/1e6,
				dec, float64(rawTotal)/dec.Seconds()/1e6, median(tm.cpu), tm2.wall[0])
		}
		s.Release()
		_ = ids
		h.Close()
	}
}

// BenchmarkSmallBatch: the streaming case, one-row transactions on a 1M-row
// heap: the copy-on-write cost per batch (a page header, its bitmaps and
// the written column segments are copied once per batch).
func BenchmarkSmallBatch(b *testing.B) {
	const n = 1000000
	h, ids := buildSeed(b, n, Config{})
	defer h.Close()
	for _, op := range []string{"update", "insert", "delete+insert"} {
		b.Run(op, func(b *testing.B) {
			rows := make([][]byte, 1024)
			for i := range rows {
				rows[i] = seedRow(nil, int64(i+1), int64(i)+7)
			}
			c0 := cpuNow()
			b.ResetTimer()
			for i := range b.N {
				var bt Batch
				switch op {
				case "update": // score = score + 10, as the stream sends it: the whole new row
					j := (i * 7919) % len(ids)
					bt.Ops = []Op{{Kind: OpUpdate, ID: ids[j], Row: seedRow(rows[0][:0:0], int64(j+1), int64(j+1)%1000+10+int64(i))}}
				case "insert":
					bt.Ops = []Op{{Kind: OpInsert, Row: rows[i%len(rows)]}}
				case "delete+insert":
					j := (i * 7919) % len(ids)
					bt.Ops = []Op{{Kind: OpDelete, ID: ids[j]}, {Kind: OpInsert, Row: rows[i%len(rows)]}}
				}
				got, err := h.Apply(bt)
				if err != nil {
					b.Fatal(err)
				}
				if op != "insert" {
					ids[(i*7919)%len(ids)] = got[len(got)-1]
				}
			}
			b.ReportMetric(float64((cpuNow()-c0).Nanoseconds())/float64(b.N), "cpu-ns/batch")
		})
	}
}

// BenchmarkBoundedBuild: a table built in batches of 16k inserts (as the
// initial copy's one-pass HEAD build applies it) into a heap with a memory
// bound it never reaches, at two sizes: the CPU per million rows should
// not grow with the table. evictMidBatch checks the bound every
// midBatchEvictOps ops by summing every page's decoded size; before pages
// of older batches cached it, that walk made the build quadratic.
//
//	go test -run XXX -bench BoundedBuild -benchtime 1x ./heap/
func BenchmarkBoundedBuild(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
		mem  int64
	}{
		{"1000000", 1_000_000, 64 << 30},
		{"3000000", 3_000_000, 64 << 30},
		// Over its bound from the first batches on: most pages are made
		// cold (freeze) while the table is built, as a 10M-row copy's
		// HEAD past heap.memory.
		{"1000000-over-bound", 1_000_000, 16 << 20},
	} {
		n := c.n
		b.Run(c.name, func(b *testing.B) {
			const chunk = 16 << 10
			var t timing
			for b.Loop() {
				h := mustNew(b, seedSchema, Config{Memory: c.mem})
				var row []byte
				t.measure(func() {
					var bt Batch
					arena := make([]byte, 0, chunk*80)
					for id := 1; id <= n; id++ {
						start := len(arena)
						row = seedRow(row[:0], int64(id), int64(id%1000))
						arena = append(arena, row...)
						bt.Ops = append(bt.Ops, Op{Kind: OpInsert, Row: arena[start:len(arena):len(arena)]})
						if len(bt.Ops) == chunk || id == n {
							mustApply(b, h, bt)
							bt.Ops, arena = bt.Ops[:0], arena[:0]
						}
					}
				})
				h.Close()
			}
			b.ReportMetric(float64(median(t.cpu).Microseconds())/1000/(float64(n)/1e6), "cpu-ms/1Mrows")
		})
	}
}
