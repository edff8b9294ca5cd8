package mirror

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// liveHeapPeak samples the Go heap's live bytes (as of the last GC) every
// 5 ms until stop; stop returns the highest seen. GC runs often meanwhile
// (GOGC 10), so live bytes follow what is retained, not garbage.
func liveHeapPeak(t testing.TB) (stop func() uint64) {
	old := debug.SetGCPercent(10)
	var peak atomic.Uint64
	done := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	stop = func() uint64 {
		once.Do(func() { close(done); debug.SetGCPercent(old) })
		wg.Wait()
		return peak.Load()
	}
	t.Cleanup(func() { stop() })
	return stop
}

func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestCopyMemoryBounded (issue 24 item 1): a table several times the
// copy's memory (Options.CopyMemory, the copy's share of memory.ingest),
// copied by four ranges at once with keys in no order (so the runs
// overlap and the build merges them by a heap, through run files), keeps
// the Go heap's live bytes within the copy memory plus one chunk per
// range and a fixed slack while the ranges run, and the copy pool within
// CopyMemory × 1.5 (the runs kept in memory, at most half of it, and the
// merge's read buffers, the other half) plus a chunk per range through
// the build; the tree then holds every row. Before the copy memory was
// a bound, the ranges kept 256 MiB of runs in memory: the whole table.
func TestCopyMemoryBounded(t *testing.T) {
	const (
		copyMem = 8 << 20
		rows    = 300_000
		ranges  = 4
		slack   = 6 << 20
	)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	h := newMHarness(t, Options{CopyMemory: copyMem})
	rel := testRel(16520, "copymem")
	// Row i of range r: keys spread over the whole key space in every
	// range (a permutation of 0..rows-1 by an odd multiplier), values of
	// about 120 bytes.
	key := func(i int) int64 { return int64((uint64(i)*2654435761 + seed) % rows) }
	filler := make([]byte, 100)
	for i := range filler {
		filler[i] = byte('a' + i%26)
	}
	base := liveHeap()
	stop := liveHeapPeak(t)
	copyRangesAtOnce(t, h, rel, ranges, func(r int, write func([]wal.Value) bool) {
		vals := make([]wal.Value, 3)
		for i := r; i < rows; i += ranges {
			k := key(i)
			vals[0] = wal.Value{Kind: wal.Text, Bytes: []byte(strconv.FormatInt(k, 10))}
			vals[1] = wal.Value{Kind: wal.Text, Bytes: filler}
			vals[2] = wal.Value{Kind: wal.Text, Bytes: []byte("v" + strconv.FormatInt(k, 10))}
			if !write(vals) {
				return
			}
		}
	})
	rangesPeak := stop()
	chunk := uint64(h.m.copyChunk())
	bound := uint64(copyMem) + ranges*chunk + slack
	t.Logf("ranges: live heap peak %d MiB over the %d MiB before (bound %d MiB); table ≈ %d MiB of rows",
		(rangesPeak-base)>>20, base>>20, bound>>20, rows*(120+kvOverhead)>>20)
	if rangesPeak > base+bound {
		t.Errorf("while the ranges ran the live heap grew %d MiB, past the copy memory %d MiB + %d ranges × %d KiB + %d MiB",
			(rangesPeak-base)>>20, copyMem>>20, ranges, chunk>>10, slack>>20)
	}
	if err := h.m.TableCopied(t.Context(), rel, 100); err != nil {
		t.Fatal(err)
	}
	used, peak, limit := h.m.CopyMemory()
	if pb := limit + limit/2 + ranges*int64(chunk); peak > pb || used != 0 {
		t.Errorf("copy pool peak %d (bound %d), %d still used after the build", peak, pb, used)
	}
	h.m.mu.Lock()
	root := h.m.tables[rel.QualifiedName()].rec.Root
	h.m.mu.Unlock()
	if n, err := h.m.eng.Count(t.Context(), root); err != nil || n != rows {
		t.Fatalf("count %d, %v; want %d", n, err, rows)
	}
	// Every row is there with its value.
	probe := rand.New(rand.NewPCG(seed, 1))
	tb := h.m.tables[rel.QualifiedName()]
	for range 200 {
		k := probe.Int64N(rows)
		kb, err := tb.codec.Append(nil, [][]byte{[]byte(strconv.FormatInt(k, 10))})
		if err != nil {
			t.Fatal(err)
		}
		v, found, err := h.m.eng.Get(t.Context(), root, kb)
		if err != nil || !found {
			t.Fatalf("key %d: found %v, %v", k, found, err)
		}
		if want := fmt.Sprint("v", k); !containsBytes(v, []byte(want)) {
			t.Fatalf("key %d: row %q lacks %q", k, v, want)
		}
	}
}

// copyRangesAtOnce copies a table through ranges running at once, as
// the copy's workers do: fill(r, write) writes range r's rows, stopping
// when write reports false (the range failed and was aborted). It fails
// t now if any range failed.
func copyRangesAtOnce(t *testing.T, h *mharness, rel *wal.Relation, ranges int, fill func(r int, write func([]wal.Value) bool)) {
	t.Helper()
	var wg sync.WaitGroup
	for r := range ranges {
		wg.Go(func() {
			w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Index: r, Of: ranges})
			if err != nil {
				t.Error(err)
				return
			}
			failed := false
			fill(r, func(row []wal.Value) bool {
				if err := w.WriteRow(row); err != nil {
					t.Error(err)
					w.Abort()
					failed = true
				}
				return !failed
			})
			if failed {
				return
			}
			if err := w.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

func containsBytes(s, sub []byte) bool {
	return len(sub) <= len(s) && string(s[len(s)-len(sub):]) == string(sub)
}
