package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A join's key filter on its probe side's scan. Once an inner, semi or
// right hash join has built its table, a left row whose key is NULL or
// hashes to no build row's key can produce nothing: when the left input
// is a scan of the typed pages, the join hands the scan a bit set of the
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
}

// keyFilterFor is the filter of j's left key k over ht's rows (nil when
// j's left input is not a scan of its own or no key is a plain column
// of it compared without conversion).
func (j *joinOp) keyFilterFor(ht *hashTable, left operator, mem *memAcct) (*scanOp, int, *keyFilter) {
	switch j.kind {
	case plan.InnerJoin, plan.SemiJoin, plan.RightJoin:
	default:
		return nil, 0, nil
	}
	s, ok := left.(*scanOp)
	if !ok || s.repeat || ht == nil || ht.n == 0 || (s.filter != nil && s.late == nil) {
		return nil, 0, nil
	}
	k, col := -1, -1
	for i, id := range j.lkeyCols {
		if id == 0 || j.lconv[i] != nil || j.rconv[i] != nil {
			continue
		}
		for c, sc := range s.s.Cols {
			if sc == id {
				k, col = i, c
				break
			}
		}
		if k >= 0 {
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
	return s, col, f
}

// step is the filter as a late-filter conjunct over vector col: true
// where the key may match, false where it is NULL or cannot.
func (f *keyFilter) step(col int) lateStep {
	return lateStep{cols: []int{col}, eval: func(b *Batch, sel []int, res []types.Value) error {
		vec := b.Vecs[col]
		for _, i := range sel {
			v := vec[i]
			if v == nil {
				res[i] = false
				continue
			}
			h := f.h.hash(f.oid, v) & f.mask
			res[i] = f.bits[h/64]&(1<<(h%64)) != 0
		}
		return nil
	}}
}
