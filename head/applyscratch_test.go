package head

import (
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
)

// TestCopyBuildReusesBatchSlices: a copy build's batches (resetChunkRows
// rows each) reuse two sets of key arena and row id slices, one being
// filled while the index stage reads the other, instead of allocating
// them per batch (fresh memory: ~0.5 MB a batch, ~60 batches per 1M
// rows).
func TestCopyBuildReusesBatchSlices(t *testing.T) {
	m := New(Options{})
	rel := benchRelation()
	cb := m.BuildCopy("public.bench", rel).(*copyBuild)
	ids := map[*uint64]bool{}
	arenas := map[*byte]bool{}
	n := 6 * resetChunkRows
	for i := range n {
		cb.Add(benchKey(i+1), benchRow(i+1, i%1000))
		if (i+1)%resetChunkRows == 0 { // a batch was applied
			kb := cb.indexed
			if kb == nil || len(kb.ids) != resetChunkRows {
				t.Fatalf("after batch %d no index stage holds its %d row ids", (i+1)/resetChunkRows, resetChunkRows)
			}
			ids[(*uint64)(&kb.ids[0])] = true
			arenas[&kb.karena[0]] = true
		}
	}
	tb, err := cb.take(m, rel)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || len(arenas) != 2 {
		t.Fatalf("6 batches used %d row id slices and %d key arenas, want 2 of each", len(ids), len(arenas))
	}
	if cb.indexing != nil {
		t.Fatal("an index stage still running after take")
	}
	if got := tb.ix.Len(); got != n {
		t.Fatalf("built %d rows, want %d", got, n)
	}
	for i := range n {
		if _, ok := tb.ix.Get(benchKey(i + 1)); !ok {
			t.Fatalf("key %d not in the index", i+1)
		}
	}
}

// TestCopyBuildKeyPageAllocations: a copy build fills every key page,
// so a page's key buffer and live bitmap are made once at the heap's
// rows a page (BuildCopy sets keyStore.room). Grown from keyPageSlots by
// doubling, and the bitmap a word at a time, filling one page took 14
// allocations, its keys copied three times over (2 % of a 10M-row
// copy's CPU).
func TestCopyBuildKeyPageAllocations(t *testing.T) {
	m := New(Options{})
	cb := m.BuildCopy("public.bench", benchRelation()).(*copyBuild)
	defer cb.Discard()
	rows := cb.t.hp.Config().PageRows
	s := &cb.t.keys
	page := uint32(0)
	key := benchKey(1)
	allocs := testing.AllocsPerRun(20, func() {
		for slot := range rows {
			s.set(heap.MakeRowID(page, slot), key)
		}
		page++
	})
	if allocs > 4 {
		t.Errorf("filling a %d-row key page took %.1f allocations, want ≤ 4 (the page, its key buffer, its bitmap)", rows, allocs)
	}
	for p := range page {
		for _, slot := range []int{0, rows - 1} {
			if got := s.key(heap.MakeRowID(p, slot)); string(got) != string(key) {
				t.Fatalf("page %d slot %d: key %x, want %x", p, slot, got, key)
			}
		}
	}
}
