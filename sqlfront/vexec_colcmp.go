package sqlfront

import (
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/wal"
)

// A late filter's comparisons of integer, numeric and date columns
// (exec.ColCmp) evaluated on the typed pages' segments: the scaled
// integers the page holds are compared where they lie, so the columns
// they read are decoded into values only for the rows the whole filter
// keeps. A row whose value is not in a typed segment (a page holding
// the column as text, a numeric exception) or whose scales cannot be
// compared in 64 bits is evaluated by the compiled conjunct instead, on
// its decoded values, at the same step: the rows each conjunct sees and
// their order are the filter's, so are the answers and the errors.

// rawCols says, per vector of req, whether its column's typed segment
// holds the plan's values as scaled integers (the plan type is the
// stored one, of an integer, numeric or date kind).
func rawCols(cols []wal.Column, req *exec.ScanRequest) []bool {
	raw := make([]bool, len(req.Ords))
	for c, ord := range req.Ords {
		if ord >= len(cols) || req.OIDs[c] != cols[ord].TypeOID {
			continue
		}
		switch heap.KindForOID(cols[ord].TypeOID) {
		case heap.KindInt2, heap.KindInt4, heap.KindInt8, heap.KindNumeric, heap.KindDate:
			raw[c] = true
		}
	}
	return raw
}

// segReader reads one column's scaled integers from the pages of a
// chunk, the segments looked up again only when the page changes.
type segReader struct {
	ord    int
	pv     heap.PageView
	set    bool
	nulls  []uint64
	ints   []int64
	scales []uint8
	exc    []uint64
}

// at is slot's value of the column in pv: null, or its integer and
// scale (ok=false: not held as a scaled integer).
func (r *segReader) at(pv heap.PageView, slot int) (v int64, sc uint8, null, ok bool) {
	if !r.set || pv != r.pv {
		r.pv, r.set = pv, true
		r.nulls, r.ints, r.scales, r.exc = pv.Nulls(r.ord), pv.Int64s(r.ord), pv.Scales(r.ord), pv.Exceptions(r.ord)
	}
	if r.nulls[slot/64]&(1<<(slot%64)) != 0 {
		return 0, 0, true, true
	}
	if r.ints == nil || r.exc != nil && r.exc[slot/64]&(1<<(slot%64)) != 0 {
		return 0, 0, false, false
	}
	if r.scales != nil {
		sc = r.scales[slot]
	}
	return r.ints[slot], sc, false, true
}

// colCmp applies conjunct k, the comparison cc, to rows sel of the
// batch being filled and returns the rows it is true for (in sel's
// storage): on the segments where they hold the values, a page's run of
// rows at a time (pagechunk_cmp.go), through the compiled conjunct
// (lf.Apply) on decoded values for the other rows.
func (ch *pageChunker) colCmp(k int, cc *exec.ColCmp, sel []int) ([]int, error) {
	if cc.Key() {
		return ch.keyFilter(k, cc, sel)
	}
	kept, und := ch.cmpRuns(cc, sel)
	return ch.rest(k, cc, kept, und)
}

// keyFilter applies conjunct k, a join's key filter, to rows sel as
// colCmp does: the integer and date keys hashed where they lie.
func (ch *pageChunker) keyFilter(k int, cc *exec.ColCmp, sel []int) ([]int, error) {
	if cc.KeyOff() {
		return sel, nil // as the compiled filter: every row kept
	}
	kept, und, dropped := ch.keyRuns(cc, sel)
	cc.KeyCount(len(sel)-len(und), dropped)
	return ch.rest(k, cc, kept, und)
}

// rest applies conjunct k (the comparison cc) with lf.Apply to rows und,
// those colCmp or keyFilter could not judge, and merges the rows it
// keeps into kept.
func (ch *pageChunker) rest(k int, cc *exec.ColCmp, kept, und []int) ([]int, error) {
	ch.und = und
	if len(und) == 0 {
		return kept, nil
	}
	// The rows left to the compiled conjunct: its columns decoded for
	// them alone (decoded again for the rows the filter keeps).
	for _, c := range []int{cc.Col, cc.Col2} {
		if c >= 0 && !ch.done[c] {
			if err := ch.decode(c, und); err != nil {
				return nil, err
			}
		}
	}
	und, err := ch.lf.Apply(k, ch.b, und)
	if err != nil {
		return nil, err
	}
	return mergeRows(kept, und), nil
}

// mergeRows is the ascending union of a and b (both ascending, disjoint),
// in a's storage (which has room: a and b were drawn from one list).
func mergeRows(a, b []int) []int {
	if len(b) == 0 {
		return a
	}
	out := a[:len(a)+len(b)]
	i, j := len(a)-1, len(b)-1
	for w := len(out) - 1; j >= 0; w-- {
		if i >= 0 && a[i] > b[j] {
			out[w] = a[i]
			i--
		} else {
			out[w] = b[j]
			j--
		}
	}
	return out
}
