package sqlfront

import (
	"fmt"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/sql/exec"
)

// Typed vectors for a partial aggregation (exec's typedvec.go): the
// integer and numeric columns a parallel scan's aggregation worker reads
// only through its small path are handed as the pages' scaled integers
// (exec.SmallVec) instead of boxed values. A value the page holds
// otherwise (NULL, a numeric exception, a page without the typed
// segment) is decoded and boxed as before.

// smallScanCols are the vectors of req the scan may hand typed to its
// aggregation worker, or to the joins and aggregation reading it
// (req.Small), (nil: none): those the aggregation reads only through
// the small path (exec.PartialAgg.SmallCols), held in the pages
// as the plan's type (raw), and read by no conjunct of the scan's filter
// (the filter reads Vecs).
func smallScanCols(req *exec.ScanRequest, raw []bool, f *exec.LateFilter) []bool {
	want := req.Small // the joins' reader (exec's joinvec.go)
	if req.Partial != nil {
		want = req.Partial.SmallCols()
	}
	if want == nil || raw == nil {
		return nil
	}
	small := make([]bool, len(req.Ords))
	for c := range req.Ords {
		if c >= len(want) || !want[c] || !raw[c] {
			continue
		}
		switch heap.KindForOID(req.OIDs[c]) { // raw: the stored type
		case heap.KindInt2, heap.KindInt4, heap.KindInt8, heap.KindNumeric:
			small[c] = true
		}
	}
	if f != nil {
		for k := range f.Steps() {
			for _, c := range f.Cols(k) {
				small[c] = false
			}
		}
	}
	for _, s := range small {
		if s {
			return small
		}
	}
	return nil
}

// decodeSmall decodes vector c for rows into the batch's typed vector:
// a value held as a scaled integer goes there (its Vecs slot nil), any
// other is decoded and boxed.
func (ch *pageChunker) decodeSmall(c int, rows []int) error {
	b := ch.b
	if len(b.Small) < len(b.Vecs) {
		b.Small = b.Small[:cap(b.Small)]
		if len(b.Small) < len(b.Vecs) {
			b.Small = append(b.Small, make([]*exec.SmallVec, len(b.Vecs)-len(b.Small))...)
		}
	}
	ord, vec := ch.req.Ords[c], b.Vecs[c]
	numeric := heap.KindForOID(ch.req.OIDs[c]) == heap.KindNumeric
	sv := b.Small[c]
	if sv == nil {
		sv = exec.NewSmallVec(numeric)
		b.Small[c] = sv
	}
	var last heap.PageView
	var nulls, exc []uint64
	var ints []int64
	var scales []uint8
	for _, i := range rows {
		pv, slot := ch.pvs[i], int(ch.slots[i])
		if nulls == nil || pv != last {
			last, nulls = pv, pv.Nulls(ord) // rows of one page come together
			ints, scales, exc = pv.Int64s(ord), pv.Scales(ord), pv.Exceptions(ord)
			if numeric && scales == nil {
				ints = nil // decoded as text (decoderFor)
			}
		}
		sv.OK[i] = false
		if nulls[slot/64]&(1<<(slot%64)) != 0 {
			vec[i] = nil
			continue
		}
		if ints != nil && (exc == nil || exc[slot/64]&(1<<(slot%64)) == 0) {
			sv.X[i], sv.OK[i], vec[i] = ints[slot], true, nil
			if numeric {
				sv.Scale[i] = int32(scales[slot])
			} else {
				sv.Scale[i] = 0
			}
			continue
		}
		v, err := ch.decs[c](pv, ord, slot)
		if err != nil {
			return fmt.Errorf("decode %s.%s: %w", ch.req.Table.Name, ch.req.Table.Columns[ord].Name, err)
		}
		vec[i] = v
	}
	return nil
}
