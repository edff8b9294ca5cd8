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
