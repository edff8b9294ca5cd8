package heap

import "testing"

// TestColReader: a ColReader's views of cold pages (kept in memory, and
// in a page file) give the same values as full views for the columns it
// reads, decode only those columns, and leave the page cache as it was;
// a reader of every column is PageErr.
func TestColReader(t *testing.T) {
	pf, err := OpenPageFile(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	for name, cfg := range map[string]Config{
		"memory":    {PageRows: 64, PageBytes: 8 << 10, Memory: 32 << 10},
		"page file": {PageRows: 64, PageBytes: 8 << 10, Memory: 32 << 10, Pages: pf},
	} {
		t.Run(name, func(t *testing.T) {
			_, s := coldHeap(t, cfg, 3, 4)
			cache0 := pf.cache.Stats()
			for k, cols := range [][]int{{0}, {3}, {5, 6}, {1, 3, 4, 7}, {}, {0, 1, 2, 3, 4, 5, 6, 7}} {
				rd := s.ColReader(cols)
				cold := 0
				for i := range s.NumPages() {
					held := s.slotted(s.v.pages.at(i)) != nil || cfg.Pages != nil && s.v.pages.at(i).disk != nil && cached(pf.cache, s.v.pages.at(i).disk.seq)
					got, err := rd.Page(i)
					if err != nil {
						t.Fatalf("cols %v page %d: %v", cols, i, err)
					}
					full := s.Page(i)
					if s.v.pages.at(i).isCold() && !held {
						cold++
						if len(cols) < len(modelSchema.Columns) && got.p == full.p {
							t.Fatalf("cols %v page %d: the full page, not a projected one", cols, i)
						}
					}
					sameColumns(t, got, full, cols, i) // scancache_test.go
					if len(cols) < len(modelSchema.Columns) && s.v.pages.at(i).isCold() && !held {
						for c := range modelSchema.Columns {
							wanted := false
							for _, x := range cols {
								wanted = wanted || x == c
							}
							if !wanted && got.p.cols[c].nulls != nil {
								t.Fatalf("cols %v page %d: column %d decoded", cols, i, c)
							}
						}
					}
				}
				if cold == 0 && k == 0 {
					t.Fatal("no cold page read")
				}
			}
			if cfg.Pages != nil {
				// The full views above went through the cache; the
				// projected reads add nothing of their own: every put
				// came from s.Page.
				if st := pf.cache.Stats(); st.Pages == 0 || st.Misses == cache0.Misses {
					t.Fatalf("cache %+v: the full reads did not go through it", st)
				}
			}
		})
	}
}

// cached says whether c holds record seq decoded.
func cached(c *PageCache, seq uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.byKey[seq]
	return ok
}
