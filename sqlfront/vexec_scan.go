package sqlfront

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// This file is sql/exec's typed scan (exec.TypedSource) over snapshot/:
// a statement opens one snapshot per version it reads (released when it
// ends); each table is read from the in-memory HEAD's typed column pages
// when the model holds that version — integers, floats, numerics, bools,
// dates and timestamps go straight from the page segments into
// types.Value vectors, only the columns the scan reads — and from the
// Prolly tree at the version otherwise (rows projected to those columns,
// each value through types.In). A primary-key range the optimizer found
// narrows either read.

// ScanTyped implements exec.TypedSource.
func (s *vecSource) ScanTyped(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	return s.ScanLate(ctx, req, nil, fn)
}

// ScanLate implements exec.LateSource: the typed pages apply the filter
// column by column while they decode (scanPages); the other reads decode
// whole rows and filter each batch.
func (s *vecSource) ScanLate(ctx context.Context, req *exec.ScanRequest, lf *exec.LateFilter, fn func(*exec.Batch) error) error {
	rowFn := fn
	if lf != nil {
		rowFn = func(b *exec.Batch) error {
			if err := lf.Filter(b); err != nil || b.N == 0 {
				return err
			}
			return fn(b)
		}
	}
	if s.virt[req.Table] != nil { // a pg_catalog relation (pgcatalog_plan.go)
		return s.scanText(ctx, req, rowFn)
	}
	planned := s.tables[req.Table]
	if planned == nil {
		return fmt.Errorf("scan %s: the table was not planned by this statement", req.Table.Name)
	}
	hs, ok := s.ex.src.(*HistorySource)
	if !ok || hs.H == nil || hs.H.Snapshots() == nil || planned.part != nil || inheritsVec(planned) { // a partitioned root (partroot_vec.go), an inheritance parent (vexec_inherit.go)
		return s.scanText(ctx, req, rowFn)
	}
	v, err := s.ex.sess.versionFor(ctx, s.refs[req.Table])
	if err != nil {
		return err
	}
	snap, err := s.snapshotAt(ctx, hs, v)
	if err != nil {
		return err
	}
	t, err := snap.Table(ctx, planned.Name)
	if err != nil {
		return err
	}
	if !sameRelation(t.Rel, planned) {
		return errReplan // nothing of this statement was sent yet: plan it again
	}
	from, to := keyRange(t.Codec, req.Key)
	if p, ok, err := t.Pages(from, to); err != nil {
		return err
	} else if ok {
		defer shareScans(ctx, p, req).EndScan() // vexec_scanshare.go
		return scanPages(ctx, p, t.Rel.Columns, req, lf, fn)
	}
	return scanTree(ctx, t, from, to, req, rowFn)
}

// snapshotAt is the statement's snapshot at v, opened on first use.
func (s *vecSource) snapshotAt(ctx context.Context, hs *HistorySource, v Version) (*snapshot.Snapshot, error) {
	if snap := s.snaps[v.pin]; snap != nil {
		return snap, nil
	}
	st := *hs.H.Snapshots()
	if st.Head == nil && hs.Head != nil {
		st.Head = hs.Head
	}
	var snap *snapshot.Snapshot
	if v.at != 0 && hs.M.Head().EndLSN == v.at {
		// HEAD without a commit-log look-up, if it is still v.
		if h, err := st.Open(ctx, "HEAD"); err == nil && h.LSN() == v.at {
			snap = h
		} else if err == nil {
			h.Release()
		}
	}
	if snap == nil {
		var err error
		if snap, err = st.Open(ctx, v.pin); err != nil {
			return nil, fmt.Errorf("open the mirror at %s: %w", v.pin, err)
		}
	}
	if s.snaps == nil {
		s.snaps = map[string]*snapshot.Snapshot{}
	}
	s.snaps[v.pin] = snap
	return snap, nil
}

// release ends the statement's snapshots.
func (s *vecSource) release() {
	for _, snap := range s.snaps {
		snap.Release()
	}
	s.snaps = nil
}

// scanText is the typed scan over Source.Scan's texts (a source other
// than the mirror's): only the columns read are parsed.
func (s *vecSource) scanText(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	bt := newScanBatcher(ctx, len(req.Ords), fn)
	return bt.end(s.Scan(ctx, req.Table, func(row []*string) error {
		for c, ord := range req.Ords {
			if ord >= len(row) || row[ord] == nil {
				continue
			}
			v, err := exec.DecodeColumn(&req.Table.Columns[ord], req.OIDs[c], *row[ord]) // an enum's label (enum.go)
			if err != nil {
				return fmt.Errorf("decode %s.%s: %w", req.Table.Name, req.Table.Columns[ord].Name, err)
			}
			bt.b.Vecs[c][bt.b.N] = v
		}
		return bt.row()
	}))
}

// scanBatcher fills batches a row at a time and hands each full one to
// fn (after checking the statement's context); end hands the last.
type scanBatcher struct {
	ctx   context.Context
	width int
	b     *exec.Batch
	fn    func(*exec.Batch) error
}

func newScanBatcher(ctx context.Context, width int, fn func(*exec.Batch) error) *scanBatcher {
	return &scanBatcher{ctx: ctx, width: width, b: newScanBatch(width), fn: fn}
}

// row counts the row just written at b.N.
func (bt *scanBatcher) row() error {
	if bt.b.N++; bt.b.N < exec.BatchSize {
		return nil
	}
	out := bt.b
	bt.b = newScanBatch(bt.width)
	if err := bt.ctx.Err(); err != nil {
		return err
	}
	return bt.fn(out)
}

// end hands the last, partial batch to fn unless the scan failed.
func (bt *scanBatcher) end(err error) error {
	if err != nil || bt.b.N == 0 {
		return err
	}
	return bt.fn(bt.b)
}

// newScanBatch is an empty batch of n vectors of BatchSize rows.
func newScanBatch(n int) *exec.Batch {
	b := &exec.Batch{Vecs: make([][]types.Value, n)}
	vals := make([]types.Value, n*exec.BatchSize)
	for c := range b.Vecs {
		b.Vecs[c] = vals[c*exec.BatchSize : (c+1)*exec.BatchSize : (c+1)*exec.BatchSize]
	}
	return b
}

// scanTree reads the rows of [from, to) from the table's tree (or the
// model's rows, when Pages could not serve them), projected to the
// columns read.
func scanTree(ctx context.Context, t *snapshot.Table, from, to []byte, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	bt := newScanBatcher(ctx, len(req.Ords), fn)
	return bt.end(t.Range(ctx, from, to, 0, req.Ords, func(_, row []byte) error {
		if err := bt.put(req, row); err != nil {
			return err
		}
		return bt.row()
	}))
}

// put decodes row (vrow1, projected to req's columns) into the row of
// the batch at b.N.
func (bt *scanBatcher) put(req *exec.ScanRequest, row []byte) error {
	it := rowenc.NewIter(row)
	for it.Next() {
		c := it.Column()
		if c >= len(req.Ords) || it.Null() {
			continue
		}
		v, err := exec.DecodeColumn(&req.Table.Columns[req.Ords[c]], req.OIDs[c], string(it.Value())) // an enum's label (enum.go)
		if err != nil {
			return fmt.Errorf("decode %s.%s: %w", req.Table.Name, req.Table.Columns[req.Ords[c]].Name, err)
		}
		bt.b.Vecs[c][bt.b.N] = v
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("decode a row of %s: %w", req.Table.Name, err)
	}
	return nil
}

// colDecoder appends one page column's value at a slot to a vector.
type colDecoder func(pv heap.PageView, col, slot int) (types.Value, error)

// scanPages reads typed column pages: each live row (of p.Only, when
// set), the columns read decoded from their segments a column at a time
// over chunks of rows. With a filter (lf), each conjunct's columns are
// decoded for the rows the conjuncts before it kept, and the other
// columns only for the rows the whole filter keeps (exec.LateFilter).
func scanPages(ctx context.Context, p snapshot.Pages, cols []wal.Column, req *exec.ScanRequest, lf *exec.LateFilter, fn func(*exec.Batch) error) error {
	decs, err := pageDecoders(cols, req)
	if err != nil {
		return err
	}
	if p.Only == nil {
		if done, err := scanPagesParallel(ctx, p, cols, req, lf, fn); done { // vexec_pscan.go
			return err
		}
	}
	ch := newPageChunker(ctx, req, decs, lf, fn)
	ch.raw = rawCols(cols, req)         // vexec_colcmp.go
	ch.rawText = rawTextCols(cols, req) // vexec_topn.go
	if req.Partial == nil {
		ch.small = smallScanCols(req, ch.raw, lf) // vexec_typed.go: the joins' reader
	}
	if req.Reuse {
		// One batch, refilled once fn has returned (fn keeps none).
		ch.pool, ch.recycle = newBatchPool(len(req.Ords), 1), true
	}
	if p.Only != nil {
		if err := ch.addRows(p.Heap, *p.Only); err != nil {
			return err
		}
	} else if err := ch.pages(p.Heap, p.Heap.ColReader(req.Ords), 0, p.Heap.NumPages()); err != nil {
		return err
	}
	return ch.end()
}

// pageDecoders are the decoders of the columns req reads.
func pageDecoders(cols []wal.Column, req *exec.ScanRequest) ([]colDecoder, error) {
	decs := make([]colDecoder, len(req.Ords))
	for c, ord := range req.Ords {
		if ord >= len(cols) {
			return nil, fmt.Errorf("scan %s: column %d of %d", req.Table.Name, ord, len(cols))
		}
		decs[c] = decoderFor(req.OIDs[c], cols[ord].TypeOID)
		if ord < len(req.Table.Columns) && req.Table.Columns[ord].Enum != nil {
			decs[c] = enumDecoder(&req.Table.Columns[ord], req.OIDs[c], cols[ord].TypeOID) // enum.go
		}
	}
	return decs, nil
}

func newPageChunker(ctx context.Context, req *exec.ScanRequest, decs []colDecoder, lf *exec.LateFilter, fn func(*exec.Batch) error) *pageChunker {
	return &pageChunker{ctx: ctx, req: req, decs: decs, lf: lf, fn: fn,
		done: make([]bool, len(req.Ords)), sel: make([]int, 0, exec.BatchSize)}
}

// batchPool holds a scan's batches for refilling when the reader keeps
// none (exec.ScanRequest.Reuse): a full scan otherwise allocates (and
// clears) a batch of width×BatchSize values per BatchSize rows, and per
// parallel-scan unit however few rows it keeps. A nil pool always
// allocates. It is safe for several goroutines (the parallel scan's
// workers take, the scan's goroutine gives back).
type batchPool struct {
	width int
	free  chan *exec.Batch
}

// newBatchPool keeps at most n idle batches of width vectors.
func newBatchPool(width, n int) *batchPool {
	return &batchPool{width: width, free: make(chan *exec.Batch, n)}
}

// get is an empty batch of width vectors: an idle one, or a new one.
func (p *batchPool) get(width int) *exec.Batch {
	if p != nil {
		select {
		case b := <-p.free:
			b.N = 0
			return b
		default:
		}
	}
	return newScanBatch(width)
}

// put gives b back once its reader is done with it (dropped when the
// pool is full, or when the reader changed its shape).
func (p *batchPool) put(b *exec.Batch) {
	if p == nil || len(b.Vecs) != p.width {
		return
	}
	for _, v := range b.Vecs {
		if len(v) != exec.BatchSize {
			return
		}
	}
	select {
	case p.free <- b:
	default:
	}
}

// pages adds the live rows of pages [from, to) of h, read through rd (a
// cold page decoded for the columns the scan reads only).
func (ch *pageChunker) pages(h *heap.Snapshot, rd *heap.ColReader, from, to int) error {
	for i := from; i < to; i++ {
		if h.PageLive(i) == 0 {
			continue
		}
		if ch.skipPage(h, i) { // vexec_topn.go: no row of it can enter the top-N
			continue
		}
		if ch.skipKeyPage(h, i) { // pagechunk_cmp.go: no row of it can match the join
			continue
		}
		pv, err := rd.Page(i)
		if err != nil {
			return err
		}
		for w, m := range pv.Live() {
			for m != 0 {
				slot := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				if err := ch.add(pv, slot); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// end decodes the rows gathered last and hands on the last batch.
func (ch *pageChunker) end() error {
	if err := ch.chunk(); err != nil {
		return err
	}
	b := ch.b
	if b == nil || b.N == 0 {
		return nil
	}
	ch.b = nil
	if err := ch.fn(b); err != nil {
		return err
	}
	if ch.recycle {
		ch.pool.put(b)
	}
	return nil
}

// pageChunker gathers live rows of typed pages into the free tail of the
// batch being filled (rows b.N … b.N+m-1), then decodes and filters them
// a column at a time (chunk).
type pageChunker struct {
	ctx  context.Context
	req  *exec.ScanRequest
	decs []colDecoder
	lf   *exec.LateFilter
	fn   func(*exec.Batch) error
	b    *exec.Batch // nil until the next row
	// pool gives the batches (nil: each new); recycle: fn keeps no batch,
	// so each goes back to pool once fn returns.
	pool    *batchPool
	recycle bool
	m       int
	pvs     [exec.BatchSize]heap.PageView
	slots   [exec.BatchSize]int32
	done    []bool
	sel     []int
	// raw says which vectors a filter's comparison may read from the
	// typed segments (vexec_colcmp.go; nil: none); und is its scratch.
	raw []bool
	und []int
	// rawText says which vectors a top-N's bound may read as text bytes
	// (vexec_topn.go; nil: none); topnPages is the bound a page may be
	// skipped on, once topnChecked.
	rawText     []bool
	topnPages   *exec.ColCmp
	topnChecked bool
	// keyPages are the join key filters a page may be skipped on
	// (pagechunk_cmp.go), once keyChecked.
	keyPages   []*exec.ColCmp
	keyChecked bool
	// small says which vectors go to the batch typed (vexec_typed.go;
	// nil: none), only for a partial aggregation's worker.
	small []bool
}

// chunkMin is the least room a batch is refilled with: a batch with less
// room left is handed on, so that a selective filter is not evaluated
// over a few rows at a time.
const chunkMin = exec.BatchSize / 4

// addRows adds the rows ids names that are live in h, in ids' order.
func (ch *pageChunker) addRows(h *heap.Snapshot, ids []heap.RowID) error {
	for _, id := range ids {
		pid, slot := int(id.Page()), id.Slot()
		if pid >= h.NumPages() {
			continue
		}
		pv := h.Page(pid)
		if slot >= pv.Slots() || pv.Live()[slot/64]&(1<<(slot%64)) == 0 {
			continue
		}
		if err := ch.add(pv, slot); err != nil {
			return err
		}
	}
	return nil
}

func (ch *pageChunker) add(pv heap.PageView, slot int) error {
	if ch.b == nil {
		ch.b = ch.pool.get(len(ch.decs))
	}
	at := ch.b.N + ch.m
	ch.pvs[at], ch.slots[at] = pv, int32(slot)
	if ch.m++; at+1 < exec.BatchSize {
		return nil
	}
	return ch.chunk()
}

// decode decodes vector c for rows.
func (ch *pageChunker) decode(c int, rows []int) error {
	if ch.small != nil && ch.small[c] {
		return ch.decodeSmall(c, rows) // vexec_typed.go
	}
	ord, vec, dec := ch.req.Ords[c], ch.b.Vecs[c], ch.decs[c]
	var last heap.PageView
	var nulls []uint64
	for _, i := range rows {
		pv, slot := ch.pvs[i], int(ch.slots[i])
		if nulls == nil || pv != last {
			last, nulls = pv, pv.Nulls(ord) // rows of one page come together
		}
		if nulls[slot/64]&(1<<(slot%64)) != 0 {
			vec[i] = nil
			continue
		}
		v, err := dec(pv, ord, slot)
		if err != nil {
			return fmt.Errorf("decode %s.%s: %w", ch.req.Table.Name, ch.req.Table.Columns[ord].Name, err)
		}
		vec[i] = v
	}
	return nil
}

// chunk decodes (and filters) the gathered rows, and hands the batch on
// once it has less than chunkMin rows of room.
func (ch *pageChunker) chunk() error {
	if ch.m == 0 {
		return nil
	}
	b, start := ch.b, ch.b.N
	end := start + ch.m
	sel := ch.sel[:0]
	for i := start; i < end; i++ {
		sel = append(sel, i)
	}
	b.N, ch.m = end, 0
	clear(ch.done)
	if lf := ch.lf; lf != nil {
		lf.Begin(sel)
		var err error
		for k := range lf.Steps() {
			if cc := lf.ColCmp(k); cc != nil && cc.TopN() {
				if ok, err := ch.topN(k, cc, &sel); err != nil { // vexec_topn.go
					return err
				} else if ok {
					continue
				}
			} else if cc != nil && ch.raw != nil && ch.raw[cc.Col] && (cc.Col2 < 0 || ch.raw[cc.Col2]) {
				if sel, err = ch.colCmp(k, cc, sel); err != nil { // vexec_colcmp.go
					return err
				}
				continue
			}
			for _, c := range lf.Cols(k) {
				if !ch.done[c] {
					if err := ch.decode(c, sel); err != nil {
						return err
					}
					ch.done[c] = true
				}
			}
			if sel, err = lf.Apply(k, b, sel); err != nil {
				return err
			}
		}
		sel = lf.End(sel)
	}
	for c, d := range ch.done {
		if !d {
			if err := ch.decode(c, sel); err != nil {
				return err
			}
		}
	}
	if ch.lf != nil {
		b.N = exec.Compact(b, start, end, sel)
	}
	ch.sel = sel
	if exec.BatchSize-b.N >= chunkMin {
		return nil
	}
	if err := ch.ctx.Err(); err != nil {
		return err
	}
	ch.b = nil // the next add takes one
	if err := ch.fn(b); err != nil {
		return err
	}
	if ch.recycle {
		ch.pool.put(b)
	}
	return nil
}

// decoderFor is the decoder of a column of type oid (the plan's) stored
// with the relation's type rel: straight from the typed segment when the
// heap holds the type in one, else the text through types.In.
func decoderFor(oid, rel uint32) colDecoder {
	text := func(pv heap.PageView, col, slot int) (types.Value, error) {
		return types.In(oid, -1, string(pv.Text(col, slot)))
	}
	typed := func(pv heap.PageView, col, slot int) (types.Value, error) {
		// A typed value printed the way the heap prints it, then read: for
		// a kind this file does not decode itself.
		return types.In(oid, -1, string(appendPageText(nil, pv, heap.KindForOID(rel), col, slot)))
	}
	if oid != rel {
		return typed
	}
	switch kind := heap.KindForOID(rel); kind {
	case heap.KindText:
		switch oid {
		case types.Text, types.Varchar, types.Bpchar:
			var in interner // vexec_intern.go: one string per distinct flag or status
			return func(pv heap.PageView, col, slot int) (types.Value, error) {
				return in.value(pv.Text(col, slot)), nil
			}
		}
		return text
	// The boxes of integers, dates, timestamps and floats come from slabs
	// (types.BoxSlab): a scan decodes on one goroutine.
	case heap.KindInt2, heap.KindInt4, heap.KindInt8:
		var box types.BoxSlab[int64]
		return intDecoder(func(i int64) types.Value { return box.Box(i) }, typed)
	case heap.KindBool:
		return intDecoder(func(i int64) types.Value { return i != 0 }, typed)
	case heap.KindDate:
		var box types.BoxSlab[types.DateVal]
		return intDecoder(func(i int64) types.Value { return box.Box(types.DateVal(i)) }, typed)
	case heap.KindTimestamp, heap.KindTimestampTZ:
		var box types.BoxSlab[types.TimestampVal]
		return intDecoder(func(i int64) types.Value { return box.Box(types.TimestampVal(i)) }, typed)
	case heap.KindFloat4, heap.KindFloat8:
		var box types.BoxSlab[float64]
		return func(pv heap.PageView, col, slot int) (types.Value, error) {
			fs := pv.Float64s(col)
			if fs == nil {
				return typed(pv, col, slot)
			}
			f := fs[slot]
			if math.IsNaN(f) {
				return math.Float64frombits(0x7ff8000000000000), nil // types' canonical NaN
			}
			return box.Box(f), nil
		}
	case heap.KindNumeric:
		var slab types.DecimalSlab // a scan decodes on one goroutine
		return func(pv heap.PageView, col, slot int) (types.Value, error) {
			is, sc := pv.Int64s(col), pv.Scales(col)
			if is == nil || sc == nil || isException(pv, col, slot) {
				return text(pv, col, slot)
			}
			return slab.Small(is[slot], int32(sc[slot])), nil
		}
	default:
		return typed
	}
}

// intDecoder decodes an Int64s segment with conv (typed when the page
// has no such segment).
func intDecoder(conv func(int64) types.Value, typed colDecoder) colDecoder {
	return func(pv heap.PageView, col, slot int) (types.Value, error) {
		is := pv.Int64s(col)
		if is == nil {
			return typed(pv, col, slot)
		}
		return conv(is[slot]), nil
	}
}

// isException says whether slot's value of col is held as text (a
// numeric too wide for the typed segment, NaN, ±Infinity).
func isException(pv heap.PageView, col, slot int) bool {
	exc := pv.Exceptions(col)
	return exc != nil && exc[slot/64]&(1<<(slot%64)) != 0
}

// appendPageText appends the canonical text of slot's value of col.
func appendPageText(dst []byte, pv heap.PageView, kind heap.Kind, col, slot int) []byte {
	if kind == heap.KindText || isException(pv, col, slot) {
		return append(dst, pv.Text(col, slot)...)
	}
	var i int64
	var f float64
	var sc uint8
	if is := pv.Int64s(col); is != nil {
		i = is[slot]
	}
	if fs := pv.Float64s(col); fs != nil {
		f = fs[slot]
	}
	if s := pv.Scales(col); s != nil {
		sc = s[slot]
	}
	return heap.AppendText(dst, kind, i, f, sc)
}

// keyRange is the encoded primary-key range [from, to) of a scan's key
// bounds (nil, nil: every row). Only what the key encoding orders as the
// type does is used: equalities on integer, bool, date, text and varchar
// columns, then a range on an integer or date column (not timestamps
// yet: their key compares the printed offset too); the range stops at the first column it cannot use (a wider
// range: the scan's filter still decides).
func keyRange(codec *rowenc.KeyCodec, k *exec.KeyBounds) (from, to []byte) {
	if codec == nil || k == nil {
		return nil, nil
	}
	kinds := codec.Kinds()
	var prefix [][]byte
	for i, v := range k.Eq {
		if i >= len(kinds) || !keyEqOK(k.EqOIDs[i]) {
			break
		}
		prefix = append(prefix, []byte(types.Out(k.EqOIDs[i], v)))
	}
	enc := func(texts [][]byte) ([]byte, bool) {
		b, err := codec.AppendPrefix(nil, texts)
		return b, err == nil
	}
	pre, ok := enc(prefix)
	if !ok {
		return nil, nil
	}
	if len(prefix) < len(k.Eq) || len(prefix) >= len(kinds) || !keyRangeOK(k.BoundOID) || k.Lo == nil && k.Hi == nil {
		if len(pre) == 0 {
			return nil, nil
		}
		return pre, prefixEndBytes(pre)
	}
	from, to = pre, prefixEndBytes(pre)
	if len(pre) == 0 {
		from = nil
	}
	if k.Lo != nil {
		if b, ok := enc(append(prefix[:len(prefix):len(prefix)], []byte(types.Out(k.BoundOID, k.Lo)))); ok {
			from = b // inclusive or not, the filter drops the bound itself
		}
	}
	if k.Hi != nil {
		if b, ok := enc(append(prefix[:len(prefix):len(prefix)], []byte(types.Out(k.BoundOID, k.Hi)))); ok {
			to = b
			if k.HiIncl {
				to = prefixEndBytes(b)
			}
		}
	}
	if from != nil && to != nil && bytes.Compare(from, to) > 0 {
		to = from // empty
	}
	return from, to
}

// keyEqOK says whether the key encoding of type oid is equal exactly when
// the values are (numeric keys also hold the display scale; bpchar's
// stored text is padded).
func keyEqOK(oid uint32) bool {
	switch oid {
	case types.Int2, types.Int4, types.Int8, types.Bool, types.Date, types.Text, types.Varchar:
		return true
	}
	return false
}

// keyRangeOK says whether the key encoding of type oid orders as the
// type: integers, date, timestamp and timestamptz (keyorder_facts.go),
// and text and varchar in byte order — as sql/exec compares them when
// it asks for a range (its keyBounds gives none under a locale's order).
func keyRangeOK(oid uint32) bool {
	switch oid {
	case types.Int2, types.Int4, types.Int8, types.Date, types.Timestamp, types.Timestamptz, types.Text, types.Varchar:
		return true
	}
	return false
}

// prefixEndBytes is the least key greater than every key starting with p
// (nil when there is none).
func prefixEndBytes(p []byte) []byte {
	e := bytes.Clone(p)
	for i := len(e) - 1; i >= 0; i-- {
		if e[i] != 0xff {
			e[i]++
			return e[:i+1]
		}
	}
	return nil
}
