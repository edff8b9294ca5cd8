package head

import (
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
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
	tb := mod.Table("public.a")
	m := tb.Heap().Memory()
	t.Logf("after the copy: %+v, budget used %d of %d", m, budget.Used(), budget.Limit())
	if m.ColdPages <= m.DecodedPages || budget.Used() != m.DecodedBytes+tb.charge.Bytes() {
		t.Errorf("copy of %d rows under a 256KiB page budget: %+v, index %d, budget says %d", rows, m, tb.charge.Bytes(), budget.Used())
	}
}

// TestIndexChargedToPageBudget: a table's radix index and key store are
// charged to the heaps' page budget (heap.memory) as they grow, and the
// heap's decoded pages get what they leave: with a budget that holds the
// whole heap decoded but not the heap and the index, pages go cold and
// the heap keeps within the rest. A table dropped by Reset gives its
// charge back. Before, the index and key store (8.1 + 9.4 B/row) were
// outside every budget (issue 24 item 1).
func TestIndexChargedToPageBudget(t *testing.T) {
	const rows = 20000
	f := openFeed(t)
	a := relation(1, "a")
	ref := map[int]int{}
	for i := range rows {
		ref[i] = i % 1000
	}
	free := New(Options{Heap: heapSmallPages})
	sub, err := f.m.Subscribe(free, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	f.copyTable(a, ref)
	f.waitDelivered(sub)
	decoded := free.Table("public.a").Heap().Memory().DecodedBytes
	ix, keys := free.Table("public.a").IndexBytes()
	index := int64(ix + keys)

	cfg := heapSmallPages
	cfg.Budget = heap.NewPageBudget(decoded + index/2) // the heap alone fits
	mod := New(Options{Heap: cfg})
	sub2, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	f.waitDelivered(sub2)
	for i := range 3 { // batches published after the index was charged
		f.commit([]wal.Change{{Kind: wal.Update, Relation: a, New: vals(i, 1, "x")}})
	}
	f.waitDelivered(sub2)
	tb := mod.Table("public.a")
	ix, keys = tb.IndexBytes()
	if got := tb.charge.Bytes(); got != int64(ix+keys) || got == 0 {
		t.Fatalf("charged %d bytes for an index and key store of %d", got, ix+keys)
	}
	m := tb.Heap().Memory()
	t.Logf("heap alone %d B decoded, index %d B; budget %d: %+v, used %d", decoded, index, cfg.Budget.Limit(), m, cfg.Budget.Used())
	if m.ColdPages == 0 || m.DecodedBytes > cfg.Budget.Limit()-tb.charge.Bytes() {
		t.Fatalf("the heap keeps %d B decoded (%d cold pages) under a budget of %d with %d charged for the index", m.DecodedBytes, m.ColdPages, cfg.Budget.Limit(), tb.charge.Bytes())
	}
	if err := sub2.Close(); err != nil {
		t.Fatal(err)
	}
	mod.Reset()
	if tb.charge.Bytes() != 0 {
		t.Fatalf("a dropped table still charges %d bytes", tb.charge.Bytes())
	}
}
