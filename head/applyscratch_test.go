package head

import (
	"testing"
)

// TestCopyBuildReusesBatchSlices: a copy build's batches (resetChunkRows
// rows each) reuse the table's key and row id slices instead of
// allocating both per batch (fresh memory: ~0.5 MB a batch, ~60 batches
// per 1M rows), and keep no reference into the build's arenas.
func TestCopyBuildReusesBatchSlices(t *testing.T) {
	m := New(Options{})
	rel := benchRelation()
	cb := m.BuildCopy("public.bench", rel).(*copyBuild)
	var keys0 *[]byte
	var ids0 *uint64
	n := 3 * resetChunkRows
	for i := range n {
		cb.Add(benchKey(i+1), benchRow(i+1, i%1000))
		if i+1 == resetChunkRows { // the first batch was applied
			if cap(cb.t.opKeys) < resetChunkRows || cap(cb.t.opIDs) < resetChunkRows {
				t.Fatalf("after a batch the table kept slices of %d keys and %d ids", cap(cb.t.opKeys), cap(cb.t.opIDs))
			}
			keys0, ids0 = &cb.t.opKeys[:1][0], (*uint64)(&cb.t.opIDs[:1][0])
		}
	}
	tb, err := cb.take(m, rel)
	if err != nil {
		t.Fatal(err)
	}
	if &tb.opKeys[:1][0] != keys0 || (*uint64)(&tb.opIDs[:1][0]) != ids0 {
		t.Fatal("later batches allocated new key or id slices")
	}
	for _, k := range tb.opKeys[:cap(tb.opKeys)] {
		if k != nil {
			t.Fatal("the key slice kept a reference into the build's arena")
		}
	}
	if got := tb.ix.Len(); got != n {
		t.Fatalf("built %d rows, want %d", got, n)
	}
}
