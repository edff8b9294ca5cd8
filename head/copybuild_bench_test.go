package head

import (
	"testing"
)

// BenchmarkCopyBuild: the HEAD's share of an initial copy (issue 24
// item 5), 1M rows of the bench table (100k with -short) given to a
// copy build in key order, as the mirror's build hands them over beside
// the tree, then taken as a reset would. The rows are made before the
// timer starts.
func BenchmarkCopyBuild(b *testing.B) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	keys, vals := make([][]byte, n), make([][]byte, n)
	for i := range n {
		keys[i], vals[i] = benchKey(i+1), benchRow(i+1, i%1000)
	}
	rel := benchRelation()
	for b.Loop() {
		m := New(Options{})
		cb := m.BuildCopy("public.bench", rel).(*copyBuild)
		for i := range n {
			cb.Add(keys[i], vals[i])
		}
		t, err := cb.take(m, rel)
		if err != nil {
			b.Fatal(err)
		}
		if got := t.ix.Len(); got != n {
			b.Fatalf("built %d rows, want %d", got, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
