package sqlfront

import (
	"cmp"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// A top-N's bound on its scan (sql/exec topn_raw.go) judged on the typed
// pages: the first ORDER BY key of each row is compared with the
// bound where it lies (a scaled integer of an integer, numeric or date
// segment, the bytes of a text one), so a row the heap cannot take is
// dropped before any of its values is decoded; the rows a segment does
// not hold so (a numeric exception, scales too far apart) go through
// the compiled conjunct on their decoded key, at the same step. A page
// whose zone map puts every live row strictly past the bound is not
// read at all (skipPage), when every conjunct of the filter is a
// comparison that cannot fail (exec.LateFilter.TopNPages): no error a
// row of it could raise is lost.

// rawTextCols says, per vector of req, whether its column's page segment
// holds the plan's text or varchar values as their bytes.
func rawTextCols(cols []wal.Column, req *exec.ScanRequest) []bool {
	raw := make([]bool, len(req.Ords))
	for c, ord := range req.Ords {
		if ord >= len(cols) || req.OIDs[c] != cols[ord].TypeOID {
			continue
		}
		switch req.OIDs[c] {
		case types.Text, types.Varchar:
			raw[c] = heap.KindForOID(cols[ord].TypeOID) == heap.KindText
		}
	}
	return raw
}

// topN applies conjunct k, the top-N's bound cc, to rows *sel of the
// batch being filled, leaving in *sel the rows it keeps (ok=false: the
// key is not held raw here; the caller evaluates the conjunct).
func (ch *pageChunker) topN(k int, cc *exec.ColCmp, sel *[]int) (ok bool, err error) {
	text := cc.TopNText()
	if text && (ch.rawText == nil || !ch.rawText[cc.Col]) || !text && (ch.raw == nil || !ch.raw[cc.Col]) {
		return false, nil
	}
	b := cc.TopNBound()
	if b == nil {
		return true, nil // the heap is not full: every row is kept
	}
	rows := *sel
	und := ch.und[:0]
	n := 0
	if text {
		ord := ch.req.Ords[cc.Col]
		var last heap.PageView
		var nulls []uint64
		for _, i := range rows {
			pv, slot := ch.pvs[i], int(ch.slots[i])
			if nulls == nil || pv != last {
				last, nulls = pv, pv.Nulls(ord)
			}
			null := nulls[slot/64]&(1<<(slot%64)) != 0
			var keep bool
			switch {
			case null || b.Null:
				keep = cc.TopNNull(null, b)
			case !b.TextOK: // not a text bound: the compiled conjunct
				und = append(und, i)
				continue
			default:
				keep = cc.TopNKeeps(bytesCmpString(pv.Text(ord, slot), b.Text))
			}
			if keep {
				rows[n] = i
				n++
			}
		}
	} else {
		a := segReader{ord: ch.req.Ords[cc.Col]}
		for _, i := range rows {
			x, xs, null, raw := a.at(ch.pvs[i], int(ch.slots[i]))
			var keep bool
			switch {
			case !raw:
				und = append(und, i)
				continue
			case null || b.Null:
				keep = cc.TopNNull(null, b)
			default:
				s, cmpOK := exec.TopNCmpInt(x, xs, b)
				if !cmpOK {
					und = append(und, i)
					continue
				}
				keep = cc.TopNKeeps(s)
			}
			if keep {
				rows[n] = i
				n++
			}
		}
	}
	*sel, err = ch.rest(k, cc, rows[:n], und) // vexec_colcmp.go
	return true, err
}

// bytesCmpString is bytes.Compare of a with b's bytes, without a copy.
func bytesCmpString(a []byte, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return cmp.Compare(len(a), len(b))
}

// skipPage says whether page i of h holds no live row the top-N's bound
// keeps, by its zone map of the key (false when the filter has no such
// bound, the bound is not set yet, or the zone map cannot tell).
func (ch *pageChunker) skipPage(h *heap.Snapshot, i int) bool {
	if ch.lf == nil {
		return false
	}
	if !ch.topnChecked {
		ch.topnChecked = true
		if cc := ch.lf.TopNPages(); cc != nil {
			if text := cc.TopNText(); text && ch.rawText != nil && ch.rawText[cc.Col] || !text && ch.raw != nil && ch.raw[cc.Col] {
				ch.topnPages = cc
			}
		}
	}
	cc := ch.topnPages
	if cc == nil {
		return false
	}
	b := cc.TopNBound()
	if b == nil {
		return false
	}
	st := h.PageStats(i, ch.req.Ords[cc.Col])
	if st.Nulls > 0 && cc.TopNNull(true, b) {
		return false // its NULLs come before the bound
	}
	if st.Count == 0 {
		return st.Nulls > 0 // only NULLs, all past the bound (an empty page is not read either way)
	}
	if b.Null {
		return !cc.TopNNull(false, b) // every non-NULL value is past a NULL bound
	}
	// The page's best value: its least ascending, its greatest descending.
	lo := cc.TopNKeeps(-1) // ascending: the page's least value is its best
	switch {
	case cc.TopNText():
		best := st.MinB
		if !lo {
			best = st.MaxB
		}
		return b.TextOK && !cc.TopNKeeps(bytesCmpString(best, b.Text))
	case st.MinN.Text != nil || st.MaxN.Text != nil:
		return false // a NaN or infinite numeric, or one past 64 bits
	default:
		v, sc := st.MinI, uint8(0)
		if heap.KindForOID(uint32(ch.req.OIDs[cc.Col])) == heap.KindNumeric {
			v, sc = st.MinN.Unscaled, st.MinN.Scale
			if !lo {
				v, sc = st.MaxN.Unscaled, st.MaxN.Scale
			}
		} else if !lo {
			v = st.MaxI
		}
		s, ok := exec.TopNCmpInt(v, sc, b)
		return ok && !cc.TopNKeeps(s)
	}
}
