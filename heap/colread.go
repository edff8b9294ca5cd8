package heap

import "fmt"

// Column reads of cold pages: a scan reads a few of a table's columns,
// and a cold page decoded for it in full copies, checks and allocates
// every column (TPC-H's Q1 reads 7 of lineitem's 16; at scale factor 1,
// where lineitem's pages are mostly cold under memory.limit, the full
// decode was 60 % of the scan's CPU). A ColReader decodes only the
// columns its scan reads, into a page of its own that no other reader
// sees, and reuses its read and decompression buffers from page to page.

// ColReader reads a snapshot's pages for a scan of some columns. It is
// not safe for concurrent use: each scan goroutine makes its own (they
// share the Snapshot).
type ColReader struct {
	s    *Snapshot
	want []bool // nil: every column (PageErr)
	// rec and raw are the page file record and the decompressed image
	// of the last page read (the decoded page copies what it keeps).
	rec, raw []byte
	last     int // the last page read from the page file: read-ahead
	// cache is the snapshot's ScanCache when the reader was made (nil:
	// none).
	cache *ScanCache
}

// ColReader returns a reader of columns cols (ordinals of the schema;
// others are not decoded from cold pages: their segments in the views it
// returns are empty and must not be read).
func (s *Snapshot) ColReader(cols []int) *ColReader {
	r := &ColReader{s: s, last: -2, cache: s.ScanCache()}
	if len(cols) < len(s.h.schema.Columns) {
		r.want = make([]bool, len(s.h.schema.Columns))
		for _, c := range cols {
			if c >= 0 && c < len(r.want) {
				r.want[c] = true
			}
		}
	}
	return r
}

// Page returns a view of page i holding at least the reader's columns:
// a page held decoded (in the heap, the snapshot's last decoded pages or
// the page file's cache) as is, a cold one decoded for this reader alone.
// A projected page is not added to the snapshot's slots or the page
// cache: a full-table scan's pages would only push out the pages point
// reads keep there (the cache's 2Q policy keeps scans out for the same
// reason). A page that cannot be read back is a *PageError.
func (r *ColReader) Page(i int) (PageView, error) {
	s := r.s
	p := s.v.pages.at(i)
	if !p.isCold() {
		return PageView{p: p, s: &s.h.schema}, nil
	}
	if r.want == nil {
		return s.PageErr(i)
	}
	if q := s.slotted(p); q != nil {
		return PageView{p: q, s: &s.h.schema}, nil
	}
	if q := p.ck.cached(); q != nil {
		return PageView{p: q, s: &s.h.schema}, nil
	}
	// Through the statement's cache of its scans' pages (scancache.go),
	// before the page file (no read-ahead for pages it holds): only the
	// columns it does not hold yet are decoded.
	want := r.want
	var e scanEntry
	if r.cache != nil {
		if e, want = r.cache.get(p, r.want); want == nil {
			return PageView{p: e.p, s: &s.h.schema}, nil
		}
	}
	if p.disk != nil {
		pf := p.disk.pf
		if q := pf.cache.get(p.disk.seq); q != nil {
			return PageView{p: q, s: &s.h.schema}, nil
		}
		if i != r.last+1 || i%readAheadPages == 0 {
			var refs []*diskRef
			for j := i + 1; j < min(i+readAheadPages, s.v.pages.len()); j++ {
				if d := s.v.pages.at(j).disk; d != nil {
					refs = append(refs, d)
				}
			}
			pf.readAhead(refs)
		}
		r.last = i
	}
	q, err := s.h.thaw(p, 0, p.stats, want, r)
	if err != nil {
		return PageView{}, err
	}
	if r.cache != nil {
		q = r.cache.put(p, e, q, want)
	}
	return PageView{p: q, s: &s.h.schema}, nil
}

// slotted is cold page p decoded, when it is among the snapshot's last
// decoded pages.
func (s *Snapshot) slotted(p *page) *page {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.thawed == nil {
		return nil
	}
	for i := range s.thawed {
		if t := &s.thawed[i]; t.cold == p {
			return t.p
		}
	}
	return nil
}

// newPageCols is newPage with segments for the columns want marks only
// (nil: every column).
func newPageCols(id uint32, s *Schema, capSlots int, epoch uint64, want []bool) *page {
	w := words(capSlots)
	p := &page{
		id: id, epoch: epoch,
		live: make([]uint64, w), dead: make([]uint64, w),
		cols: make([]colSeg, len(s.Columns)), stats: make([]ColStats, len(s.Columns)),
	}
	for c, col := range s.Columns {
		if want == nil || want[c] {
			p.cols[c] = newSeg(col.Kind, capSlots, epoch)
		}
	}
	return p
}

// skipColumn steps r over one column's image (see encodePage) without
// decoding it: its null bitmap, fixed-width values, scales, exception
// bitmap and varlen lengths and bytes.
func skipColumn(r *reader, k Kind, hasExc bool, n int) {
	nw := words(n)
	r.take(8 * nw)
	if k != KindText {
		r.take(8 * n)
		if k == KindNumeric {
			r.take(n)
		}
	}
	if hasExc {
		r.take(8 * nw)
	}
	if k == KindText || hasExc {
		total := 0
		for range n {
			total += int(r.u32())
		}
		if total > len(r.b) && r.err == nil {
			r.err = fmt.Errorf("%w: truncated varlen", ErrCorruptPage)
		}
		r.take(total)
	}
}
