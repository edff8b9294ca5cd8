package radixindex

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkFreezeStall measures what a checkpoint's freeze costs the
// index's writer (issue 24): an index of n dense 8-byte keys bulk-built
// (as after a copy), frozen once, then 2,000 single-key batches (a row
// moved: a new row id under its key, in random order) while the view
// waits to be encoded, then the view encoded and released. Reported:
// freeze-ms (the lock hold), upd-max-µs, upd-p99-µs, upd-med-µs and
// upd-total-ms (the batches after the freeze), freeze-cpu-ms and
// upd-cpu-ms (the process's CPU over each), held-MB (the Go heap's growth from before the freeze to
// after the batches: what the view keeps alive beside the index) and
// index-MB. Run with -benchtime 1x:
//
//	go test -run XXX -bench FreezeStall -benchtime 1x ./radixindex/ -args -radix.sizes=1000000,3000000
func BenchmarkFreezeStall(b *testing.B) {
	for _, s := range strings.Split(*benchSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			b.Fatalf("-radix.sizes: %q is not a count", s)
		}
		b.Run(itoa(uint64(n)), func(b *testing.B) {
			for range b.N {
				freezeStall(b, n)
			}
		})
	}
}

func freezeStall(b *testing.B, n int) {
	// Row id id holds key id mod n: a moved row keeps its key.
	keyOf := func(dst []byte, id uint64) []byte { return binary.BigEndian.AppendUint64(dst, id%uint64(n)) }
	ix := NewIndex(keyOf)
	err := ix.Rebuild(1, func(yield func([]byte, uint64) bool) {
		var k [8]byte
		for i := range n {
			binary.BigEndian.PutUint64(k[:], uint64(i))
			if !yield(k[:], uint64(i)) {
				return
			}
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	t0, c0 := time.Now(), cpuNow()
	f := ix.Freeze()
	freeze := time.Since(t0)
	freezeCPU := cpuNow() - c0
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	const batches = 2000
	upd := make([]time.Duration, 0, batches)
	c1 := cpuNow()
	for g := range batches {
		k := rng.Uint64N(uint64(n))
		key := binary.BigEndian.AppendUint64(nil, k)
		t1 := time.Now()
		ix.Update(uint64(g+2), func(t *Tree) { t.Put(key, k+uint64(n)*uint64(g+1)) })
		upd = append(upd, time.Since(t1))
	}
	updCPU := cpuNow() - c1
	runtime.GC()
	runtime.ReadMemStats(&ms)
	held := int64(ms.HeapAlloc) - int64(before)
	var w bytes.Buffer
	if _, err := f.WriteCheckpoint(&w); err != nil {
		b.Fatal(err)
	}
	if r, ok := any(f).(interface{ Release() int }); ok {
		r.Release()
	}
	slices.Sort(upd)
	b.ReportMetric(float64(freeze.Microseconds())/1e3, "freeze-ms")
	b.ReportMetric(float64(upd[len(upd)-1].Microseconds()), "upd-max-µs")
	b.ReportMetric(float64(upd[len(upd)/2].Nanoseconds())/1e3, "upd-med-µs")
	b.ReportMetric(float64(upd[len(upd)*99/100].Nanoseconds())/1e3, "upd-p99-µs")
	var total time.Duration
	for _, d := range upd {
		total += d
	}
	b.ReportMetric(float64(total.Microseconds())/1e3, "upd-total-ms")
	b.ReportMetric(float64(freezeCPU.Microseconds())/1e3, "freeze-cpu-ms")
	b.ReportMetric(float64(updCPU.Microseconds())/1e3, "upd-cpu-ms")
	b.ReportMetric(float64(held)/(1<<20), "held-MB")
	b.ReportMetric(float64(ix.MemoryBytes())/(1<<20), "index-MB")
}
