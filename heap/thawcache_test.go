package heap

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestSnapshotThawCacheShared: several goroutines reading one snapshot's
// cold pages (rows by id in different orders, and page views) while the
// writer publishes more batches get every row as written: the snapshot's
// cache of decoded cold pages is safe for concurrent use and never hands
// out a page of another version. Reading the rows in page order decodes
// each cold page once.
func TestSnapshotThawCacheShared(t *testing.T) {
	b := NewPageBudget(64 << 10)
	h, err := New(modelSchema, Config{PageRows: 64, PageBytes: 8 << 10, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	const n = 8000
	var ops []Op
	for i := range n {
		ops = append(ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
	}
	ids := mustApply(t, h, Batch{LSN: 1, Ops: ops})
	want := map[RowID][]byte{}
	for i, id := range ids {
		want[id] = ops[i].Row
	}
	s := h.Snapshot()
	defer s.Release()
	m := h.Memory()
	if m.ColdPages < 4*m.DecodedPages {
		t.Fatalf("the test wants most pages cold: %+v", m)
	}

	before := h.Thaws()
	var buf []byte
	inPageOrder := slices.Clone(ids)
	slices.Sort(inPageOrder)
	for _, id := range inPageOrder {
		var live bool
		if buf, live = s.Row(buf[:0], id); !live || string(buf) != string(want[id]) {
			t.Fatalf("row %d = %q (live %v), want %q", id, buf, live, want[id])
		}
	}
	if got := h.Thaws() - before; got > int64(m.ColdPages) {
		t.Errorf("reading %d rows in page order decoded %d pages; %d are cold", n, got, m.ColdPages)
	}

	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(uint64(g), 7))
			order := append([]RowID(nil), ids...)
			rr.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			var buf []byte
			for k, id := range order[:1500] {
				var live bool
				if buf, live = s.Row(buf[:0], id); !live || string(buf) != string(want[id]) {
					errs <- "row differs"
					return
				}
				if k%97 == 0 {
					if v := s.Page(rr.IntN(s.NumPages())); v.LiveCount() > v.Slots() {
						errs <- "page view inconsistent"
						return
					}
				}
			}
		}()
	}
	// The writer goes on meanwhile: updates and deletes publish new
	// versions (and freeze and decode pages) the snapshot must not see.
	for step := range 20 {
		var ops []Op
		for i := range 50 {
			id := ids[(step*50+i*13)%len(ids)]
			if i%5 == 0 {
				ops = append(ops, Op{Kind: OpDelete, ID: id})
				continue
			}
			ops = append(ops, Op{Kind: OpUpdate, ID: id, Row: randRow(r, int64(n+step*50+i))})
		}
		if _, err := h.Apply(Batch{LSN: uint64(2 + step), Ops: dedupe(ops)}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// dedupe keeps the first op of each row id.
func dedupe(ops []Op) []Op {
	seen := map[RowID]bool{}
	out := ops[:0]
	for _, op := range ops {
		if !seen[op.ID] {
			seen[op.ID] = true
			out = append(out, op)
		}
	}
	return out
}
