package mirror

import (
	"crypto/sha256"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestCopyRangesReuseSpareChunks (issue 24 item 5): ranges whose runs go
// to files hand the arena chunks those runs filled to the ones still
// filling theirs, instead of allocating a fresh chunk for every chunk of
// rows (832 MiB of first-touched memory at 10M rows on 60c07d9, against
// the copy memory's 150 MiB of runs kept in memory). Four ranges run at
// once, as the copy's workers do; the build is then given exactly the
// rows of a copy that kept everything in memory, and the copy pool is
// back to zero (the spare chunks' reservation returned).
func TestCopyRangesReuseSpareChunks(t *testing.T) {
	const n, ranges = 200_000, 4
	rows := reuseRows(n)
	rel := testRel(16561, "sparechunks")
	copyAll := func(opts Options) (*mharness, *tableCopy) {
		h := newMHarness(t, opts)
		// Key-ordered ranges: runs disjoint, as a serial key's.
		copyRangesAtOnce(t, h, rel, ranges, func(r int, write func([]wal.Value) bool) {
			for i := r * n / ranges; i < (r+1)*n/ranges && write(rows[i]); i++ {
			}
		})
		h.m.copyMu.Lock()
		tc := h.m.copies[rel.QualifiedName()]
		h.m.copyMu.Unlock()
		if tc == nil {
			t.Fatal("no table copy")
		}
		return h, tc
	}
	build := func(h *mharness, tc *tableCopy) *hashProbe {
		p := &hashProbe{h: sha256.New()}
		h.m.copyPool.Release(tc.spare.drain())
		if _, err := tc.build(t.Context(), h.m.eng, 8<<20, copyBuilds{&Subscription{}: p}); err != nil {
			t.Fatal(err)
		}
		h.m.releaseRuns(tc)
		if used := h.m.copyPool.Used(); used != 0 {
			t.Errorf("copy pool: %d bytes still reserved after the build", used)
		}
		return p
	}
	hw, tw := copyAll(Options{})
	want := build(hw, tw)
	h, tc := copyAll(Options{CopyMemory: 1 << 20, CopyRunBytes: 128 << 10})
	files := 0
	for _, r := range tc.runs {
		if r.path != "" {
			files++
		}
	}
	chunks, reused := tc.chunks.Load(), tc.spare.taken()
	got := build(h, tc)
	t.Logf("%d runs, %d in files; ranges allocated %d chunks of %d KiB, took %d spare ones",
		len(tc.runs), files, chunks, h.m.copyChunk()>>10, reused)
	if files < len(tc.runs)/2 {
		t.Fatalf("%d of %d runs went to files: the test needs most of them there", files, len(tc.runs))
	}
	if got.n != n || want.n != n {
		t.Fatalf("the builds were given %d and %d rows, want %d", got.n, want.n, n)
	}
	if string(got.h.Sum(nil)) != string(want.h.Sum(nil)) {
		t.Fatal("the build of a copy through spare chunks was given other rows than the build from memory")
	}
	// The rows are ~16 MiB: 250 chunks of 64 KiB without reuse. With
	// it: the runs kept in memory (half the copy memory: 8 chunks), a run
	// being filled per range (2 chunks and the current one) and the
	// spare chunks (2), with room for the ranges' timing.
	if limit := int64(60); chunks > limit {
		t.Fatalf("the ranges allocated %d arena chunks; want ≤ %d", chunks, limit)
	}
}
