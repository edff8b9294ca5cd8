package heap

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/zeebo/xxh3"
)

// A mapped restore (Config.RestoreCold, issue 24 item 2: a restart maps
// the checkpoint's pages instead of decoding a snapshot of them).
//
// The eager restore decodes every page of the checkpoint before the heap
// is served: at 10M rows of the scale benchmark's table ≈ 10k pages,
// 8.7 s of the 9.2 s restart at load 12 (bench/results/scale-2026-12-06-s17.md).
// The mapped restore reads the pages' summaries from the manifest
// (version 2) and makes every page cold from its stored image as is: the
// image is checked (decompressed, its checksum, page id and slot count
// compared: a damaged checkpoint is still refused at the restore, and the
// HEAD rebuilt from the trees) but no value is decoded, and the image is
// written to the page file unchanged (or kept compressed in memory when
// the heap has none). The heap is then served at once, cold, and Warm,
// called by the owner beside the reads and the applies, decodes pages in
// page order until the decoded ones reach the memory bound — the state the
// eager restore would have left — publishing each step as a version with
// the same content and LSN (readers see no difference but speed).

// openCold is OpenGen's mapped restore of manifest m (h is the new heap).
func (h *Heap) openCold(m *manifest, store PageStore, table string) (*Heap, error) {
	v := &version{lsn: m.lsn, stats: make([]ColStats, len(h.schema.Columns))}
	r := &reader{b: m.sums}
	hdrs := make([]*page, len(m.gens))
	for id := range m.gens {
		p, err := r.readSummary(uint32(id), len(h.schema.Columns), h.cfg.PageRows)
		if err != nil {
			return nil, fmt.Errorf("heap restore of %q: %w", table, err)
		}
		hdrs[id] = p
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("heap restore of %q: %w: %d bytes after the page summaries", table, errManifest, len(r.b))
	}
	keys := make([]PageKey, len(m.gens))
	for id, g := range m.gens {
		keys[id] = PageKey{Gen: g, ID: uint32(id)}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	errs := make([]error, restoreWindow)
	for w := 0; w < len(keys); w += restoreWindow {
		win := keys[w:min(len(keys), w+restoreWindow)]
		blobs, err := getPages(store, table, win)
		if err != nil {
			return nil, fmt.Errorf("heap restore of %q: %w", table, err)
		}
		var wg sync.WaitGroup
		next := atomic.Int64{}
		for range min(workers, len(win)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var raw []byte
				for i := int(next.Add(1) - 1); i < len(win); i = int(next.Add(1) - 1) {
					raw, errs[i] = h.checkImage(raw, blobs[i], hdrs[w+i])
					if errs[i] != nil {
						errs[i] = fmt.Errorf("heap restore of %q: page %d: %w", table, win[i].ID, errs[i])
					}
				}
			}()
		}
		wg.Wait()
		for i := range win {
			if errs[i] != nil {
				return nil, errs[i]
			}
			p := h.freezeImage(hdrs[w+i], blobs[i])
			hdrs[w+i] = nil
			v.pages.push(p, 0)
			v.rows += int64(p.nlive)
			for c, col := range h.schema.Columns {
				v.stats[c].merge(col.Kind, &p.stats[c])
			}
		}
		if h.cfg.Restored != nil {
			h.cfg.Restored.Add(int64(len(win)))
		}
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
// every page), and publishes them as one version of the same content and
// LSN. It reports done once no further page will be decoded: every page
// after the last call is decoded, or the next one would pass the bound.
// It is the second half of a mapped restore (Config.RestoreCold), called
// by the heap's owner beside Apply (the heap's writer lock serialises
// them; a page a batch wrote meanwhile is decoded already). A cold page
// that cannot be read back is a *PageError, with nothing published.
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
	var w *version
	for ; h.warmNext < cur.pages.len() && warmed < maxPages; h.warmNext++ {
		p := cur.pages.at(h.warmNext)
		if !p.isCold() {
			continue
		}
		if w == nil {
			w = h.begin(cur, cur.lsn)
		}
		q, err := h.thawStats(p, w.epoch, nil)
		if err != nil {
			return 0, false, fmt.Errorf("heap warm: %w", err)
		}
		if sz := q.memBytes(); decoded+sz > limit {
			done = true
			break
		} else {
			decoded += sz
		}
		w.pages.set(h.warmNext, q, w.epoch)
		warmed++
	}
	if warmed > 0 {
		h.epoch = w.epoch
		h.cur.Store(w)
		if bounded {
			h.charged(decoded)
		}
	}
	return warmed, done || h.warmNext >= cur.pages.len(), nil
}
