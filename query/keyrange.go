package query

import (
	"math"
	"slices"
	"strconv"

	"github.com/sidecar-dev/sidecar/heap"
)

// Primary-key ranges: the conjuncts of WHERE on an integer first key
// column (=, <, <=, >, >=, BETWEEN, IN) bound the keys a row can have,
// and the index (HEAD) or the tree's key order (--as-of) then gives only
// the rows in that range. The whole filter is still evaluated on those
// rows, so the range only has to contain every row that can match.

// KeyRange is an inclusive range of an integer key column; Empty when no
// row can match.
type KeyRange struct {
	Lo, Hi       int64
	HasLo, HasHi bool
	Empty        bool
	max          int64 // the column type's largest value
}

// HiBelowMax reports whether Hi+1 is still a value of the column's type
// (an exclusive upper bound can be written).
func (r KeyRange) HiBelowMax() bool { return r.Hi < r.max }

// keyRange derives the range of integer column col (kind k) from the
// plan's WHERE; ok=false when WHERE does not bound it.
func (p *Plan) keyRange(col int, k heap.Kind) (KeyRange, bool) {
	if p.where == nil {
		return KeyRange{}, false
	}
	var min, max int64
	switch k {
	case heap.KindInt2:
		min, max = math.MinInt16, math.MaxInt16
	case heap.KindInt4:
		min, max = math.MinInt32, math.MaxInt32
	case heap.KindInt8:
		min, max = math.MinInt64, math.MaxInt64
	default:
		return KeyRange{}, false
	}
	r := KeyRange{Lo: min, Hi: max, max: max}
	conj := conjuncts(p.where, nil)
	bounded := false
	lower := func(v int64) { r.Lo, r.HasLo, bounded = maxI(r.Lo, v), true, true }
	upper := func(v int64) { r.Hi, r.HasHi, bounded = minI(r.Hi, v), true, true }
	for _, n := range conj {
		if n.col != col || n.vk != vInt || len(n.args) > 0 {
			continue
		}
		switch n.op {
		case "=":
			lower(n.vals[0].I)
			upper(n.vals[0].I)
		case ">=":
			lower(n.vals[0].I)
		case ">":
			if n.vals[0].I == math.MaxInt64 {
				r.Empty = true
			} else {
				lower(n.vals[0].I + 1)
			}
		case "<=":
			upper(n.vals[0].I)
		case "<":
			if n.vals[0].I == math.MinInt64 {
				r.Empty = true
			} else {
				upper(n.vals[0].I - 1)
			}
		case "between":
			lower(n.vals[0].I)
			upper(n.vals[1].I)
		case "in":
			lo, hi := n.vals[0].I, n.vals[0].I
			for _, v := range n.vals[1:] {
				lo, hi = minI(lo, v.I), maxI(hi, v.I)
			}
			lower(lo)
			upper(hi)
		}
	}
	if r.Lo > r.Hi {
		r.Empty = true
	}
	return r, bounded || r.Empty
}

func minI(a, b int64) int64 { return min(a, b) }
func maxI(a, b int64) int64 { return max(a, b) }

// KeyRangeOf is the range of the integer column named col that req's
// WHERE bounds, bound against schema; ok=false when there is none.
func (p *Plan) KeyRangeOf(col string) (KeyRange, bool) {
	for i, c := range p.schema.Columns {
		if c.Name == col {
			return p.keyRange(i, c.Kind)
		}
	}
	return KeyRange{}, false
}

// Texts are the range's bounds as canonical integer texts ("" when
// unbounded on that side).
func (r KeyRange) Texts() (lo, hi string) {
	if r.HasLo {
		lo = strconv.FormatInt(r.Lo, 10)
	}
	if r.HasHi {
		hi = strconv.FormatInt(r.Hi, 10)
	}
	return lo, hi
}

// restriction limits a scan to some slots of some pages: the rows of a
// key range.
type restriction struct {
	pages []int      // page indexes, ascending
	masks [][]uint64 // per page: the slots to consider
}

func restrict(ids []heap.RowID) *restriction {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	r := &restriction{}
	for _, id := range ids {
		pg, slot := int(id.Page()), id.Slot()
		if len(r.pages) == 0 || r.pages[len(r.pages)-1] != pg {
			r.pages = append(r.pages, pg)
			r.masks = append(r.masks, nil)
		}
		m := &r.masks[len(r.masks)-1]
		for len(*m) <= slot>>6 {
			*m = append(*m, 0)
		}
		(*m)[slot>>6] |= 1 << (slot & 63)
	}
	return r
}
