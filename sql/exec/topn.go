package exec

import (
	"container/heap"
	"slices"

	"github.com/sidecar-dev/sidecar/types"
)

// Top-N: a Sort directly under a Limit keeps only the Count+Offset best
// rows (a bounded max-heap whose top is the worst kept row), as
// PostgreSQL's top-N heapsort, so its working memory grows with the
// limit, not with the input. Rows equal on every key keep their input
// order (the sequence number breaks ties): the answer is the one the full
// stable sort gives.

// topNBound is the rows a sort under LIMIT count OFFSET offset must keep
// (false: no bound; count < 0 is LIMIT ALL).
func topNBound(count, offset int64) (int64, bool) {
	if count < 0 || offset > (1<<62)-count {
		return 0, false
	}
	return count + offset, true
}

// topNRow is a kept row, its input position and the bytes it is charged.
type topNRow struct {
	row   []types.Value
	seq   int64
	bytes int64
}

// sliceHeap is a container/heap over a slice with an ordering
// function (the top-N's worst-on-top heap, the merge's runs).
type sliceHeap[T any] struct {
	items []T
	less  func(a, b *T) bool
}

func (h *sliceHeap[T]) Len() int           { return len(h.items) }
func (h *sliceHeap[T]) Less(i, j int) bool { return h.less(&h.items[i], &h.items[j]) }
func (h *sliceHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *sliceHeap[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *sliceHeap[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// worseRow says whether a comes after b in the sorted output.
func worseRow(keys []winKey, a, b *topNRow) bool {
	if c := compareKeys(keys, a.row, b.row); c != 0 {
		return c > 0
	}
	return a.seq > b.seq
}

// runTopN sorts the input keeping only its first k rows in key order.
func (s *sortOp) runTopN(keys []winKey, k int64, emit func(*Batch) error) error {
	e := s.e
	// The worst kept row on top.
	h := &sliceHeap[topNRow]{less: func(a, b *topNRow) bool { return worseRow(keys, a, b) }}
	mem := &memAcct{e: e}
	defer mem.done()
	bound, undo := s.topNBoundFor(keys) // topn_filter.go: the scan drops rows worse than the heap's worst
	if undo != nil {
		defer undo()
	}
	var seq int64
	scratch := &topNRow{}
	err := s.in.run(func(b *Batch) error {
		for i := 0; i < b.N; i++ {
			seq++
			if int64(len(h.items)) >= k {
				// Compared from a reused row; copied only when kept.
				scratch.seq, scratch.row = seq, scratch.row[:0]
				for _, v := range b.Vecs {
					scratch.row = append(scratch.row, v[i])
				}
				if !worseRow(keys, &h.items[0], scratch) {
					if s.oids != nil {
						s.noteDropped(keys, s.oids, scratch.row, h.items[0].row, true)
					}
					continue
				}
				it := topNRow{row: b.Row(i), seq: seq}
				it.bytes = rowBytes(it.row)
				mem.n -= h.items[0].bytes
				e.release(h.items[0].bytes)
				if err := mem.grow("sort", it.bytes); err != nil {
					return err
				}
				dropped := h.items[0].row
				h.items[0] = it
				heap.Fix(h, 0)
				if bound != nil {
					bound.set(h.items[0].row[keys[0].idx])
				}
				if s.oids != nil {
					s.noteDropped(keys, s.oids, dropped, h.items[0].row, false)
				}
				continue
			}
			it := topNRow{row: b.Row(i), seq: seq}
			it.bytes = rowBytes(it.row)
			if err := mem.grow("sort", it.bytes); err != nil {
				return err
			}
			heap.Push(h, it)
			if bound != nil && int64(len(h.items)) == k {
				bound.set(h.items[0].row[keys[0].idx])
			}
		}
		return e.check()
	})
	if err != nil {
		return err
	}
	slices.SortFunc(h.items, func(a, b topNRow) int {
		if c := compareKeys(keys, a.row, b.row); c != 0 {
			return c
		}
		return int(a.seq - b.seq)
	})
	rows := make([][]types.Value, len(h.items))
	for i := range h.items {
		rows[i] = h.items[i].row
	}
	return e.emitRows(rows, len(s.in.cols()), emit)
}
