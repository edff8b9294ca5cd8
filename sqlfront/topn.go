package sqlfront

import (
	"container/heap"
	"slices"
)

// Top-N for the row evaluator: ORDER BY … LIMIT k [OFFSET m] without
// DISTINCT keeps only the k+m best rows seen so far (a bounded max-heap
// whose top is the worst kept row), as PostgreSQL's top-N heapsort does,
// so its working memory is charged by k+m rows, not by the input. Rows
// equal on every key keep their input order (the sequence number breaks
// ties), so the answer is the one the full stable sort gives.

// cmpSort orders two sort rows by the plan's ORDER BY keys (NULLS FIRST
// or LAST per key, DESC reversing the value order, not the NULLs').
func (p *plan) cmpSort(a, b sortRow) int {
	for i, k := range p.order {
		x, y := a.keys[i], b.keys[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			if k.nullsFirst {
				return -1
			}
			return 1
		case y == nil:
			if k.nullsFirst {
				return 1
			}
			return -1
		}
		c := cmpValues(x, y, k.e.typ())
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// topNRow is a kept row: its input position and the bytes it is charged.
type topNRow struct {
	sortRow
	seq   int64
	bytes int64
}

// topN is the bounded heap of the k best rows.
type topN struct {
	p     *plan
	ex    *execCtx
	k     int64
	seq   int64
	items []topNRow
}

// topNBound is the rows a top-N keeps for LIMIT limit OFFSET offset
// (false: no bound, the full sort runs).
func topNBound(limit, offset int64) (int64, bool) {
	if limit < 0 || offset > (1<<62)-limit {
		return 0, false
	}
	return limit + offset, true
}

func (t *topN) Len() int { return len(t.items) }

// Less puts the worst row on top: the later in the ORDER BY, then the
// later in the input.
func (t *topN) Less(i, j int) bool { return t.worse(t.items[i], t.items[j]) }

func (t *topN) Swap(i, j int) { t.items[i], t.items[j] = t.items[j], t.items[i] }

func (t *topN) Push(x any) { t.items = append(t.items, x.(topNRow)) }

func (t *topN) Pop() any {
	x := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return x
}

// worse says whether a comes after b in the sorted output.
func (t *topN) worse(a, b topNRow) bool {
	if c := t.p.cmpSort(a.sortRow, b.sortRow); c != 0 {
		return c > 0
	}
	return a.seq > b.seq
}

// add offers a row: kept when fewer than k are held or when it sorts
// before the worst one held (which it then replaces, its memory given
// back).
func (t *topN) add(r sortRow) error {
	it := topNRow{sortRow: r, seq: t.seq}
	t.seq++
	if int64(len(t.items)) >= t.k {
		if !t.worse(t.items[0], it) {
			return nil
		}
		t.ex.mem.Shrink(t.items[0].bytes)
		it.bytes = valuesBytes(r.keys) + valuesBytes(r.row) + 64
		if err := t.ex.grow(it.bytes); err != nil {
			return err
		}
		t.items[0] = it
		heap.Fix(t, 0)
		return nil
	}
	it.bytes = valuesBytes(r.keys) + valuesBytes(r.row) + 64
	if err := t.ex.grow(it.bytes); err != nil {
		return err
	}
	heap.Push(t, it)
	return nil
}

// sorted is the kept rows in output order.
func (t *topN) sorted() []sortRow {
	slices.SortFunc(t.items, func(a, b topNRow) int {
		if t.worse(a, b) {
			return 1
		}
		if t.worse(b, a) {
			return -1
		}
		return 0
	})
	out := make([]sortRow, len(t.items))
	for i, it := range t.items {
		out[i] = it.sortRow
	}
	return out
}
