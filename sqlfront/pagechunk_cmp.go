package sqlfront

import (
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/sql/exec"
)

// The page scan's comparisons and join key filters (vexec_colcmp.go)
// over runs of rows of one page: the gathered rows of a page come
// together, so each run's segments are looked up once and the common
// case — integers or dates with no exception, numerics of equal scales
// — is a plain loop over the run with no call per row. A run the loop
// cannot judge whole (a page without the typed segment, exceptions,
// scales apart) goes row by row through segReader as before, and the
// rows it cannot judge either go to the compiled conjunct (rest): the
// rows kept, in order, are those of the row-by-row evaluation.

// pageRun is the end of the run of rows of one page starting at sel[i].
func (ch *pageChunker) pageRun(sel []int, i int) int {
	pv := ch.pvs[sel[i]]
	j := i + 1
	for j < len(sel) && ch.pvs[sel[j]] == pv {
		j++
	}
	return j
}

// cmpRuns applies the comparison cc to rows sel page run by page run,
// returning the rows it holds for (in sel's storage) and those it cannot
// judge (und, for the compiled conjunct), both ascending.
func (ch *pageChunker) cmpRuns(cc *exec.ColCmp, sel []int) (kept, und []int) {
	und = ch.und[:0]
	a := cmpSide{ord: ch.req.Ords[cc.Col], numeric: heap.KindForOID(ch.req.OIDs[cc.Col]) == heap.KindNumeric}
	b := cmpSide{ord: -1}
	if cc.Col2 >= 0 {
		b = cmpSide{ord: ch.req.Ords[cc.Col2], numeric: heap.KindForOID(ch.req.OIDs[cc.Col2]) == heap.KindNumeric}
	}
	lt, eq, gt := cc.Truth()
	n := 0
	for i := 0; i < len(sel); {
		j := ch.pageRun(sel, i)
		pv := ch.pvs[sel[i]]
		if a.load(pv) && (b.ord < 0 || b.load(pv)) {
			n, und = cmpRunFast(&a, &b, cc, lt, eq, gt, &ch.slots, sel[i:j], sel, n, und)
		} else {
			ra, rb := segReader{ord: a.ord}, segReader{ord: max(b.ord, 0)}
			for _, r := range sel[i:j] {
				switch holds, ok := cmpRow(&ra, &rb, cc, pv, int(ch.slots[r])); {
				case !ok:
					und = append(und, r)
				case holds:
					sel[n] = r
					n++
				}
			}
		}
		i = j
	}
	return sel[:n], und
}

// cmpSide is one column of a comparison: its segments in the page of
// the run being judged.
type cmpSide struct {
	ord     int
	numeric bool
	ints    []int64
	scales  []uint8 // nil: every value's scale is 0 (not numeric)
	nulls   []uint64
}

// load looks up the column's segments in pv: false when pv does not
// hold every value of it as a scaled integer (no typed segment, a
// numeric without its scales, exceptions).
func (s *cmpSide) load(pv heap.PageView) bool {
	s.ints, s.scales, s.nulls = pv.Int64s(s.ord), pv.Scales(s.ord), pv.Nulls(s.ord)
	return s.ints != nil && (!s.numeric || s.scales != nil) && pv.Exceptions(s.ord) == nil
}

// cmpRow is cc on slot of pv through the segment readers: holds (a NULL
// is not), ok=false where it must be evaluated on the decoded values.
func cmpRow(a, b *segReader, cc *exec.ColCmp, pv heap.PageView, slot int) (holds, ok bool) {
	x, xs, null, ok := a.at(pv, slot)
	y, ys := cc.Const, cc.Scale
	if ok && !null && cc.Col2 >= 0 {
		var null2 bool
		y, ys, null2, ok = b.at(pv, slot)
		null = null2
	}
	if !ok || null {
		return false, ok
	}
	return cc.Holds(x, xs, y, ys)
}

// cmpRunFast judges the rows of run (rows of one page, whose segments a
// and b hold: b.ord < 0 for the constant) by cc: those it holds for go
// to out[n:] (n returned past them), those whose scales are too far
// apart to compare in 64 bits to und. A NULL drops its row, as false
// does; values of equal scales compare as integers, others through
// Holds.
func cmpRunFast(a, b *cmpSide, cc *exec.ColCmp, lt, eq, gt bool, slots *[exec.BatchSize]int32, run, out []int, n int, und []int) (int, []int) {
	xs, xn, xsc := a.ints, a.nulls, a.scales
	var ys []int64
	var ysc []uint8
	var yn []uint64
	c, csc := cc.Const, cc.Scale
	if b.ord >= 0 {
		ys, ysc, yn, csc = b.ints, b.scales, b.nulls, 0
	}
	// plain: every pair has equal scales (integers and dates, or a
	// constant of scale 0 against a column without scales).
	plain := xsc == nil && ysc == nil && csc == 0
	for _, r := range run {
		s := int(slots[r])
		w, bit := s>>6, uint64(1)<<(s&63)
		if xn[w]&bit != 0 || yn != nil && yn[w]&bit != 0 {
			continue
		}
		x, y := xs[s], c
		if ys != nil {
			y = ys[s]
		}
		if !plain {
			sx, sy := uint8(0), csc
			if xsc != nil {
				sx = xsc[s]
			}
			if ysc != nil {
				sy = ysc[s]
			}
			if sx != sy {
				switch h, ok := cc.Holds(x, sx, y, sy); {
				case !ok:
					und = append(und, r)
				case h:
					out[n] = r
					n++
				}
				continue
			}
		}
		var keep bool
		switch {
		case x < y:
			keep = lt
		case x > y:
			keep = gt
		default:
			keep = eq
		}
		if keep {
			out[n] = r
			n++
		}
	}
	return n, und
}

// keyRuns applies the key filter cc to rows sel page run by page run as
// cmpRuns does (a NULL key drops its row), with the rows judged and
// dropped counted.
func (ch *pageChunker) keyRuns(cc *exec.ColCmp, sel []int) (kept, und []int, dropped int) {
	und = ch.und[:0]
	ord := ch.req.Ords[cc.Col]
	ks := cc.KeySet()
	n := 0
	for i := 0; i < len(sel); {
		j := ch.pageRun(sel, i)
		pv := ch.pvs[sel[i]]
		xs, nulls := pv.Int64s(ord), pv.Nulls(ord)
		if xs != nil && pv.Scales(ord) == nil && pv.Exceptions(ord) == nil {
			for _, r := range sel[i:j] {
				s := int(ch.slots[r])
				if nulls[s>>6]&(1<<(s&63)) == 0 && ks.MayMatch(xs[s]) {
					sel[n] = r
					n++
				} else {
					dropped++
				}
			}
		} else {
			a := segReader{ord: ord}
			for _, r := range sel[i:j] {
				x, _, null, ok := a.at(pv, int(ch.slots[r]))
				switch {
				case !ok || a.scales != nil: // a numeric key hashes by its value
					und = append(und, r)
				case !null && ks.MayMatch(x):
					sel[n] = r
					n++
				default:
					dropped++
				}
			}
		}
		i = j
	}
	return sel[:n], und, dropped
}

// skipKeyPage says whether page i of h holds no live row a join's key
// filter keeps, by its zone map of the key: its non-NULL keys span
// [MinI, MaxI] and no build key lies there (a NULL key matches nothing
// either). Only when every conjunct of the filter is a comparison that
// cannot fail (exec.LateFilter.KeyPages): no error a row of the page
// could raise is lost, and the join drops every row of it.
func (ch *pageChunker) skipKeyPage(h *heap.Snapshot, i int) bool {
	if ch.lf == nil {
		return false
	}
	if !ch.keyChecked {
		ch.keyChecked = true
		for _, cc := range ch.lf.KeyPages() {
			if ch.raw != nil && ch.raw[cc.Col] && intKeyKind(ch.req.OIDs[cc.Col]) {
				ch.keyPages = append(ch.keyPages, cc)
			}
		}
	}
	for _, cc := range ch.keyPages {
		st := h.PageStats(i, ch.req.Ords[cc.Col])
		if st.Count == 0 || cc.KeyMisses(st.MinI, st.MaxI) {
			return true
		}
	}
	return false
}

// intKeyKind says whether values of type oid are held in the pages'
// Int64s segment as the integer a key filter hashes (integers, dates).
func intKeyKind(oid uint32) bool {
	switch heap.KindForOID(oid) {
	case heap.KindInt2, heap.KindInt4, heap.KindInt8, heap.KindDate:
		return true
	}
	return false
}
