package heap

import "testing"

// TestBoundChecksDoNotWalkEveryPage builds a bounded table in batches of
// 16k inserts, as the initial copy's HEAD build does, at two sizes, and
// counts the pages the bound's checks look at one by one. evictMidBatch
// runs every midBatchEvictOps ops and evict once per batch; when each
// walked every page of the table, the build was quadratic in its size
// (at 100M rows, tens of millions of page visits per million rows). The
// settled chunks' sums (pagetable.go) make a check walk only the pages
// of the chunks the batch owns and the few still decoded: the pages
// walked per row stay flat as the table grows 8-fold.
func TestBoundChecksDoNotWalkEveryPage(t *testing.T) {
	const chunk = 16 << 10
	perRow := func(n int) (float64, int) {
		t.Helper()
		// 16 rows a page: 8-fold more pages than rows/1024 gives, with
		// a bound that keeps about 64 KiB of pages decoded.
		h := mustNew(t, seedSchema, Config{Memory: 64 << 10, PageRows: 16})
		defer h.Close()
		var bt Batch
		var row []byte
		arena := make([]byte, 0, chunk*80)
		for id := 1; id <= n; id++ {
			start := len(arena)
			row = seedRow(row[:0], int64(id), int64(id%1000))
			arena = append(arena, row...)
			bt.Ops = append(bt.Ops, Op{Kind: OpInsert, Row: arena[start:len(arena):len(arena)]})
			if len(bt.Ops) == chunk || id == n {
				bt.LSN++
				mustApply(t, h, bt)
				bt.Ops, arena = bt.Ops[:0], arena[:0]
			}
		}
		s := h.Snapshot()
		defer s.Release()
		if s.Rows() != int64(n) {
			t.Fatalf("%d rows, want %d", s.Rows(), n)
		}
		for _, id := range []int{1, n / 2, n} {
			rid := MakeRowID(uint32((id-1)/16), (id-1)%16)
			got, live := s.Row(nil, rid)
			want := seedRow(nil, int64(id), int64(id%1000))
			if !live || string(got) != string(want) {
				t.Fatalf("row %d of %d = %q (live %v), want %q", id, n, got, live, want)
			}
		}
		m := h.Memory()
		if m.ColdPages == 0 {
			t.Fatalf("%d rows: no page made cold under a 64 KiB bound", n)
		}
		return float64(h.boundWalked) / float64(n), m.DecodedPages + m.ColdPages
	}
	small, smallPages := perRow(32 << 10)
	large, largePages := perRow(256 << 10)
	t.Logf("pages walked by the bound's checks per row: %.2f at %d pages, %.2f at %d pages", small, smallPages, large, largePages)
	if large > 2*small+1 {
		t.Errorf("pages walked per row grew from %.2f (%d pages) to %.2f (%d pages): the bound's checks walk the whole table",
			small, smallPages, large, largePages)
	}
}
