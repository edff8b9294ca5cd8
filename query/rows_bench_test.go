package query

import "testing"

// BenchmarkScanRowsLimit is the front end's `WHERE score > 0 LIMIT 100`
// over the 1M-row benchmark table: one page read, every page's zone map
// consulted.
func BenchmarkScanRowsLimit(b *testing.B) {
	h := benchTable(b)
	snap := h.Snapshot()
	defer snap.Release()
	p, err := BindRows(RowRequest{Key: []string{"id"}, Cols: []string{"id", "score"}, Limit: 100,
		Where: &Expr{Op: ">", Col: "score", Values: []string{"0"}}}, benchSchema)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		n := 0
		if _, err := ScanRows(b.Context(), p, FromSnapshot(snap), Options{}, func([]byte) error { n++; return nil }); err != nil || n != 100 {
			b.Fatal(err, n)
		}
	}
}

// BenchmarkScanRowsSelective is a full scan keeping 0.05% of the rows.
func BenchmarkScanRowsSelective(b *testing.B) {
	h := benchTable(b)
	snap := h.Snapshot()
	defer snap.Release()
	p, err := BindRows(RowRequest{Key: []string{"id"}, Cols: []string{"id", "score"},
		Where: &Expr{Op: "=", Col: "score", Values: []string{"7"}}}, benchSchema)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ScanRows(b.Context(), p, FromSnapshot(snap), Options{}, func([]byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
