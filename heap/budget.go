package heap

import (
	"runtime"
	"sync/atomic"
)

// PageBudget is decoded-page memory shared by every heap given it
// (Config.Budget): heap.memory bounds the whole in-memory HEAD, not each
// table. Each heap charges the bytes of its decoded pages after every
// batch it publishes and makes its own longest-unwritten pages cold when
// the heaps together pass the limit; a heap that is dropped stops being
// charged once it is collected.
type PageBudget struct {
	limit int64
	used  atomic.Int64
}

// NewPageBudget returns a budget of limit bytes (at least one page's
// worth is always allowed to the heap being written).
func NewPageBudget(limit int64) *PageBudget { return &PageBudget{limit: limit} }

// Limit is the budget in bytes.
func (b *PageBudget) Limit() int64 { return b.limit }

// Used is the decoded-page bytes charged by the live heaps.
func (b *PageBudget) Used() int64 { return b.used.Load() }

// budgetCharge is one heap's share of a PageBudget. It is kept apart from
// the Heap so that a cleanup can give the share back when the heap is
// collected (a resync replaces a table's heap without closing it).
type budgetCharge struct {
	b *PageBudget
	n atomic.Int64
}

// chargeTo attaches h to b.
func (h *Heap) chargeTo(b *PageBudget) {
	c := &budgetCharge{b: b}
	h.charge = c
	runtime.AddCleanup(h, func(c *budgetCharge) { c.b.used.Add(-c.n.Swap(0)) }, c)
}

// allowed is how many decoded-page bytes h may hold: Config.Memory, or
// what the other heaps leave of the shared budget.
func (h *Heap) allowed() int64 {
	if h.charge == nil {
		return h.cfg.Memory
	}
	return h.charge.b.limit - (h.charge.b.used.Load() - h.charge.n.Load())
}

// charged records that h now holds decoded bytes of decoded pages.
func (h *Heap) charged(decoded int64) {
	if h.charge != nil {
		h.charge.b.used.Add(decoded - h.charge.n.Swap(decoded))
	}
}

// Charge is memory held beside the heaps' decoded pages and charged to
// the same PageBudget: head's radix index and key store of one table,
// which grow with the table (8.1 and 9.4 bytes a row of a bigint key,
// scale-2026-12-05.md). The heaps' decoded pages get what the charges
// leave of the limit, so heap.memory bounds the three together. A
// Charge's bytes are given back by Set(0), or by a cleanup once the
// Charge is unreachable.
type Charge struct {
	c *budgetCharge
}

// NewCharge returns a charge of 0 bytes against b (nil b: a charge that
// counts nothing).
func (b *PageBudget) NewCharge() *Charge {
	if b == nil {
		return &Charge{}
	}
	c := &budgetCharge{b: b}
	ch := &Charge{c: c}
	runtime.AddCleanup(ch, func(c *budgetCharge) { c.b.used.Add(-c.n.Swap(0)) }, c)
	return ch
}

// Set makes the charge n bytes. Safe for concurrent use with the heaps.
func (ch *Charge) Set(n int64) {
	if ch == nil || ch.c == nil {
		return
	}
	ch.c.b.used.Add(n - ch.c.n.Swap(n))
}

// Over reports whether the budget would be past its limit were the
// charge n bytes (false for a charge that counts nothing).
func (ch *Charge) Over(n int64) bool {
	if ch == nil || ch.c == nil {
		return false
	}
	b := ch.c.b
	return b.used.Load()-ch.c.n.Load()+n > b.limit
}

// Bytes is what the charge holds.
func (ch *Charge) Bytes() int64 {
	if ch == nil || ch.c == nil {
		return 0
	}
	return ch.c.n.Load()
}

// Budgeted reports whether the charge counts against a budget (whether
// computing what to Set is worth it).
func (ch *Charge) Budgeted() bool { return ch != nil && ch.c != nil }
