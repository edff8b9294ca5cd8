package heap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/zeebo/xxh3"
)

// A mapped restore (Config.RestoreCold, issue 24 item 2: a restart maps
// the checkpoint's pages instead of decoding a snapshot of them).
//
// The eager restore reads and decodes every page of the checkpoint before
// the heap is served: at 10M rows of the scale benchmark's table ≈ 10k
// pages, 8.7 s of the 9.2 s restart at load 12
// (bench/results/scale-2026-12-06-s17.md). The mapped restore reads only
// the manifest (version 2: every page's summaries, under their own
// checksum) and makes every page cold with its image left where it is, in
// the checkpoint (ckptRef): readers read and decode it on demand as they
// do a page file's. Warm, called by the owner beside the reads and the
// applies, then decodes pages in page order until the decoded ones reach
// the memory bound — the state the eager restore left — and moves the
// rest to the page file as they are; it checks every image (decompressed,
// checksum, page id, slot and column counts against the summary), so a
// damaged checkpoint still shows, as Warm's *PageError, before any read
// of that page could (reads check it too). Each step is published as a
// version of the same content and LSN: readers see no difference but
// speed.

// ckptRef is a restored page's image in its checkpoint: read from the
// store on demand. Every live ckptRef is counted in the heap's pins
// (CheckpointPins) until the garbage collector finds it unreachable: the
// images they name must outlive every version and snapshot reaching them,
// so the owner does not remove a superseded generation (PageStore.Retain)
// while any is left.
type ckptRef struct {
	store PageStore
	table string
	key   PageKey
	// pf, when the heap has a page file, is the file whose page cache
	// keeps this page decoded once a reader read it (under seq, a record
	// number of that file no record carries), so that reads of a restored
	// page before the warmer reaches it decode its image once, not once
	// per snapshot; Warm drops the entry when it replaces the page.
	pf  *PageFile
	seq uint64
}

// cached is the page's decoded form from the page cache, if any.
func (r *ckptRef) cached() *page {
	if r == nil || r.pf == nil {
		return nil
	}
	return r.pf.cache.get(r.seq)
}

// dropCached drops the page's decoded form from the page cache.
func (r *ckptRef) dropCached() {
	if r != nil && r.pf != nil {
		r.pf.cache.drop(r.seq)
	}
}

// read returns the stored compressed image (checked when decoded).
func (r *ckptRef) read() ([]byte, error) {
	b, err := r.store.GetPage(r.table, r.key)
	if err != nil {
		return nil, &PageError{Page: r.key.ID, Off: -1, Path: "checkpoint", Err: err}
	}
	return b, nil
}

// CheckpointPins is how many pages, in any version or snapshot still
// reachable, read their image from the checkpoint the heap was restored
// from (a mapped restore, before Warm moved them). While it is above 0 the
// owner must keep that checkpoint's images: Retain of a later generation
// may remove an image such a page still reads. It falls to 0 once Warm is
// done and the garbage collector has dropped the older versions.
func (h *Heap) CheckpointPins() int64 { return h.pins.Load() }

// openCold is OpenGen's mapped restore of manifest m (h is the new heap):
// no image is read; every page is cold, read from the checkpoint.
func (h *Heap) openCold(m *manifest, store PageStore, table string) (*Heap, error) {
	v := &version{lsn: m.lsn, stats: make([]ColStats, len(h.schema.Columns))}
	r := &reader{b: m.sums}
	for id, g := range m.gens {
		p, err := r.readSummary(uint32(id), len(h.schema.Columns), h.cfg.PageRows)
		if err != nil {
			return nil, fmt.Errorf("heap restore of %q: %w", table, err)
		}
		p.ck = &ckptRef{store: store, table: table, key: PageKey{Gen: g, ID: uint32(id)}}
		if pf := h.cfg.Pages; pf != nil {
			p.ck.pf, p.ck.seq = pf, pf.seq.Add(1)
		}
		h.pins.Add(1)
		runtime.AddCleanup(p.ck, func(pins *atomic.Int64) { pins.Add(-1) }, h.pins)
		v.pages.push(p, 0)
		v.rows += int64(p.nlive)
		for c, col := range h.schema.Columns {
			v.stats[c].merge(col.Kind, &p.stats[c])
		}
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("heap restore of %q: %w: %d bytes after the page summaries", table, errManifest, len(r.b))
	}
	if h.cfg.Restored != nil {
		h.cfg.Restored.Add(int64(len(m.gens)))
	}
	if v.rows != int64(m.rows) {
		return nil, fmt.Errorf("heap restore of %q: %d rows in pages, manifest says %d", table, v.rows, m.rows)
	}
	h.cur.Store(v)
	h.charged(0)
	h.gen, h.pageGen = m.gen, m.gens
	h.rebuildFSM(v)
	return h, nil
}

// checkImage checks a stored compressed image against the summary of the
// page it should hold, without decoding its values: it decompresses (into
// raw's memory, returned for reuse), verifies the checksum, and compares
// the page id, slot count and column count.
func (h *Heap) checkImage(raw, blob []byte, hdr *page) ([]byte, error) {
	raw, err := h.z.decompress(raw, blob)
	if err != nil {
		return raw, err
	}
	if len(raw) < len(pageMagic)+10+8 {
		return raw, fmt.Errorf("%w: %d bytes", ErrCorruptPage, len(raw))
	}
	body, sum := raw[:len(raw)-8], binary.LittleEndian.Uint64(raw[len(raw)-8:])
	switch {
	case xxh3.Hash(body) != sum:
		return raw, fmt.Errorf("%w: checksum mismatch", ErrCorruptPage)
	case string(body[:4]) != pageMagic:
		return raw, fmt.Errorf("%w: bad magic", ErrCorruptPage)
	case binary.LittleEndian.Uint32(body[4:]) != hdr.id:
		return raw, fmt.Errorf("%w: image holds page %d", ErrCorruptPage, binary.LittleEndian.Uint32(body[4:]))
	case int(binary.LittleEndian.Uint32(body[8:])) != hdr.n:
		return raw, fmt.Errorf("%w: image holds %d slots, its summary %d", ErrCorruptPage, binary.LittleEndian.Uint32(body[8:]), hdr.n)
	case int(binary.LittleEndian.Uint16(body[12:])) != len(h.schema.Columns):
		return raw, fmt.Errorf("%w: image holds %d columns, the schema %d", ErrCorruptPage, binary.LittleEndian.Uint16(body[12:]), len(h.schema.Columns))
	}
	return raw, nil
}

// Warm decodes up to maxPages cold pages, in page order from where the
// previous call stopped, while the decoded pages stay within what the
// heap is allowed (Config.Memory or its share of Config.Budget; no bound:
// every page); past the bound, the pages still read from the checkpoint
// are moved to the page file (or kept compressed in memory) as they are,
// checked but not decoded. A step is published as one version of the
// same content and LSN. It reports done once every page was looked at.
// It is the second half of a mapped restore (Config.RestoreCold), called
// by the heap's owner beside Apply (the heap's writer lock serialises
// them; a page a batch wrote meanwhile is decoded already). An image that
// does not check is a *PageError, with nothing of the step published:
// the checkpoint is damaged, and the owner rebuilds from elsewhere.
func (h *Heap) Warm(maxPages int) (warmed int, done bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur := h.cur.Load()
	limit := int64(math.MaxInt64)
	bounded := h.cfg.Memory > 0 || h.charge != nil
	if bounded {
		limit = h.allowed()
	}
	epoch := h.epoch + 1
	var decoded int64
	if bounded {
		for i := range cur.pages.len() {
			if p := cur.pages.at(i); !p.isCold() {
				decoded += decodedBytes(p, epoch)
			}
		}
	}
	full := h.warmFull
	var w *version
	var raw []byte
	for ; h.warmNext < cur.pages.len() && warmed < maxPages; h.warmNext++ {
		p := cur.pages.at(h.warmNext)
		if !p.isCold() || (full && p.ck == nil) {
			continue
		}
		blob, err := h.coldImage(p)
		if err == nil {
			raw, err = h.checkImage(raw, blob, p)
		}
		if err != nil {
			var pe *PageError
			if !errors.As(err, &pe) {
				err = &PageError{Page: p.id, Off: -1, Path: "checkpoint", Err: err}
			}
			return 0, false, fmt.Errorf("heap warm: %w", err)
		}
		if w == nil {
			w = h.begin(cur, cur.lsn)
		}
		// The page is replaced below, decoded or moved as it is: a reader's
		// decode of it in the page cache is not needed any more.
		p.ck.dropCached()
		if !full {
			q, err := decodePage(raw, &h.schema, h.cfg.PageRows, w.epoch)
			if err != nil {
				return 0, false, fmt.Errorf("heap warm: %w", &PageError{Page: p.id, Off: -1, Path: "checkpoint", Err: err})
			}
			if sz := q.memBytes(); decoded+sz <= limit {
				decoded += sz
				w.pages.set(h.warmNext, q, w.epoch)
				warmed++
				continue
			}
			full = true
		}
		if p.ck != nil {
			if h.cfg.Pages == nil {
				blob = slices.Clone(blob) // the store's, kept as the cold image
			}
			w.pages.set(h.warmNext, h.freezeImage(p, blob), w.epoch)
			warmed++
		}
	}
	h.warmFull = full
	if warmed > 0 {
		h.epoch = w.epoch
		h.cur.Store(w)
		if bounded {
			h.charged(decoded)
		}
	}
	return warmed, h.warmNext >= cur.pages.len(), nil
}
