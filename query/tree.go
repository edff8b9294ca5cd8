package query

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// Scanner is the part of history.API RunTree reads through.
type Scanner interface {
	Scan(ctx context.Context, req history.ReadRequest, header func(history.ReadHeader) error, row func(*history.Row) error) error
}

// errBind carries a bind error out of the scan callback.
type errBind struct{ err error }

func (e errBind) Error() string { return e.err.Error() }
func (e errBind) Unwrap() error { return e.err }

// RowScanner is a Scanner that can also give the stored row bytes
// undecoded (history.Service.ScanRows): RunTree then loads them into the
// heap without building strings.
type RowScanner interface {
	Scanner
	ScanRows(ctx context.Context, req history.ReadRequest, header func(history.ReadHeader, *wal.Relation) error, row func(vrow []byte) error) error
}

// treeLoader collects rows into a heap in batches, keeping only the
// columns the plan reads (keep: their indexes in the stored rows).
type treeLoader struct {
	h     *heap.Heap
	keep  []int
	arena []byte
	ends  []int
}

// add copies the kept columns of one vrow1 row (NULL for columns the row
// does not have: it was stored before they were added).
func (l *treeLoader) add(row []byte) error {
	it := rowenc.NewIter(row)
	k := 0
	for it.Next() && k < len(l.keep) {
		if it.Column() != l.keep[k] {
			continue
		}
		if it.Null() {
			l.arena = rowenc.AppendNull(l.arena)
		} else {
			l.arena = rowenc.AppendValue(l.arena, it.Value())
		}
		k++
	}
	if err := it.Err(); err != nil {
		return err
	}
	l.arena = rowenc.AppendNulls(l.arena, len(l.keep)-k)
	l.ends = append(l.ends, len(l.arena))
	if len(l.ends) >= 1<<16 {
		return l.flush()
	}
	return nil
}

func (l *treeLoader) flush() error {
	if len(l.ends) == 0 {
		return nil
	}
	ops := make([]heap.Op, len(l.ends))
	st := 0
	for i, e := range l.ends {
		ops[i] = heap.Op{Kind: heap.OpInsert, Row: l.arena[st:e:e]}
		st = e
	}
	_, err := l.h.Apply(heap.Batch{Ops: ops})
	l.arena, l.ends = nil, l.ends[:0] // the heap may keep the batch's bytes: a fresh arena
	return err
}

// RunTree answers req at req.AsOf (default HEAD) from the Prolly tree:
// the rows are read through api (exact, at one version; the stored bytes
// when api is a RowScanner, decoded rows otherwise), loaded into a heap
// and aggregated there. The request is bound to the table's columns as
// soon as the scan's header arrives, so a bad request fails
// (ErrBadRequest) before any row is read. The header names the version
// read.
func RunTree(ctx context.Context, api Scanner, req Request) (*Result, history.ReadHeader, error) {
	var (
		hdr  history.ReadHeader
		plan *Plan
		ld   treeLoader
		vals [][]byte
		one  []byte
		oids colOIDs // the columns compared by value (typedtext.go)
	)
	defer func() {
		if ld.h != nil {
			ld.h.Close()
		}
	}()
	start := func(rh history.ReadHeader, schema heap.Schema) error {
		hdr = rh
		full, err := Bind(req, schema)
		if err == nil {
			err = full.typeColumns(oids) // typedtext.go
		}
		if err != nil {
			return errBind{err}
		}
		// Load only the columns the plan reads (at least one: a heap
		// needs a column; count(*) reads none).
		ld.keep = append([]int(nil), full.needed...)
		if len(ld.keep) == 0 {
			ld.keep = []int{0}
		}
		var sub heap.Schema
		for _, c := range ld.keep {
			sub.Columns = append(sub.Columns, schema.Columns[c])
		}
		if plan, err = Bind(req, sub); err == nil {
			err = plan.typeColumns(oids)
		}
		if err != nil {
			return errBind{err}
		}
		ld.h, err = heap.New(sub, heap.Config{})
		return err
	}
	rr := treeRange(ctx, api, req)
	var err error
	if rs, ok := api.(RowScanner); ok {
		err = rs.ScanRows(ctx, rr, func(rh history.ReadHeader, rel *wal.Relation) error {
			schema := SchemaOf(rel)
			var err error
			if oids, err = opaqueRefusal(req, schema, relColumns(rel)); err != nil {
				hdr = rh
				return errBind{err} // opaque.go
			}
			return start(rh, schema)
		}, ld.add)
	} else {
		err = api.Scan(ctx, rr, func(rh history.ReadHeader) error {
			schema := heap.Schema{}
			for _, c := range rh.Columns {
				schema.Columns = append(schema.Columns, heap.Column{Name: c.Name, Kind: heap.KindForType(c.Type)})
			}
			var err error
			if oids, err = opaqueRefusal(req, schema, headerColumns(rh.Columns)); err != nil {
				hdr = rh
				return errBind{err} // opaque.go
			}
			return start(rh, schema)
		}, func(r *history.Row) error {
			vals = vals[:0]
			for _, v := range r.Values {
				if v == nil {
					vals = append(vals, nil)
				} else {
					vals = append(vals, []byte(*v))
				}
			}
			one = rowenc.Append(one[:0], vals)
			return ld.add(one)
		})
	}
	var be errBind
	if errors.As(err, &be) {
		return nil, hdr, be.err
	}
	if err != nil {
		return nil, hdr, err
	}
	if ld.h == nil {
		return nil, hdr, fmt.Errorf("query %s: no header from the scan", req.Table)
	}
	if err := ld.flush(); err != nil {
		return nil, hdr, fmt.Errorf("query %s: load rows: %w", req.Table, err)
	}
	snap := ld.h.Snapshot()
	defer snap.Release()
	res, err := Run(ctx, plan, FromSnapshot(snap), Options{})
	if err != nil {
		return nil, hdr, fmt.Errorf("query %s: %w", req.Table, err)
	}
	return res, hdr, nil
}

// allKey says whether every column is flagged as key, as pgoutput flags
// a REPLICA IDENTITY FULL table's.
func allKey(cols []history.Column) bool {
	for _, c := range cols {
		if !c.Key {
			return false
		}
	}
	return true
}

// treeRange is the scan RunTree reads: the whole table, or, when WHERE
// bounds an integer first key column, only that key range (the tree is in
// key order). The key column is learnt from a first one-row scan's
// header; a table without a key (REPLICA IDENTITY FULL) is read whole.
func treeRange(ctx context.Context, api Scanner, req Request) history.ReadRequest {
	rr := history.ReadRequest{Table: req.Table, AsOf: req.AsOf}
	if req.Where == nil {
		return rr
	}
	var first *history.ReadHeader
	probe := history.ReadRequest{Table: req.Table, AsOf: req.AsOf, Limit: 1}
	var err error
	if rs, ok := api.(RowScanner); ok {
		// The relation says whether the table has a key: a REPLICA
		// IDENTITY FULL table flags every column as key but has no key
		// order to range over (a range there is refused).
		err = rs.ScanRows(ctx, probe, func(h history.ReadHeader, rel *wal.Relation) error {
			if rel != nil && rel.Identity != wal.IdentityFull {
				first = &h
			}
			return nil
		}, func([]byte) error { return nil })
	} else {
		err = api.Scan(ctx, probe, func(h history.ReadHeader) error {
			if !allKey(h.Columns) { // else maybe REPLICA IDENTITY FULL: read it whole
				first = &h
			}
			return nil
		}, func(*history.Row) error { return nil })
	}
	if err != nil || first == nil {
		return rr // the real scan reports it, or a keyless table is read whole
	}
	schema, key := heap.Schema{}, ""
	for _, c := range first.Columns {
		schema.Columns = append(schema.Columns, heap.Column{Name: c.Name, Kind: heap.KindForType(c.Type)})
		if c.Key && key == "" {
			key = c.Name
		}
	}
	plan, err := Bind(req, schema)
	if err != nil || key == "" {
		return rr
	}
	r, ok := plan.KeyRangeOf(key)
	switch {
	case !ok:
	case r.Empty:
		rr.From, rr.To = "0", "0"
	default:
		rr.From, _ = r.Texts()
		if r.HasHi && r.HiBelowMax() {
			rr.To = strconv.FormatInt(r.Hi+1, 10)
		}
	}
	return rr
}

// Header is the first line of a JSON-lines answer: the table, the
// version read and the output columns.
type Header struct {
	Table   string         `json:"table"`
	LSN     string         `json:"lsn"`
	Ref     string         `json:"ref"`
	Columns []ResultColumn `json:"columns"`
	// Read is where the answer was read: ReadHead or ReadTree.
	Read string `json:"read,omitempty"`
}

// HistoryRows returns the result's rows as history rows (output texts,
// nil for NULL) keyed by output column name.
func (res *Result) HistoryRows() []*history.Row {
	names := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		names[i] = c.Name
	}
	out := make([]*history.Row, len(res.Rows))
	for r := range res.Rows {
		row := &history.Row{Names: names}
		for c := range res.Columns {
			if s, ok := res.Text(r, c); ok {
				row.Values = append(row.Values, &s)
			} else {
				row.Values = append(row.Values, nil)
			}
		}
		out[r] = row
	}
	return out
}
