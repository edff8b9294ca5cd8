package sqlfront

import (
	"context"
	"errors"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/query"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// This file plans non-grouped SELECTs with a WHERE over one followed
// table onto the query engine's row scan (query.ScanRows): the filter
// runs vectorized over the in-memory HEAD's heap pages, the rows come out
// in primary-key order, as the evaluator's key-order scan emits them, and
// LIMIT/OFFSET stop the scan early. Only WHERE moves: each accepted row's
// stored texts go through the evaluator's own conversion and select list,
// so the answer is the evaluator's, row for row and byte for byte.
//
// Planned: a table whose primary key columns are integers, text or
// varchar (key order is then value order, bytewise for text), no point
// gets on the key (they stay direct or on the evaluator), a WHERE the
// engine types exactly (engineExpr, as for grouped SELECTs), and no ORDER
// BY or one that names the key's leading columns ascending (key order
// already). Anything else, an execution whose constants the engine cannot
// take (a NULL, a LIKE pattern with an escape), and versions the
// in-memory HEAD does not hold, run on the evaluator.

// rowsPlan is the part of a plan the engine's row scan runs.
type rowsPlan struct {
	where *qexpr
	key   []string // the primary key's column names, in key order
	fetch []int    // the table columns the select list and ORDER BY read
	safe  bool     // no target can fail (columns and constants only)
}

// rowSource is a Source that can run a row scan (HistorySource).
// errNotEngine: not at this version (the evaluator reads the tree).
type rowSource interface {
	ScanRows(ctx context.Context, v Version, t *Table, req query.RowRequest, emit func(row []byte) error) error
}

// rowKeyType: key column types whose key order is the engine's order.
func rowKeyType(t uint32) bool {
	return isIntType(t) && t != oidOID || t == oidText || t == oidVarchar
}

// planRows fills p.rows when the engine's row scan can run p (see the
// file comment).
func (pl *planner) planRows() {
	p := pl.p
	if p.grouping || p.distinct || p.agg != nil || p.noRows || p.where == nil || len(p.from) != 1 || p.from[0].table == nil {
		return
	}
	it := p.from[0]
	t := it.table
	if len(it.keyEq) > 0 || len(t.KeyCols) == 0 {
		return
	}
	rp := &rowsPlan{}
	for _, k := range t.KeyCols {
		if !rowKeyType(t.Columns[k].TypeOID) {
			return
		}
		rp.key = append(rp.key, t.Columns[k].Name)
	}
	for i, k := range p.order {
		c, ok := k.e.(*colExpr)
		if !ok || k.desc || k.nullsFirst || i >= len(t.KeyCols) || c.idx != it.base+t.KeyCols[i] || c.t != t.Columns[t.KeyCols[i]].TypeOID {
			return
		}
	}
	cols := t.Columns
	if rp.where = pl.engineExpr(p.where, func(e expr) (string, uint32, bool) {
		c, ok := unwrapCol(e)
		if !ok || !engineWhereType(cols[c.idx].TypeOID) {
			return "", 0, false
		}
		return cols[c.idx].Name, cols[c.idx].TypeOID, true
	}); rp.where == nil {
		return
	}
	read := make([]bool, len(cols))
	mark := func(e expr) {
		walk(e, func(x expr) {
			if c, ok := x.(*colExpr); ok && c.idx-it.base >= 0 && c.idx-it.base < len(cols) {
				read[c.idx-it.base] = true
			}
		})
	}
	rp.safe = true
	for _, e := range p.targets {
		mark(e)
		switch e.(type) {
		case *colExpr, *constExpr:
		default:
			rp.safe = false
		}
	}
	for _, k := range p.order {
		mark(k.e)
	}
	for i, r := range read {
		if r {
			rp.fetch = append(rp.fetch, i)
		}
	}
	p.rows = rp
}

// runRows runs p on the engine's row scan and emits its rows, skipping
// offset and stopping after limit (−1: none). errNotEngine: the caller
// runs the evaluator instead (nothing was emitted).
func (p *plan) runRows(ex *execCtx, limit, offset int64, emit func([]Value) error) error {
	rsrc, ok := ex.src.(rowSource)
	if !ok {
		return errNotEngine
	}
	e := &env{params: ex.params, ex: ex}
	rp := p.rows
	where, err := rp.where.build(e)
	if err != nil {
		// The evaluator decides what a constant it cannot take means
		// (a NULL matches nothing; an error shows only if a row is read).
		return errNotEngine
	}
	it := p.from[0]
	v, err := ex.sess.versionFor(ex.ctx, it.asOf)
	if err != nil {
		return err
	}
	t, err := ex.src.Table(ex.ctx, v, it.table.Name)
	if err != nil {
		return err
	}
	if !sameColumns(&t, it.table) {
		return errReplan
	}
	// As the evaluator: the rows OFFSET skips are projected too (a
	// target's error shows), and under ORDER BY every row is projected
	// before LIMIT applies, unless no target can fail.
	req := query.RowRequest{Where: where, Key: rp.key}
	if limit > 0 && (len(p.order) == 0 || rp.safe) {
		req.Limit = limit + offset
	}
	for _, c := range rp.fetch {
		req.Cols = append(req.Cols, t.Columns[c].Name)
	}
	need, raw := p.neededOf(it), p.rawOf(it)
	row := make([]*string, len(t.Columns)) // convertRow keeps the pointers, not the slice
	var sent int64
	return rsrc.ScanRows(ex.ctx, v, &t, req, func(b []byte) error {
		clear(row)
		iter := rowenc.NewIter(b)
		for j := 0; iter.Next(); j++ {
			if j >= len(rp.fetch) {
				return errf(codeInternal, -1, "row scan of %s: more values than columns asked for", t.Name)
			}
			if !iter.Null() {
				s := string(iter.Value())
				row[rp.fetch[j]] = &s
			}
		}
		if err := iter.Err(); err != nil {
			return errf(codeInternal, -1, "row scan of %s: %v", t.Name, err)
		}
		vals, err := convertRow(t.Columns, row, need, raw)
		if err != nil {
			return err
		}
		e.row = vals
		out := make([]Value, len(p.targets))
		for i, tg := range p.targets {
			if out[i], err = tg.eval(e); err != nil {
				return err
			}
		}
		if offset > 0 {
			offset--
			return nil
		}
		if limit >= 0 && sent >= limit {
			return nil // past LIMIT: projected only (see above)
		}
		sent++
		return emit(out)
	})
}

// rowsMaxRange bounds the row ids a key range collects for a row scan
// (under the index's read lock); a wider range scans every page.
const rowsMaxRange = 1 << 18

// ScanRows implements rowSource: the row scan on the in-memory HEAD's
// heap when it is exactly the state at v (a key range of WHERE read from
// its index first, so only those rows' pages are touched); errNotEngine
// otherwise, and for a request the engine refuses.
func (s *HistorySource) ScanRows(ctx context.Context, v Version, t *Table, req query.RowRequest, emit func(row []byte) error) error {
	if s.Head == nil || v.at == 0 {
		return errNotEngine
	}
	p, err := query.BindRows(req, schemaOf(t))
	if err != nil {
		return errNotEngine
	}
	opt := query.Options{}
	snap := s.headSnapshot(ctx, v, t)
	if snap == nil {
		return errNotEngine
	}
	kinds := make([]rowenc.KeyKind, len(t.KeyCols))
	for i, k := range t.KeyCols {
		kinds[i] = rowenc.KindForOID(t.Columns[k].TypeOID)
	}
	if from, to, ok := p.KeyBounds(kinds); ok {
		s2, rel, ids, complete, err := s.Head.SnapshotRange(t.Name, v.at, from, to, rowsMaxRange)
		switch {
		case errors.Is(err, head.ErrNotAtVersion):
		case err != nil:
			snap.Release()
			return err
		case !sameRelation(rel, t):
			s2.Release()
		default:
			snap.Release()
			snap = s2
			if complete {
				opt.Only = &ids
			}
		}
	}
	defer snap.Release()
	_, err = query.ScanRows(ctx, p, query.FromSnapshot(snap), opt, emit)
	return err
}

// schemaOf is the heap schema t's rows are held in (the kinds head/
// stores them with).
func schemaOf(t *Table) heap.Schema {
	var s heap.Schema
	for _, c := range t.Columns {
		s.Columns = append(s.Columns, heap.Column{Name: c.Name, Kind: heap.KindForOID(c.TypeOID)})
	}
	return s
}
