package head

import (
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
)

// TestCopyAppliedInChunksUnderBudget: a table sent whole (the initial
// copy) is applied to its new heap in chunks, so the heap's page budget
// holds while it loads: most pages end cold, not every page decoded as
// the batch being published. The rows are all there.
func TestCopyAppliedInChunksUnderBudget(t *testing.T) {
	const rows = 100000
	f := openFeed(t)
	budget := heap.NewPageBudget(256 << 10)
	mod := New(Options{Heap: heap.Config{PageRows: 256, Budget: budget}})
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	a := relation(1, "a")
	ref := map[int]int{}
	for i := range rows {
		ref[i] = i % 1000
	}
	f.copyTable(a, ref)
	f.waitDelivered(sub)
	if n := mod.Len("public.a"); n != rows {
		t.Fatalf("%d rows in the model, want %d", n, rows)
	}
	m := mod.Table("public.a").Heap().Memory()
	t.Logf("after the copy: %+v, budget used %d of %d", m, budget.Used(), budget.Limit())
	if m.ColdPages <= m.DecodedPages || budget.Used() != m.DecodedBytes {
		t.Errorf("copy of %d rows under a 256KiB page budget: %+v, budget says %d", rows, m, budget.Used())
	}
}
