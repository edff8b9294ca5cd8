package exec

import (
	"sync/atomic"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A top-N over a scan (ORDER BY a LIMIT 100 over a million rows) kept the
// best rows in a bounded heap, but the scan still decoded every column
// of every row for it, boxed each value and built a row to compare:
// 9–17× PostgreSQL's time, nearly all of it on rows the heap drops at
// once. Once the heap is full, its worst kept row bounds the rows that
// can still enter: a row strictly worse on the first ORDER BY key can
// never be kept (the bound only gets better as the heap fills with
// better rows). The sort hands that bound to the scan as one more
// conjunct of its late filter (scan_late.go), after the scan's own: the
// source then decodes the first key for the rows the scan's filter
// keeps, and every other column only for the rows the bound lets
// through (about k·ln(n/k) of n in random order).
//
// The answer is the same: a row dropped so is strictly worse on the
// first key than a row the heap keeps, so the heap would have dropped
// it too, and it ties on the keys with no kept row, so the rows the
// Limit's check of ties sees (limitorder.go: noteDropped only records
// rows tied with the worst kept one) are unchanged. The rows between
// the scan and the sort must be the scan's columns as they are
// (projections of column references only: a projection computing a
// value could fail on a row the bound drops, where PostgreSQL
// evaluates it for every row); the scan must run once (not inside a
// correlated subquery, whose rows are cached) and apply its filter late
// (a filter it does not split keeps every column of the row).

// topNFilter is the bound a running top-N gives its scan.
type topNFilter struct {
	key   winKey                    // the first ORDER BY key, its idx the scan's vector
	bound atomic.Pointer[TopNBound] // topn_raw.go
}

// topNScan is the scan under in whose vector holds column id unchanged,
// through projections of column references (nil: none, or one the
// bound cannot be given to).
func topNScan(in operator, id plan.ColumnID) (*scanOp, int) {
	for {
		switch x := in.(type) {
		case *projectOp:
			next := plan.ColumnID(0)
			for i, src := range x.src {
				ref, ok := src.(*plan.ColRef)
				if !ok {
					return nil, 0 // a computed value: it may fail on any row
				}
				if x.out[i] == id {
					next = ref.ID
				}
			}
			if next == 0 {
				return nil, 0
			}
			in, id = x.in, next
		case *scanOp:
			if x.repeat || x.sorted != nil || x.filter != nil && x.late == nil {
				return nil, 0
			}
			for c, sc := range x.s.Cols {
				if sc == id {
					return x, c
				}
			}
			return nil, 0
		default:
			return nil, 0
		}
	}
}

// topNBoundFor gives the scan under sort s the top-N's bound on its
// first key (keys as s.run compiled them, over s's input); it returns
// the filter the top-N updates and a function that takes it back off
// the scan (nil, nil: no such scan).
func (s *sortOp) topNBoundFor(keys []winKey) (*topNFilter, func()) {
	if len(keys) == 0 || len(s.keys) == 0 {
		return nil, nil
	}
	sc, col := topNScan(s.in, s.keys[0].Col)
	if sc == nil {
		return nil, nil
	}
	f := &topNFilter{key: keys[0]}
	f.key.idx = col
	sc.keySteps = append(sc.keySteps, f.step())
	return f, func() { sc.keySteps = sc.keySteps[:len(sc.keySteps)-1] }
}

// set makes v (the worst kept row's first key) the bound.
func (f *topNFilter) set(v types.Value) {
	if f != nil {
		f.bound.Store(newTopNBound(v))
	}
}

// step is the bound as a late-filter conjunct over the key's vector:
// true for a row not strictly worse than the bound (every row while the
// heap is not full). Safe on several goroutines (parallel scan workers).
func (f *topNFilter) step() lateStep {
	k := f.key
	var cmp *ColCmp
	if text, ok := rawTopNKey(k); ok {
		// a source may judge it on raw values (topn_raw.go)
		cmp = &ColCmp{Col: k.idx, Col2: -1, topn: f, topnText: text}
	}
	return lateStep{cols: []int{k.idx}, cmp: cmp, eval: func(b *Batch, sel []int, res []types.Value) error {
		p := f.bound.Load()
		if p == nil {
			for _, i := range sel {
				res[i] = true
			}
			return nil
		}
		bound, vec := p.v, b.Vecs[k.idx]
		for _, i := range sel {
			res[i] = compareKey(k, vec[i], bound) <= 0
		}
		return nil
	}}
}

// compareKey is compareKeys on one key's values.
func compareKey(k winKey, x, y types.Value) int {
	if x == nil || y == nil {
		return nullOrder(x == nil, y == nil, k.nullsFirst)
	}
	c := compareIn(k.ord, k.oid, x, y)
	if k.desc {
		c = -c
	}
	return c
}
