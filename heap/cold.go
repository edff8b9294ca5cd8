package heap

import (
	"fmt"
	"slices"
)

// Cold pages: what Config.Memory does past its bound.

// memBytes estimates the bytes page p holds in memory.
func (p *page) memBytes() int64 {
	n := int64(8 * (len(p.live) + len(p.dead)))
	if p.disk != nil || p.ck != nil {
		return n + 64
	}
	if p.cold != nil {
		return n + int64(cap(p.cold))
	}
	for i := range p.cols {
		g := &p.cols[i]
		n += int64(8*(len(g.nulls)+len(g.ints)+len(g.flts)+len(g.exc)) + len(g.scale) + 4*(len(g.off)+len(g.ln)) + cap(g.data))
	}
	return n
}

// decodedBytes is memBytes for the writer of batch epoch, cached in a
// page the batch cannot mutate (an older epoch's: pages are copied on
// write). evictMidBatch sums every page of the heap every
// midBatchEvictOps ops, so without the cache a batch inserting a table
// (the initial copy's build, in batches of 16k rows) walked every
// column of every page each time: quadratic in the table's size (0.1 s
// of CPU at 1M rows, about 10 s at 10M).
func decodedBytes(p *page, epoch uint64) int64 {
	if p.epoch == epoch {
		return p.memBytes()
	}
	if p.memCache == 0 {
		p.memCache = p.memBytes() + 1
	}
	return p.memCache - 1
}

// freeze returns the cold form of p: its image compressed, with the header,
// bitmaps and summaries kept decoded. The image holds only live values, so
// the cold page has no garbage. With a page file (Config.Pages) the image
// is written there; if the write fails it is kept in memory instead (the
// file counts the failure).
// Called by the writer only (it owns the scratch buffers).
func (h *Heap) freeze(p *page) *page {
	h.frozenImg = encodePage(h.frozenImg[:0], p, &h.schema)
	if h.codec == CodecS2 {
		h.frozenEnc = compressCols(h.frozenEnc[:0], h.frozenImg, &h.schema, &h.frozenBounds) // colblob.go
	} else {
		h.frozenEnc = h.z.compress(h.frozenEnc[:0], h.frozenImg, h.codec)
	}
	return h.coldForm(p, h.frozenEnc, false)
}

// freezeImage is freeze with p's compressed image already made: a
// restore's stored image (a checkpoint stores a cold page's image as is,
// so the two forms are the same), which the cold page then owns.
func (h *Heap) freezeImage(p *page, blob []byte) *page {
	return h.coldForm(p, blob, true)
}

// coldForm returns the cold page of p whose compressed image is blob:
// written to the page file (Config.Pages), or else kept in memory — blob
// itself when the page may own it, else a copy (freeze's blob is its
// scratch buffer). With a page file the image is copied only into the
// file's record (h.frozenRec, reused): cloning it first, for a copy
// nobody kept, was a sixth of a 10M-row copy's page-freezing work.
func (h *Heap) coldForm(p *page, blob []byte, owned bool) *page {
	q := &page{
		id: p.id, epoch: p.epoch, n: p.n, live: p.live, dead: p.dead, nlive: p.nlive, ndead: p.ndead,
		stats: p.stats, varUsed: p.varUsed - p.garbage,
	}
	if h.cfg.Pages != nil {
		r, rec, err := h.cfg.Pages.write(h.owner, p.id, blob, h.frozenRec)
		h.frozenRec = rec
		if err == nil {
			q.disk = r
			return q
		}
	}
	if !owned {
		blob = slices.Clone(blob)
	}
	q.cold = slices.Clip(blob)
	return q
}

// coldImage is cold page p's compressed image: in memory, or read from
// its page file record (checked: an error is a *PageError).
func (h *Heap) coldImage(p *page) ([]byte, error) {
	if p.disk != nil {
		return p.disk.read()
	}
	if p.ck != nil {
		return p.ck.read()
	}
	return p.cold, nil
}

// mustThaw decodes a cold page into a page owned by epoch, for the writer;
// a page that cannot be read back panics with its *PageError (Apply turns
// it into its error).
func (h *Heap) mustThaw(p *page, epoch uint64) *page {
	q, err := h.thawStats(p, epoch, nil)
	if err != nil {
		panic(err)
	}
	return q
}

// thawView decodes a cold page for readers only: the page's kept summaries
// are shared instead of recomputed (a reader never writes the page).
func (h *Heap) thawView(p *page) (*page, error) { return h.thawStats(p, 0, p.stats) }

// thawStats decodes cold page p. An image that does not read back is a
// *PageError naming the page: from a page file, a damaged record; from
// memory, a bug or memory corruption. Either way no row of it is served.
func (h *Heap) thawStats(p *page, epoch uint64, stats []ColStats) (*page, error) {
	return h.thaw(p, epoch, stats, nil, nil)
}

// thaw is thawStats decoding only the columns want marks (nil: all), with
// the buffers of buf (nil: fresh ones) for the page file record and the
// decompressed image.
func (h *Heap) thaw(p *page, epoch uint64, stats []ColStats, want []bool, buf *ColReader) (*page, error) {
	h.thaws.Add(1)
	var blob []byte
	var err error
	if p.disk != nil && buf != nil {
		buf.rec, err = p.disk.readInto(buf.rec)
		blob = buf.rec[min(pfHeader, len(buf.rec)):]
	} else {
		blob, err = h.coldImage(p)
	}
	if err != nil {
		return nil, err
	}
	var dst []byte
	if buf != nil {
		dst = buf.raw
	}
	if want != nil && len(blob) > 0 && Codec(blob[0]) == codecS2Cols {
		// The columns read only (colblob.go).
		raw, q, err := h.thawCols(dst, blob, epoch, stats, want)
		if buf != nil && raw != nil {
			buf.raw = raw
		}
		if err == nil && q.id != p.id {
			err = fmt.Errorf("%w: image holds page %d", ErrCorruptPage, q.id)
		}
		if err == nil {
			return q, nil
		}
		return nil, h.pageError(p, err)
	}
	raw, err := h.z.decompress(dst, blob)
	if buf != nil && raw != nil {
		buf.raw = raw
	}
	if err == nil {
		var q *page
		if q, err = decodePageCols(raw, &h.schema, h.cfg.PageRows, epoch, stats, want); err == nil {
			if q.id != p.id {
				err = fmt.Errorf("%w: image holds page %d", ErrCorruptPage, q.id)
			} else {
				return q, nil
			}
		}
	}
	return nil, h.pageError(p, err)
}

// pageError is err about cold page p's image, as a *PageError naming
// where the image was read from.
func (h *Heap) pageError(p *page, err error) *PageError {
	pe := &PageError{Page: p.id, Off: -1, Path: "memory", Err: err}
	if p.ck != nil {
		pe.Path = "checkpoint"
	}
	if p.disk != nil {
		pe.Off, pe.Path = p.disk.off, p.disk.pf.path
		p.disk.pf.corrupt.Add(1)
	}
	return pe
}

// evict makes pages cold, longest-unwritten first, until decoded pages
// take at most 90% of what the heap is allowed (Config.Memory, or its
// share of Config.Budget), so that eviction is not paid on every batch.
// Pages of the batch being published go last.
func (h *Heap) evict(w *version) {
	decoded := h.decodedSum(w)
	limit := h.allowed()
	if decoded <= limit {
		h.charged(decoded)
		return
	}
	var cand []uint32
	for ci := range w.pages.chunks {
		if !h.mayHoldDecoded(w, ci) {
			continue
		}
		for i, p := range w.pages.chunks[ci].p[:w.pages.chunkPages(ci)] {
			h.boundWalked++
			if !p.isCold() && p.epoch != w.epoch {
				cand = append(cand, uint32(ci<<ptShift+i))
			}
		}
	}
	slices.SortFunc(cand, func(a, b uint32) int {
		ea, eb := w.pages.at(int(a)).epoch, w.pages.at(int(b)).epoch
		switch {
		case ea < eb:
			return -1
		case ea > eb:
			return 1
		}
		return int(a) - int(b)
	})
	target := max(limit, 0) / 10 * 9
	for _, pid := range cand {
		if decoded <= target {
			break
		}
		p := w.pages.at(int(pid))
		decoded -= p.memBytes()
		w.pages.set(int(pid), h.freeze(p), w.epoch)
	}
	// Still over: the batch's own pages too (publish has settled them),
	// which only the chunks it owns hold.
	for ci := range w.pages.chunks {
		if w.pages.chunks[ci].epoch != w.epoch {
			continue
		}
		for i := range w.pages.chunkPages(ci) {
			if decoded <= target {
				break
			}
			pid := ci<<ptShift + i
			h.boundWalked++
			if p := w.pages.at(pid); !p.isCold() && p.epoch == w.epoch {
				decoded -= p.memBytes()
				w.pages.set(pid, h.freeze(p), w.epoch)
			}
		}
	}
	h.charged(decoded)
}

// decodedSum is the decoded bytes of w's pages that are not cold: the
// pages of the chunks w's batch owns one by one, every other chunk's
// settled sum (computed once: such a chunk never changes). So a check of
// the bound costs the chunks' count plus the batch's own chunks' pages,
// not a walk of every page of the table: the initial copy's HEAD build
// checks every midBatchEvictOps rows, and walking every page each time
// made it quadratic in the table's size.
func (h *Heap) decodedSum(w *version) int64 {
	var n int64
	for ci, c := range w.pages.chunks {
		if c.epoch != w.epoch {
			n += c.settled(h, w.epoch)
			continue
		}
		for _, p := range c.p[:w.pages.chunkPages(ci)] {
			h.boundWalked++
			if !p.isCold() {
				n += decodedBytes(p, w.epoch)
			}
		}
	}
	return n
}

// mayHoldDecoded reports whether chunk ci of w may hold a page that is
// not cold: one w's batch owns, or one whose settled sum is not 0. The
// walks looking for pages to make cold skip the others.
func (h *Heap) mayHoldDecoded(w *version, ci int) bool {
	c := w.pages.chunks[ci]
	return c.epoch == w.epoch || c.settled(h, w.epoch) > 0
}

// midBatchEvictOps is how often (in ops) a batch checks its decoded pages
// against the bound: a transaction touching every page of a large table
// would otherwise hold them all decoded until it is published.
const midBatchEvictOps = 1024

// evictMidBatch keeps a batch in progress within the bound: when decoded
// pages pass it, pages are made cold as evict would, and then pages this
// batch already wrote (all but the last it touched, which an insert may
// still be filling), each first settled as publish would settle it. A page
// made cold is decoded again if a later op of the batch touches it. Readers
// see nothing of w until it is published.
func (h *Heap) evictMidBatch(w *version) {
	decoded := h.decodedSum(w)
	limit := h.allowed()
	if decoded <= limit {
		return
	}
	target := max(limit, 0) / 10 * 9
	for ci := range w.pages.chunks {
		if !h.mayHoldDecoded(w, ci) {
			continue
		}
		for i := range w.pages.chunkPages(ci) {
			if decoded <= target {
				return
			}
			pid := ci<<ptShift + i
			h.boundWalked++
			if p := w.pages.at(pid); !p.isCold() && p.epoch != w.epoch {
				decoded -= p.memBytes()
				w.pages.set(pid, h.freeze(p), w.epoch)
			}
		}
	}
	if len(w.touched) < 2 {
		return
	}
	last := w.touched[len(w.touched)-1]
	kept := w.touched[:0]
	for _, pid := range w.touched[:len(w.touched)-1] {
		p := w.pages.at(int(pid))
		if decoded <= target || p.isCold() || pid == last {
			if !p.isCold() && pid != last {
				kept = append(kept, pid)
			}
			continue
		}
		h.settle(w, pid, p, true)
		decoded -= p.memBytes()
		w.pages.set(int(pid), h.freeze(p), w.epoch)
		h.midFrozen++
	}
	w.touched = append(kept, last)
}

// Thaws is the number of cold pages decoded since the heap was made (by
// writers and readers): how much a budget too small for the reads costs.
func (h *Heap) Thaws() int64 { return h.thaws.Load() }

// MemoryStats describes where the heap's pages are. ColdBytes is what
// cold pages hold in memory; DiskPages of the ColdPages have their image
// in the page file (Config.Pages), not in memory.
type MemoryStats struct {
	DecodedPages, ColdPages int
	DecodedBytes, ColdBytes int64
	DiskPages               int
	// CheckpointPages of the ColdPages are still read from the checkpoint
	// they were restored from (Config.RestoreCold) until Warm has run.
	CheckpointPages int
}

// Memory reports the current version's page memory.
func (h *Heap) Memory() MemoryStats {
	var m MemoryStats
	v := h.cur.Load()
	for i := range v.pages.len() {
		p := v.pages.at(i)
		if p.disk != nil {
			m.DiskPages++
			m.ColdPages++
			m.ColdBytes += p.memBytes()
		} else if p.cold != nil || p.ck != nil {
			m.ColdPages++
			m.ColdBytes += p.memBytes()
			if p.ck != nil {
				m.CheckpointPages++
			}
		} else {
			m.DecodedPages++
			m.DecodedBytes += p.memBytes()
		}
	}
	return m
}
