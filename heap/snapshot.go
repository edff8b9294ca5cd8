package heap

import (
	"math/bits"
	"sync"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// Snapshot is one published version of the heap, for readers: every page,
// summary and row it shows belongs to the same applied batch, however many
// batches the writer applies meanwhile. Snapshots are cheap (one atomic
// load); the caller must Release it when done, which lets the heap account
// for the versions readers still hold. A Snapshot is safe for concurrent
// use by several goroutines (scan workers splitting its pages).
type Snapshot struct {
	v *version
	h *Heap

	// thawed keeps the cold pages this snapshot decoded last, so that
	// rows read one by one (Row, RowColumns: a scan in key order) decode
	// each cold page once per run of its rows, not once per row.
	// Allocated at the first cold page, so snapshots of a heap within its
	// budget (point gets) stay one small allocation.
	mu     sync.Mutex
	thawed *[thawSlots]thawedPage
	tick   uint64
	// lastMiss is the last page on disk this snapshot missed in its
	// slots: the next one missed makes the scan sequential (read-ahead).
	lastMiss int
	// scans is the cold pages the statement's scans share (scancache.go;
	// nil: none); released says Release has run.
	scans    *ScanCache
	released bool
}

// thawSlots is how many decoded cold pages a snapshot keeps: enough for a
// key-order scan that alternates between a few pages (rows an update moved
// to the table's last pages), small enough that every open snapshot's
// share stays a few pages.
const thawSlots = 8

// thawedPage is one entry of Snapshot.thawed.
type thawedPage struct {
	cold *page // the cold page decoded (its identity: pages are immutable)
	p    *page // its decoded form
	used uint64
}

// Snapshot returns the current version. The caller must call Release.
func (h *Heap) Snapshot() *Snapshot {
	h.open.Add(1)
	return &Snapshot{v: h.cur.Load(), h: h, lastMiss: -2}
}

// Clone is another snapshot of the same version, released on its own.
func (s *Snapshot) Clone() *Snapshot {
	s.h.open.Add(1)
	return &Snapshot{v: s.v, h: s.h, lastMiss: -2}
}

// Release ends the snapshot and drops the pages it decoded. Calling it
// twice is a bug the heap counts (OpenSnapshots goes negative).
func (s *Snapshot) Release() {
	s.mu.Lock()
	s.thawed = nil
	s.released = true
	sc := s.scans
	s.mu.Unlock()
	if sc != nil {
		sc.drop()
	}
	s.h.open.Add(-1)
}

// OpenSnapshots is the number of snapshots not yet released.
func (h *Heap) OpenSnapshots() int64 { return h.open.Load() }

// LSN is the position of the last batch the snapshot includes.
func (s *Snapshot) LSN() uint64 { return s.v.lsn }

// Rows is the number of live rows.
func (s *Snapshot) Rows() int64 { return s.v.rows }

// Stats returns the table-wide summary of column c (a copy).
func (s *Snapshot) Stats(c int) ColStats { return s.v.stats[c].clone() }

// NumPages is the number of pages (some may hold no live row).
func (s *Snapshot) NumPages() int { return s.v.pages.len() }

// Page returns a view of page i (0 ≤ i < NumPages). A cold page (see
// Config.Memory) is decoded for this view and kept among the snapshot's
// last few decoded pages (thawSlots), not in the heap; a cold page on disk
// (Config.Pages) also through the page file's cache. A cold page that
// cannot be read back (an I/O error, a damaged record) panics with its
// *PageError: no row of it is served. PageErr returns it instead.
func (s *Snapshot) Page(i int) PageView {
	v, err := s.PageErr(i)
	if err != nil {
		panic(err)
	}
	return v
}

// PageErr is Page, returning a cold page that cannot be read back as a
// *PageError.
func (s *Snapshot) PageErr(i int) (PageView, error) {
	p := s.v.pages.at(i)
	if p.isCold() {
		var err error
		if p, err = s.thawed1(i, p); err != nil {
			return PageView{}, err
		}
	}
	return PageView{p: p, s: &s.h.schema}, nil
}

// readAheadPages is how many pages past a sequential miss read-ahead
// asks the kernel for.
const readAheadPages = 16

// thawed1 returns cold page p (page i) decoded, from the snapshot's last
// decoded pages when it is one of them, else from the page file's cache.
// The decode runs outside the lock, so scan workers sharing the snapshot
// decode different pages in parallel.
func (s *Snapshot) thawed1(i int, p *page) (*page, error) {
	s.mu.Lock()
	if s.thawed == nil {
		s.thawed = new([thawSlots]thawedPage)
	}
	s.tick++
	for i := range s.thawed {
		if t := &s.thawed[i]; t.cold == p {
			t.used = s.tick
			q := t.p // the slot may be replaced once unlocked
			s.mu.Unlock()
			return q, nil
		}
	}
	seqMiss := p.disk != nil && i == s.lastMiss+1
	if p.disk != nil {
		s.lastMiss = i
	}
	s.mu.Unlock()
	q, err := s.load(i, p, seqMiss)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.thawed == nil { // released meanwhile: a bug of the caller's
		s.mu.Unlock()
		return q, nil
	}
	old := 0
	for i := range s.thawed {
		if s.thawed[i].used < s.thawed[old].used {
			old = i
		}
	}
	s.tick++
	s.thawed[old] = thawedPage{cold: p, p: q, used: s.tick}
	s.mu.Unlock()
	return q, nil
}

// load decodes cold page p (page i): from memory, or from the page file
// through its cache. seq says the snapshot's previous miss was page i-1:
// a sequential scan, for which the next pages' records are read ahead.
func (s *Snapshot) load(i int, p *page, seq bool) (*page, error) {
	if p.disk == nil {
		if ck := p.ck; ck != nil && ck.pf != nil {
			// Read from a mapped restore's checkpoint: kept in the page
			// file's cache as a page-file page is.
			if q := ck.cached(); q != nil {
				return q, nil
			}
			q, err := s.h.thawView(p)
			if err != nil {
				return nil, err
			}
			ck.pf.cache.put(ck.seq, q)
			return q, nil
		}
		return s.h.thawView(p)
	}
	pf := p.disk.pf
	if q := pf.cache.get(p.disk.seq); q != nil {
		return q, nil
	}
	if seq && i%readAheadPages == 0 {
		var refs []*diskRef
		for j := i + 1; j < min(i+1+readAheadPages, s.v.pages.len()); j++ {
			if r := s.v.pages.at(j).disk; r != nil {
				refs = append(refs, r)
			}
		}
		pf.readAhead(refs)
	}
	q, err := s.h.thawView(p)
	if err != nil {
		return nil, err
	}
	pf.cache.put(p.disk.seq, q)
	return q, nil
}

// PageStats returns page i's summary of column c without decoding it,
// even when it is cold: the zone map a scan checks before Page.
func (s *Snapshot) PageStats(i, c int) ColStats { return s.v.pages.at(i).stats[c].clone() }

// PageLive is page i's number of live rows, without decoding it.
func (s *Snapshot) PageLive(i int) int { return s.v.pages.at(i).nlive }

// Row appends the canonical vrow1 bytes of the row at id to dst; ok is
// false when id names no live row of this snapshot.
func (s *Snapshot) Row(dst []byte, id RowID) ([]byte, bool) {
	pid, slot := id.Page(), id.Slot()
	if int(pid) >= s.v.pages.len() {
		return dst, false
	}
	return s.Page(int(pid)).AppendRow(dst, slot)
}

// RowColumns is Row projected to columns cols, in that order (see
// PageView.AppendColumns).
func (s *Snapshot) RowColumns(dst []byte, id RowID, cols []int) ([]byte, bool) {
	pid, slot := id.Page(), id.Slot()
	if int(pid) >= s.v.pages.len() {
		return dst, false
	}
	return s.Page(int(pid)).AppendColumns(dst, slot, cols)
}

// RowErr is Row (cols nil) or RowColumns, returning a cold page that
// cannot be read back as its *PageError instead of panicking: for readers
// that answer an error (head's Get and Range).
func (s *Snapshot) RowErr(dst []byte, id RowID, cols []int) ([]byte, bool, error) {
	pid, slot := id.Page(), id.Slot()
	if int(pid) >= s.v.pages.len() {
		return dst, false, nil
	}
	pv, err := s.PageErr(int(pid))
	if err != nil {
		return dst, false, err
	}
	if cols == nil {
		dst, ok := pv.AppendRow(dst, slot)
		return dst, ok, nil
	}
	dst, ok := pv.AppendColumns(dst, slot, cols)
	return dst, ok, nil
}

// ForEach calls fn with the id and vrow1 bytes of every live row, in row
// id order, until fn returns false. row is reused between calls.
func (s *Snapshot) ForEach(fn func(id RowID, row []byte) bool) {
	var buf []byte
	for i := range s.v.pages.len() {
		pv := s.Page(i)
		for w, m := range pv.p.live {
			for m != 0 {
				slot := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				buf, _ = pv.AppendRow(buf[:0], slot)
				if !fn(MakeRowID(pv.p.id, slot), buf) {
					return
				}
			}
		}
	}
}

// PageView gives a scan kernel one page's segments, without copying and
// without allocation. Every slice is valid for as long as the snapshot is
// held and must not be modified. Segments are indexed by slot and have at
// least Slots() elements; a slot's values are meaningful only where its
// Live bit is set (and its Nulls bit is not).
type PageView struct {
	p *page
	s *Schema
}

// ID is the page number (the high bits of its rows' ids).
func (v PageView) ID() uint32 { return v.p.id }

// Slots is the number of slots in use: every slot at or past it is free.
func (v PageView) Slots() int { return v.p.n }

// Live is the live-slot bitmap: bit i%64 of word i/64 is slot i.
func (v PageView) Live() []uint64 { return v.p.live[:words(v.p.n)] }

// LiveCount is the number of live rows in the page.
func (v PageView) LiveCount() int { return v.p.nlive }

// Nulls is column c's NULL bitmap (same layout as Live).
func (v PageView) Nulls(c int) []uint64 { return v.p.cols[c].nulls[:words(v.p.n)] }

// Int64s is column c's values for the integer kinds, bool (0/1), date
// (days since 2000-01-01), timestamps (µs since 2000-01-01) and numeric
// (unscaled, see Scales); nil for other kinds.
func (v PageView) Int64s(c int) []int64 {
	if v.p.cols[c].ints == nil {
		return nil
	}
	return v.p.cols[c].ints[:v.p.n]
}

// Float64s is column c's values for float4 and float8; nil otherwise.
func (v PageView) Float64s(c int) []float64 {
	if v.p.cols[c].flts == nil {
		return nil
	}
	return v.p.cols[c].flts[:v.p.n]
}

// Scales is a numeric column's display scales (value = Int64s[i] /
// 10^Scales[i]); nil for other kinds.
func (v PageView) Scales(c int) []uint8 {
	if v.p.cols[c].scale == nil {
		return nil
	}
	return v.p.cols[c].scale[:v.p.n]
}

// Exceptions is column c's bitmap of slots whose canonical text is held in
// the varlen segment (Varlen, Text) instead of being printed from the typed
// value: for numeric the typed value is then not set (NaN, ±Infinity, more
// than 18 digits: parse the text); for the other kinds the typed value is
// still right and only its text is kept. nil when the page has none.
func (v PageView) Exceptions(c int) []uint64 {
	g := &v.p.cols[c]
	if g.exc == nil || g.nexc == 0 {
		return nil
	}
	return g.exc[:words(v.p.n)]
}

// Varlen is column c's variable-length segment: slot i's bytes are
// data[off[i] : off[i]+ln[i]] (text columns, and exceptions). nil slices
// for a typed column without exceptions.
func (v PageView) Varlen(c int) (off, ln []uint32, data []byte) {
	g := &v.p.cols[c]
	if g.off == nil {
		return nil, nil, nil
	}
	return g.off[:v.p.n], g.ln[:v.p.n], g.data
}

// Text returns slot's bytes of text column c (or of an exception).
func (v PageView) Text(c, slot int) []byte { return v.p.cols[c].text(slot) }

// Stats is the page's summary of column c (zone map: min/max, nulls,
// count, sum). The returned value shares nothing writable.
func (v PageView) Stats(c int) ColStats { return v.p.stats[c].clone() }

// AppendRow appends the canonical vrow1 bytes of slot to dst; ok is false
// when the slot holds no live row.
func (v PageView) AppendRow(dst []byte, slot int) ([]byte, bool) {
	p := v.p
	if slot >= p.n || !bit(p.live, slot) {
		return dst, false
	}
	for c := range v.s.Columns {
		dst = v.appendValue(dst, c, slot)
	}
	return dst, true
}

// AppendColumns appends the vrow1 bytes of slot's values of columns cols
// only, in that order (a projection: only those segments are read); ok is
// false when the slot holds no live row. Every index must be a column of
// the schema.
func (v PageView) AppendColumns(dst []byte, slot int, cols []int) ([]byte, bool) {
	p := v.p
	if slot >= p.n || !bit(p.live, slot) {
		return dst, false
	}
	for _, c := range cols {
		dst = v.appendValue(dst, c, slot)
	}
	return dst, true
}

// appendValue appends the vrow1 encoding of column c's value at slot.
func (v PageView) appendValue(dst []byte, c, slot int) []byte {
	p := v.p
	if bit(p.cols[c].nulls, slot) {
		return rowenc.AppendNull(dst)
	}
	kind := v.s.Columns[c].Kind
	if kind == KindText || p.cols[c].exc != nil && bit(p.cols[c].exc, slot) {
		return rowenc.AppendValue(dst, p.cols[c].text(slot))
	}
	var buf [64]byte
	return rowenc.AppendValue(dst, p.appendText(buf[:0], kind, c, slot))
}
