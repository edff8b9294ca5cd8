package head

import (
	"fmt"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/prolly"
)

// loadBudgetTable builds a table of n rows (ids 1..n, key order = insert
// order) in copy-sized batches, its heap under budget.
func loadBudgetTable(tb testing.TB, n int, cfg heap.Config) (*Model, *Table) {
	m := New(Options{})
	t, err := m.newTable("public.bench", benchRelation(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	m.tables["public.bench"] = t
	const batch = 16_000
	for lo := 1; lo <= n; lo += batch {
		hi := min(n, lo+batch-1)
		applyEdits(tb, t, uint64(hi), func(fn func(prolly.Edit) error) error {
			for id := lo; id <= hi; id++ {
				if err := fn(prolly.Edit{Key: benchKey(id), Value: benchRow(id, id%1000)}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	m.applied.Store(uint64(n))
	return m, t
}

// TestColdScanDecodesEachPageOnce: a full scan in key order of a table
// whose pages are nearly all cold (a heap budget far below the table, the
// 3M-row scan under heap.memory 64MiB of issue 24) decodes each cold page
// about once, not once per row: the scan is linear in the table, at a
// constant factor of the in-memory scan. It read every row through
// Snapshot.Row, which decoded the row's whole page for each row and kept
// nothing (a 1,024-row page decoded 1,024 times; 3M rows did not finish in
// 10 minutes). Scans read in chunks, as the SQL port does (a new snapshot
// per chunk), and with the heap's projection. The same with the cold
// pages on disk (heap.PageFile) behind a page cache far smaller than the
// table.
func TestColdScanDecodesEachPageOnce(t *testing.T) {
	pf, err := heap.OpenPageFile(t.TempDir(), 128<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	for _, disk := range []bool{false, true} {
		t.Run(fmt.Sprintf("disk=%v", disk), func(t *testing.T) {
			cfg := heap.Config{PageRows: 256, Budget: heap.NewPageBudget(256 << 10)}
			if disk {
				cfg.Pages = pf
			}
			coldScanOnce(t, cfg)
			if disk {
				if st := pf.Stats(); st.Reads == 0 || st.ReadAhead == 0 {
					t.Errorf("cold pages not read from the page file: %+v", st)
				}
			}
		})
	}
}

func coldScanOnce(t *testing.T, cfg heap.Config) {
	const rows = 60_000
	m, tb := loadBudgetTable(t, rows, cfg)
	mem := tb.Heap().Memory()
	if mem.ColdPages < 10*mem.DecodedPages {
		t.Fatalf("the test wants most pages cold: %+v", mem)
	}
	pages := int64(mem.ColdPages + mem.DecodedPages)
	for _, cols := range [][]int{nil, {3}} {
		before := tb.Heap().Thaws()
		var from []byte
		got := 0
		for {
			n := 0
			var last []byte
			err := m.rangeOf(tb, from, nil, 4096, m.LSN(), cols, func(k, _ []byte) bool {
				if from != nil && n == 0 {
					n++ // from itself: read at the end of the previous chunk
					return true
				}
				n++
				got++
				last = append(last[:0], k...)
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if last == nil {
				break
			}
			from = last
		}
		if got != rows {
			t.Fatalf("cols %v: scan read %d rows, want %d", cols, got, rows)
		}
		thaws := tb.Heap().Thaws() - before
		chunks := int64(rows/4096 + 1)
		t.Logf("cols %v: %d rows, %d pages (%d cold), %d pages decoded by the scan", cols, rows, pages, mem.ColdPages, thaws)
		if thaws > pages+chunks {
			t.Errorf("cols %v: a scan of %d rows over %d pages decoded %d cold pages; want at most one per page and chunk (%d)", cols, rows, pages, thaws, pages+chunks)
		}
	}
}
