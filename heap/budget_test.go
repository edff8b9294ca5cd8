package heap

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// TestPageBudgetSharedByHeaps: two heaps given one PageBudget keep their
// decoded pages together within it (plus the pages of the batch being
// published), the budget's Used is what they hold, and a heap that is
// dropped stops being charged once collected.
func TestPageBudgetSharedByHeaps(t *testing.T) {
	const limit = 256 << 10
	b := NewPageBudget(limit)
	cfg := Config{PageRows: 64, PageBytes: 8 << 10, Budget: b}
	r := rand.New(rand.NewPCG(1, 2))
	heaps := make([]*Heap, 2)
	for i := range heaps {
		h, err := New(modelSchema, cfg)
		if err != nil {
			t.Fatal(err)
		}
		heaps[i] = h
	}
	var lsn uint64
	var batchBytes int64
	for step := range 200 {
		h := heaps[step%2]
		var ops []Op
		for i := range 64 {
			ops = append(ops, Op{Kind: OpInsert, Row: randRow(r, int64(step*64+i))})
		}
		lsn++
		mustApply(t, h, Batch{LSN: lsn, Ops: ops})
		var decoded int64
		for _, h := range heaps {
			decoded += h.Memory().DecodedBytes
		}
		if got := b.Used(); got != decoded {
			t.Fatalf("step %d: budget says %d bytes used, the heaps hold %d decoded", step, got, decoded)
		}
		batchBytes = max(batchBytes, 4*int64(cfg.PageBytes))
		if decoded > limit+batchBytes {
			t.Fatalf("step %d: %d decoded bytes, budget %d", step, decoded, limit)
		}
	}
	if m := heaps[0].Memory(); m.ColdPages == 0 {
		t.Fatalf("no cold pages under a budget smaller than the data: %+v", m)
	}
	kept := heaps[0]
	defer runtime.KeepAlive(kept)
	before := b.Used()
	dropped := heaps[1].Memory().DecodedBytes
	heaps = nil
	deadline := time.Now().Add(30 * time.Second)
	for b.Used() != before-dropped {
		if time.Now().After(deadline) {
			t.Fatalf("dropped heap still charged: used %d, want %d", b.Used(), before-dropped)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBigBatchStaysInBudget: one batch inserting, then one updating
// (growing rows past their page now and then), then one deleting most of
// 20,000 rows under a small budget makes pages of the batch in progress
// cold as it goes, and every row reads back as written.
func TestBigBatchStaysInBudget(t *testing.T) {
	b := NewPageBudget(256 << 10)
	h, err := New(modelSchema, Config{PageRows: 64, PageBytes: 8 << 10, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	want := map[RowID][]byte{}
	var ops []Op
	for i := range n {
		ops = append(ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
	}
	ids := mustApply(t, h, Batch{LSN: 1, Ops: ops})
	for i, id := range ids {
		want[id] = ops[i].Row
	}
	check := func(step string) {
		t.Helper()
		s := h.Snapshot()
		defer s.Release()
		if s.Rows() != int64(len(want)) {
			t.Fatalf("%s: %d rows, want %d", step, s.Rows(), len(want))
		}
		for id, row := range want {
			got, live := s.Row(nil, id)
			if !live || string(got) != string(row) {
				t.Fatalf("%s: row %d = %q (live %v), want %q", step, id, got, live, row)
			}
		}
		if m := h.Memory(); m.DecodedBytes > b.Limit() {
			t.Errorf("%s: %d decoded bytes after publishing, budget %d", step, m.DecodedBytes, b.Limit())
		}
	}
	check("insert")
	frozen := h.midFrozen
	ops = ops[:0]
	var old []RowID
	for id := range want {
		old = append(old, id)
		ops = append(ops, Op{Kind: OpUpdate, ID: id, Row: randRow(r, int64(id))})
	}
	ids = mustApply(t, h, Batch{LSN: 2, Ops: ops})
	clear(want)
	for i, id := range ids {
		want[id] = ops[i].Row
	}
	check("update")
	if h.midFrozen == frozen {
		t.Errorf("no page of the update batch made cold while it ran")
	}
	ops = ops[:0]
	for id := range want {
		if r.IntN(10) != 0 {
			ops = append(ops, Op{Kind: OpDelete, ID: id})
			delete(want, id)
		}
	}
	mustApply(t, h, Batch{LSN: 3, Ops: ops})
	check("delete")
	_ = old
}
