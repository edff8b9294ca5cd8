package query

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// Row scans: the rows of one table for which a filter is TRUE, projected
// to some columns, in primary-key order, with OFFSET and LIMIT (the SQL
// front end's non-grouped SELECT … WHERE). The filter is the aggregate
// queries' (Expr, bound by the same binder, evaluated by the same
// vectorized kernels over each page); the order is the key order a
// key-order scan of the table gives (an integer key column orders by
// value, a text one bytewise).
//
// The heap's row order is not key order (rows move on update, free slots
// are reused), so pages are visited by the least value of the first key
// column their zone map holds, and a matching row is emitted once no page
// not yet visited can hold a smaller first key column (a sorted run of
// pending matches is merged per page). On a table whose pages hold
// disjoint key ranges, as a table loaded in key order does, that is the
// first page's matches after one page: LIMIT stops the scan early.

// RowRequest is one row scan.
type RowRequest struct {
	// Where is the filter (nil: every row).
	Where *Expr
	// Key is the primary key's columns in key order (integer or text
	// kinds).
	Key []string
	// Cols are the columns each row is projected to, in that order.
	Cols []string
	// Offset rows are skipped, then at most Limit emitted (0: no limit).
	Offset, Limit int64
}

// RowPlan is a RowRequest bound to a schema.
type RowPlan struct {
	Req   RowRequest
	where *Plan // the filter, bound as an aggregate plan's WHERE
	key   []int
	kinds []heap.Kind
	cols  []int
}

// BindRows checks req against schema. Every error wraps ErrBadRequest.
func BindRows(req RowRequest, schema heap.Schema) (*RowPlan, error) {
	p := &RowPlan{Req: req, where: &Plan{schema: schema}}
	col := func(name, what string) (int, error) {
		for i, c := range schema.Columns {
			if c.Name == name {
				return i, nil
			}
		}
		return 0, badf("%s: no column %q", what, name)
	}
	if len(req.Key) == 0 {
		return nil, badf("rows: no key columns: key order is undefined")
	}
	for _, k := range req.Key {
		c, err := col(k, "key")
		if err != nil {
			return nil, err
		}
		kind := schema.Columns[c].Kind
		switch kind {
		case heap.KindInt2, heap.KindInt4, heap.KindInt8, heap.KindText:
		default:
			return nil, badf("key: column %q is %s: rows are ordered by integer and text keys only", k, kind)
		}
		p.key, p.kinds = append(p.key, c), append(p.kinds, kind)
	}
	for _, name := range req.Cols {
		c, err := col(name, "column")
		if err != nil {
			return nil, err
		}
		p.cols = append(p.cols, c)
	}
	if req.Offset < 0 || req.Limit < 0 {
		return nil, badf("offset %d, limit %d: must not be negative", req.Offset, req.Limit)
	}
	if req.Where != nil {
		n, err := bindExpr(req.Where, func(name string) (int, heap.Kind, error) {
			c, err := col(name, "where")
			if err != nil {
				return 0, 0, err
			}
			if !supported[schema.Columns[c].Kind] {
				return 0, 0, badf("where: column %q is %s, which query does not support yet", name, schema.Columns[c].Kind)
			}
			return c, schema.Columns[c].Kind, nil
		})
		if err != nil {
			return nil, err
		}
		p.where.where = n
	}
	return p, nil
}

// KeyBounds is Plan.KeyBounds of the filter: the index key range holding
// every row it can accept, for the Only rows of a scan.
func (p *RowPlan) KeyBounds(kinds []rowenc.KeyKind) (from, to []byte, ok bool) {
	return p.where.KeyBounds(p.key, kinds)
}

// RowStats says what a row scan read.
type RowStats struct {
	PagesScanned, PagesSkipped int
	Rows                       int64 // emitted
}

// match is one row the filter accepted: its first key column's value
// (k or b) and where it is.
type match struct {
	k    int64
	b    []byte
	page int32 // index into the scan's evaluated pages
	slot int32
}

// ScanRows calls emit with each row of src that p's filter accepts, in
// key order, projected to p's columns (vrow1 bytes, valid during the
// call), after skipping Offset of them and until Limit were emitted.
// Options.Only restricts the rows read (any order); Workers is not used
// (one goroutine: the order is sequential). ctx is checked before every
// page; ScanRows returns its error, wrapped. An error from emit ends the
// scan and is returned as is.
func ScanRows(ctx context.Context, p *RowPlan, src Source, opt Options, emit func(row []byte) error) (RowStats, error) {
	var st RowStats
	var rs *restriction
	if opt.Only != nil {
		rs = restrict(*opt.Only)
	} else {
		rs = &restriction{pages: make([]int, src.NumPages())}
		for i := range rs.pages {
			rs.pages[i] = i
		}
	}
	where := p.where.where
	text := p.kinds[0] == heap.KindText
	// The pages that can hold a match, by their least first key column.
	type cand struct {
		pi  int // index into rs.pages
		lo  int64
		lob []byte
	}
	var order []cand
	for pi, i := range rs.pages {
		if src.PageLive(i) == 0 {
			st.PagesSkipped++
			continue
		}
		ks := src.PageStats(i, p.key[0])
		if ks.Count == 0 {
			st.PagesSkipped++ // no live row has a key: none to emit
			continue
		}
		order = append(order, cand{pi: pi, lo: ks.MinI, lob: ks.MinB})
	}
	slices.SortStableFunc(order, func(a, b cand) int {
		if text {
			return bytes.Compare(a.lob, b.lob)
		}
		return cmp64(a.lo, b.lo)
	})
	var (
		ar      arena
		live    []uint64
		views   []heap.PageView
		pending []match // sorted, from head on
		head    int
		fresh   []match
		merged  []match
		buf     []byte
		skip    = p.Req.Offset
	)
	less := func(a, b *match) int {
		c := 0
		if text {
			c = bytes.Compare(a.b, b.b)
		} else {
			c = cmp64(a.k, b.k)
		}
		if c != 0 || len(p.key) == 1 {
			return c
		}
		va, vb := views[a.page], views[b.page]
		for j, kc := range p.key[1:] {
			if p.kinds[j+1] == heap.KindText {
				c = bytes.Compare(va.Text(kc, int(a.slot)), vb.Text(kc, int(b.slot)))
			} else {
				c = cmp64(va.Int64s(kc)[a.slot], vb.Int64s(kc)[b.slot])
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}
	// flush emits the pending matches whose first key column is below
	// bound (all when last); done=true once Limit rows were emitted.
	flush := func(bound *cand, last bool) (done bool, err error) {
		for ; head < len(pending); head++ {
			m := &pending[head]
			if !last {
				if text && bytes.Compare(m.b, bound.lob) >= 0 || !text && m.k >= bound.lo {
					break
				}
			}
			if skip > 0 {
				skip--
				continue
			}
			buf, _ = views[m.page].AppendColumns(buf[:0], int(m.slot), p.cols)
			if err := emit(buf); err != nil {
				return true, err
			}
			if st.Rows++; p.Req.Limit > 0 && st.Rows >= p.Req.Limit {
				return true, nil
			}
		}
		return false, nil
	}
	// scanPage filters page i (rs.pages[pi]) and merges its matches into
	// the pending run.
	scanPage := func(i, pi int) error {
		st.PagesScanned++
		v := src.Page(i)
		var sel []uint64
		sel, live = selectPage(v, rs, pi, where, live, &ar)
		views = append(views, v)
		pg := int32(len(views) - 1)
		fresh = fresh[:0]
		kc := p.key[0]
		var ints []int64
		if !text {
			ints = v.Int64s(kc)
		}
		forEach(sel, nil, func(s int) {
			m := match{page: pg, slot: int32(s)}
			if text {
				m.b = v.Text(kc, s)
			} else {
				m.k = ints[s]
			}
			fresh = append(fresh, m)
		})
		if !slices.IsSortedFunc(fresh, func(a, b match) int { return less(&a, &b) }) {
			slices.SortFunc(fresh, func(a, b match) int { return less(&a, &b) })
		}
		// Merge fresh into the pending run (usually: append after it).
		pending = pending[:copy(pending, pending[head:])] // keep the capacity
		head = 0
		switch {
		case len(fresh) == 0:
		case len(pending) == 0 || less(&pending[len(pending)-1], &fresh[0]) < 0:
			pending = append(pending, fresh...)
		default:
			merged = merged[:0]
			a, b := 0, 0
			for a < len(pending) && b < len(fresh) {
				if less(&pending[a], &fresh[b]) <= 0 {
					merged = append(merged, pending[a])
					a++
				} else {
					merged = append(merged, fresh[b])
					b++
				}
			}
			merged = append(append(merged, pending[a:]...), fresh[b:]...)
			pending, merged = merged, pending
		}
		return nil
	}
	for oi, c := range order {
		if err := ctx.Err(); err != nil {
			return st, fmt.Errorf("query: row scan stopped at page %d of %d: %w", oi, len(order), err)
		}
		i := rs.pages[c.pi]
		// The zone maps are read only now: LIMIT may stop before.
		if where != nil && !mayMatch(where, func(c int) heap.ColStats { return src.PageStats(i, c) }) {
			st.PagesSkipped++
		} else if err := scanPage(i, c.pi); err != nil {
			return st, err
		}
		var bound *cand
		if oi+1 < len(order) {
			bound = &order[oi+1]
		}
		if done, err := flush(bound, bound == nil); done || err != nil {
			return st, err
		}
	}
	if _, err := flush(nil, true); err != nil {
		return st, err
	}
	return st, nil
}
