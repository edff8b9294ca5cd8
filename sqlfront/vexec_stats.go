package sqlfront

import (
	"github.com/sidecar-dev/sidecar/heap"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// estimates fills d's row estimates for the optimizer's join order
// (sql/opt) from the in-memory HEAD when it holds t: the live rows, and
// for integer and date columns the distinct values their range allows
// (at most their non-NULL count). They are estimates of the latest
// version whatever version the statement reads: a table is read by key
// or by scan the same way at any version, and a wrong estimate only
// costs time. Nothing is read without a HEAD (d stays unknown).
func (c *vecCatalog) estimates(d *lplan.TableDef, t *Table) {
	hs, ok := c.pl.src.(*HistorySource)
	if !ok || hs.Head == nil {
		return
	}
	ht := hs.Head.Table(t.Name)
	if ht == nil || !sameRelation(ht.Relation(), t) {
		return
	}
	hp := ht.Heap()
	if hp == nil {
		return
	}
	snap := hp.Snapshot()
	defer snap.Release()
	d.Rows = snap.Rows()
	cols := hp.Schema().Columns
	for i := range d.Columns {
		if i >= len(cols) {
			break
		}
		switch cols[i].Kind {
		case heap.KindInt2, heap.KindInt4, heap.KindInt8, heap.KindDate:
			st := snap.Stats(i)
			if st.Count > 0 && st.MaxI >= st.MinI {
				span := uint64(st.MaxI-st.MinI) + 1
				if span > 0 && span < uint64(st.Count) {
					d.Columns[i].Distinct = int64(span)
				} else {
					d.Columns[i].Distinct = st.Count
				}
			}
		}
	}
}
