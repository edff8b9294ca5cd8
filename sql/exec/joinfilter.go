package exec

import (
	"sync/atomic"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A join's key filter on its probe side's scan. Once an inner, semi or
// right hash join has built its table, a left row whose key is NULL or
// hashes to no build row's key can produce nothing: when the key is a
// column of a scan of the typed pages under the left input (directly,
// or through inner joins and semi/anti joins' left sides, which pass it
// on unchanged: Q18's IN list of 57 orders reaches the orders scan
// under the lineitem join), the join hands that scan a bit set of the
// build keys' hashes as one more conjunct of its late filter
// (scan_late.go), after the scan's own conjuncts. The scan then decodes
// the other columns only for the rows whose key may match, and those
// rows alone travel to the join (TPC-H Q5's lineitem against a year of
// orders, Q21's against one nation's suppliers, Q9's against one kind
// of part). The answers are the join's: the filter drops rows that
// match nothing, and keeps some that match nothing too (a hash
// collision), which the join drops as before; the scan's own conjuncts
// run on the same rows as before, so their errors are the same.

// keyBitsPerRow is the filter's bits per build row: one hash, about
// 1 in 8 rows of no match kept.
const keyBitsPerRow = 8

// keyFilter is a set of key hashes, as bits.
type keyFilter struct {
	h    valueHasher
	oid  plan.OID
	bits []uint64
	mask uint64
	// seen and dropped count the rows judged; off: the filter drops too
	// few to pay for its hashing (step).
	seen, dropped atomic.Int64
	off           atomic.Bool
	// sorted is the distinct build keys in order, for skipping a page
	// by its zone map (scan_keyset.go; nil: not kept).
	sorted []int64
}

// keyFilterFor is the filter of one of the probe side's keys (keyCols)
// over ht's rows and the scan it is for (nil when no key is a plain
// column, compared without conversion, of a scan reached from probe
// through inner joins and the left sides of semi and anti joins:
// operators that pass that column's value through unchanged and drop a
// row whose value matches nothing here).
//
// Only a join whose unmatched probe rows produce nothing may filter its
// probe side: inner, semi and right joins probing with the left side,
// and semi and anti joins built on their left side (semibuild.go), which
// probe with the right side (keyCols: j.rkeyCols): a right row matching
// no left row decides nothing for either kind. The caller checks it.
func (j *joinOp) keyFilterFor(ht *hashTable, probe operator, keyCols []plan.ColumnID, mem *memAcct) (*scanOp, int, *keyFilter) {
	if ht == nil || ht.n == 0 {
		return nil, 0, nil
	}
	k, col := -1, -1
	var s *scanOp
	for i, id := range keyCols {
		if id == 0 || j.lconv[i] != nil || j.rconv[i] != nil {
			continue
		}
		if s, col = scanOf(probe, id); s != nil {
			k = i
			break
		}
	}
	if k < 0 {
		return nil, 0, nil
	}
	size := uint64(64)
	for size < uint64(ht.n)*keyBitsPerRow {
		size <<= 1
	}
	if err := mem.grow("hash join", int64(size/8)); err != nil {
		return nil, 0, nil // the join itself still fits: run it without
	}
	f := &keyFilter{h: ht.h, oid: ht.oids[k], bits: make([]uint64, size/64), mask: size - 1}
	keys := ht.keys[k]
	for r := 0; r < ht.n; r++ {
		if ht.hasKey[r] {
			b := f.h.hash(f.oid, keys.at(r)) & f.mask
			f.bits[b/64] |= 1 << (b % 64)
		}
	}
	if ht.n <= keySortedMax && mem.grow("hash join", int64(8*ht.n)) == nil {
		f.sorted = sortedKeys(ht.n, keys.at, func(r int) bool { return ht.hasKey[r] })
	}
	return s, col, f
}

// scanOf is the scan under op that produces column id and its vector
// there, through inner joins and the left sides of semi and anti joins
// (nil: none, or another operator on the way; a scan inside a
// correlated subquery, whose rows are cached, or whose filter is not
// split for late evaluation, is none).
func scanOf(op operator, id plan.ColumnID) (*scanOp, int) {
	switch x := op.(type) {
	case *scanOp:
		if x.repeat || (x.filter != nil && x.late == nil) {
			return nil, 0
		}
		for c, sc := range x.s.Cols {
			if sc == id {
				return x, c
			}
		}
	case *joinOp:
		switch x.kind {
		case plan.InnerJoin:
			if s, c := scanOf(x.left, id); s != nil {
				return s, c
			}
			return scanOf(x.right, id)
		case plan.SemiJoin, plan.AntiJoin:
			return scanOf(x.left, id)
		}
	}
	return nil, 0
}

// keyFilterProbe is the rows a filter is judged on: past them, a filter
// that dropped fewer than 1 in keyFilterUseless stops hashing (every
// row passes on to the join, which decides as before).
const (
	keyFilterProbe   = 8 * BatchSize
	keyFilterUseless = 16
)

// step is the filter as a late-filter conjunct over vector col: true
// where the key may match, false where it is NULL or cannot. It may run
// on several goroutines (parallel scan workers) at once.
func (f *keyFilter) step(col int) lateStep {
	return lateStep{cols: []int{col}, cmp: &ColCmp{Col: col, Col2: -1, key: f}, eval: func(b *Batch, sel []int, res []types.Value) error {
		if f.off.Load() {
			for _, i := range sel {
				res[i] = true
			}
			return nil
		}
		vec := b.Vecs[col]
		dropped := 0
		for _, i := range sel {
			v := vec[i]
			if v == nil {
				res[i] = false
				dropped++
				continue
			}
			h := f.h.hash(f.oid, v) & f.mask
			keep := f.bits[h/64]&(1<<(h%64)) != 0
			res[i] = keep
			if !keep {
				dropped++
			}
		}
		f.count(len(sel), dropped)
		return nil
	}}
}

// count counts n rows judged, dropped of them dropped, and stops the
// filter once it has judged enough rows and dropped too few of them.
func (f *keyFilter) count(n, dropped int) {
	seen, gone := f.seen.Add(int64(n)), f.dropped.Add(int64(dropped))
	if seen >= keyFilterProbe && gone < seen/keyFilterUseless {
		f.off.Store(true)
	}
}
