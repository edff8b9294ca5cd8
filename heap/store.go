package heap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/zeebo/xxh3"
)

// PageStore keeps checkpoints: page images and, per table, one manifest
// per checkpoint generation. The heap writes a checkpoint as the images of
// the pages changed since the previous checkpoint, under fresh keys (the
// checkpoint's generation), in batches of bounded size (PutImages; see
// CheckpointBatchBytes), and then the manifest that names, per page, the
// key of its current image (PutManifest). Images no manifest names are
// unreachable: a crash between two batches, or before the manifest,
// leaves only such garbage. Nothing of an older generation is removed by
// a checkpoint: the previous manifest and every image it names stay
// readable until the owner calls Retain with a newer generation, once the
// record that names that generation is durable (head's position record).
// A crash anywhere in between therefore leaves the previous checkpoint
// whole (issue 21 item 11: a kill in a long checkpoint cost a full rebuild
// of the HEAD), and the next Retain removes what the crash left.
type PageStore interface {
	// PutImages writes page images of table for a checkpoint in
	// progress. They need not be durable before PutManifest returns.
	PutImages(table string, images []PageImage) error
	// PutManifest writes table's manifest of generation gen, which
	// reflects lsn, after every image it names was put, and makes the
	// images and the manifest durable. The manifest write is atomic.
	PutManifest(table string, gen, lsn uint64, manifest []byte) error
	// GetManifest returns table's manifest of generation gen, or of the
	// newest generation when gen is 0; ErrNoCheckpoint when there is none.
	GetManifest(table string, gen uint64) ([]byte, error)
	// GetPage returns the image stored under key.
	GetPage(table string, key PageKey) ([]byte, error)
	// Retain removes every manifest of table other than generation gen's
	// and every image that manifest does not name (the superseded ones,
	// and any a crash left behind). The manifest of gen must exist.
	Retain(table string, gen uint64) error
}

// PageKey names one stored page image: the page and the checkpoint
// generation that wrote it.
type PageKey struct {
	Gen uint64
	ID  uint32
}

// PageImage is one compressed page image.
type PageImage struct {
	Key  PageKey
	Data []byte
}

// ErrNoCheckpoint: the store holds no checkpoint of the table.
var ErrNoCheckpoint = errors.New("no heap checkpoint")

// MemStore is an in-memory PageStore, for tests.
type MemStore struct {
	mu        sync.Mutex
	manifests map[string]map[uint64][]byte
	pages     map[string]map[PageKey][]byte
	// Puts counts PutManifest calls (checkpoints), Batches PutImages
	// calls, Images the images written; MaxBatchBytes is the most image
	// bytes one PutImages call was given.
	Puts, Batches, Images int
	MaxBatchBytes         int
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{manifests: map[string]map[uint64][]byte{}, pages: map[string]map[PageKey][]byte{}}
}

// PutImages implements PageStore.
func (m *MemStore) PutImages(table string, images []PageImage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.pages[table]
	if t == nil {
		t = map[PageKey][]byte{}
		m.pages[table] = t
	}
	n := 0
	for _, p := range images {
		t[p.Key] = slices.Clone(p.Data)
		n += len(p.Data)
	}
	m.Batches++
	m.Images += len(images)
	m.MaxBatchBytes = max(m.MaxBatchBytes, n)
	return nil
}

// PutManifest implements PageStore.
func (m *MemStore) PutManifest(table string, gen, _ uint64, manifest []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.manifests[table] == nil {
		m.manifests[table] = map[uint64][]byte{}
	}
	m.manifests[table][gen] = slices.Clone(manifest)
	m.Puts++
	return nil
}

// GetManifest implements PageStore.
func (m *MemStore) GetManifest(table string, gen uint64) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if gen == 0 {
		for g := range m.manifests[table] {
			gen = max(gen, g)
		}
	}
	b, ok := m.manifests[table][gen]
	if !ok {
		return nil, ErrNoCheckpoint
	}
	return b, nil
}

// GetPage implements PageStore.
func (m *MemStore) GetPage(table string, key PageKey) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.pages[table][key]
	if !ok {
		return nil, fmt.Errorf("heap page %d gen %d of %q: not in store", key.ID, key.Gen, table)
	}
	return b, nil
}

// Retain implements PageStore.
func (m *MemStore) Retain(table string, gen uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mb, ok := m.manifests[table][gen]
	if !ok {
		return fmt.Errorf("heap pages of %q: retain generation %d: %w", table, gen, ErrNoCheckpoint)
	}
	keys, err := ManifestKeys(mb)
	if err != nil {
		return fmt.Errorf("heap pages of %q: retain generation %d: %w", table, gen, err)
	}
	keep := make(map[PageKey]bool, len(keys))
	for _, k := range keys {
		keep[k] = true
	}
	for k := range m.pages[table] {
		if !keep[k] {
			delete(m.pages[table], k)
		}
	}
	m.manifests[table] = map[uint64][]byte{gen: mb}
	return nil
}

// Len returns how many page images the store holds for table (summary
// segments not counted).
func (m *MemStore) Len(table string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k := range m.pages[table] {
		if !IsSummaryKey(k) {
			n++
		}
	}
	return n
}

// Manifests returns how many manifests the store holds for table.
func (m *MemStore) Manifests(table string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.manifests[table])
}

// Manifest:
//
//	"HMF1" gen:u64 lsn:u64 rows:u64 pageRows:u32 pageBytes:u32 codec:u8
//	ncols:u16 kinds:ncols×u8 npages:u32 gens:npages×u64
//
// Version 2 ("HMF2", written since issue 24's restart work) is followed by
// every page's summary in page order (summary.go) and the xxh3-64 of
// those summaries: what a restore with
// Config.RestoreCold needs to make the pages cold without decoding them.
const manifestMagic = "HMF1"

const manifestMagic2 = "HMF2"

// Version 3 ("HMF3", sumseg.go) is followed, instead of the summaries, by
// the table of the summary segments stored beside the page images.
const manifestMagic3 = "HMF3"

type manifest struct {
	gen, lsn, rows      uint64
	pageRows, pageBytes uint32
	codec               Codec
	kinds               []Kind
	gens                []uint64 // per page: the generation holding its image
	// sums is the page summaries' section (version 2; nil: version 1;
	// version 3: loaded from its segments by loadSummaries).
	sums []byte
	// segs is the summary segments' table (version 3; nil: before), of
	// segPages pages each.
	segs     []sumSeg
	segPages int
}

func (m *manifest) encode() []byte {
	b := []byte(manifestMagic)
	switch {
	case m.segs != nil:
		b = []byte(manifestMagic3)
	case m.sums != nil:
		b = []byte(manifestMagic2)
	}
	b = binary.LittleEndian.AppendUint64(b, m.gen)
	b = binary.LittleEndian.AppendUint64(b, m.lsn)
	b = binary.LittleEndian.AppendUint64(b, m.rows)
	b = binary.LittleEndian.AppendUint32(b, m.pageRows)
	b = binary.LittleEndian.AppendUint32(b, m.pageBytes)
	b = append(b, byte(m.codec))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(m.kinds)))
	for _, k := range m.kinds {
		b = append(b, byte(k))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.gens)))
	for _, g := range m.gens {
		b = binary.LittleEndian.AppendUint64(b, g)
	}
	switch {
	case m.segs != nil:
		b = appendSegTable(b, m.segPages, m.segs)
	case m.sums != nil:
		b = append(b, m.sums...)
		b = binary.LittleEndian.AppendUint64(b, xxh3.Hash(m.sums))
	}
	return b
}

var errManifest = errors.New("corrupt heap manifest")

func decodeManifest(b []byte) (*manifest, error) {
	r := &reader{b: b}
	magic := string(r.take(4))
	if magic != manifestMagic && magic != manifestMagic2 && magic != manifestMagic3 {
		return nil, fmt.Errorf("%w: bad magic", errManifest)
	}
	m := &manifest{gen: r.u64(), lsn: r.u64(), rows: r.u64(), pageRows: r.u32(), pageBytes: r.u32()}
	if cb := r.take(1); cb != nil {
		m.codec = Codec(cb[0])
	}
	nc := r.take(2)
	if r.err != nil {
		return nil, fmt.Errorf("%w: %v", errManifest, r.err)
	}
	for _, k := range r.take(int(binary.LittleEndian.Uint16(nc))) {
		m.kinds = append(m.kinds, Kind(k))
	}
	np := int(r.u32())
	if r.err == nil && np > len(r.b)/8 {
		return nil, fmt.Errorf("%w: %d pages in %d bytes", errManifest, np, len(r.b))
	}
	m.gens = make([]uint64, 0, np)
	for range np {
		m.gens = append(m.gens, r.u64())
	}
	if magic == manifestMagic2 && r.err == nil {
		if len(r.b) < 8 {
			return nil, fmt.Errorf("%w: no page summaries", errManifest)
		}
		m.sums = r.b[:len(r.b)-8]
		if xxh3.Hash(m.sums) != binary.LittleEndian.Uint64(r.b[len(r.b)-8:]) {
			return nil, fmt.Errorf("%w: page summaries: checksum mismatch", errManifest)
		}
		r.b = nil
	}
	if magic == manifestMagic3 && r.err == nil {
		segs, per, err := readSegTable(r.b, np)
		if err != nil {
			return nil, err
		}
		m.segs, m.segPages = segs, per
		r.b = nil
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("%w: bad length", errManifest)
	}
	return m, nil
}

// CheckpointStats says what a checkpoint wrote.
type CheckpointStats struct {
	Gen      uint64 // the checkpoint's generation
	LSN      uint64
	Pages    int // images written (the dirty pages)
	Bytes    int // their compressed size
	RawBytes int // uncompressed size of those encoded now (not of cold pages, already compressed)
	// SummaryBytes is the bytes of page summary segments written (only
	// the segments that changed since the previous checkpoint).
	SummaryBytes int
	TotalPages   int
	// Batches is the number of PutImages calls; PeakBatchBytes the most
	// image bytes one of them held (at most the batch ceiling plus one
	// image, or one summary segment).
	Batches        int
	PeakBatchBytes int
}

// CheckpointBatchBytes is the default ceiling on the compressed page
// images a checkpoint holds at once: it writes them to the store in
// batches of about this many bytes (one image more at most), so what a
// checkpoint holds does not grow with the table. Before, every image was
// held until one write: after a 10M-row copy (every page dirty) 552 MB
// at once, ≈ 5.5 GB at 100M (bench/results/scale-2026-12-05.md). 32 MiB
// is a few hundred pages: the per-batch cost (a Badger WriteBatch flush)
// stays small against the encoding.
const CheckpointBatchBytes = 32 << 20

// Checkpoint writes the pages changed since the previous checkpoint to
// store as the next generation, then removes what it supersedes (Retain):
// for a heap checkpointed on its own. An owner that names the generation
// in a record of its own (head) uses CheckpointGen (or CutCheckpoint) and
// calls Retain only once that record is durable.
func (h *Heap) Checkpoint(store PageStore, table string) (CheckpointStats, error) {
	h.ckptMu.Lock()
	gen := h.gen + 1
	h.ckptMu.Unlock()
	st, err := h.CheckpointGen(store, table, gen)
	if err != nil {
		return st, err
	}
	if err := store.Retain(table, st.Gen); err != nil {
		return st, fmt.Errorf("heap checkpoint of %q at LSN %d: %w", table, st.LSN, err)
	}
	return st, nil
}

// CheckpointGen writes the pages changed since the previous checkpoint to
// store as generation gen (CutCheckpoint, then Cut.Write with the default
// batch ceiling).
func (h *Heap) CheckpointGen(store PageStore, table string, gen uint64) (CheckpointStats, error) {
	return h.CutCheckpoint().Write(store, table, gen, WriteOptions{})
}

// Cut is the state of a heap a checkpoint writes: one published version
// and the pages changed since the previous checkpoint. Versions are
// immutable, so the heap applies batches while a cut is written; the
// pages they change are the next checkpoint's. A cut holds the heap's
// checkpoint slot (one checkpoint at a time) until Write or Abort.
type Cut struct {
	h     *Heap
	v     *version
	dirty map[uint32]struct{}
	done  bool
}

// CutCheckpoint takes the heap's current version and its dirty set. It
// waits for a checkpoint in progress (its Write or Abort), and holds the
// writer's lock only to take the two: the caller that needs the cut to
// match state of its own (head: the index of the same batch) takes it
// while no batch is applied.
func (h *Heap) CutCheckpoint() *Cut {
	h.ckptMu.Lock()
	h.mu.Lock()
	c := &Cut{h: h, v: h.cur.Load(), dirty: h.dirty}
	h.dirty = map[uint32]struct{}{}
	h.mu.Unlock()
	return c
}

// LSN is the LSN of the version the cut holds.
func (c *Cut) LSN() uint64 { return c.v.lsn }

// Rows is the number of live rows of the version the cut holds.
func (c *Cut) Rows() int64 { return c.v.rows }

// Abort drops a cut that will not be written: its dirty pages go back to
// the heap's dirty set (the next checkpoint writes them) and the
// checkpoint slot is released. Abort after Write does nothing.
func (c *Cut) Abort() {
	if c.done {
		return
	}
	c.done = true
	c.h.restoreDirty(c.dirty)
	c.h.ckptMu.Unlock()
}

// WriteOptions tune Cut.Write.
type WriteOptions struct {
	// BatchBytes is the ceiling on the image bytes held before they are
	// written (0: CheckpointBatchBytes).
	BatchBytes int
	// BeforeBatch, when set, is called before each PutImages with its
	// number (0, 1, …); an error stops the checkpoint there (the test
	// hook of a kill between batches).
	BeforeBatch func(batch int) error
	// Pace, when set, is called after each page image is encoded: a
	// background checkpoint's pacer blocks in it to leave the processor
	// to the reads beside it (head's ckptPacer).
	Pace func()
}

// Write writes the cut to store as generation gen (above every
// generation this heap wrote or was opened from): the images of its dirty
// pages, encoded (a cold page's stored image as is) and put in batches of
// at most opts.BatchBytes, then its manifest, with the LSN of the cut's
// version. Nothing older is removed: the previous generation stays whole
// until the caller's Retain. If it fails the dirty set is restored and
// the next checkpoint writes those pages again. The heap's writer is not
// held: batches are applied meanwhile.
func (c *Cut) Write(store PageStore, table string, gen uint64, opts WriteOptions) (st CheckpointStats, err error) {
	if c.done {
		return st, fmt.Errorf("heap checkpoint of %q: the cut was already written or aborted", table)
	}
	h, v := c.h, c.v
	defer func() {
		if err != nil {
			err = fmt.Errorf("heap checkpoint of %q at LSN %d: %w", table, v.lsn, err)
			c.Abort()
		}
	}()
	if gen <= h.gen {
		return st, fmt.Errorf("generation %d is not above the last one, %d", gen, h.gen)
	}
	limit := opts.BatchBytes
	if limit <= 0 {
		limit = CheckpointBatchBytes
	}
	// One batch is written while the next fills (ckptwriter.go): each
	// gets half the ceiling.
	limit = max(limit/2, 1)
	iw := newImageWriter(store, table, opts.BeforeBatch)
	defer iw.close()
	ids := make([]uint32, 0, len(c.dirty))
	for id := range c.dirty {
		if int(id) < v.pages.len() {
			ids = append(ids, id)
		}
	}
	gens := make([]uint64, v.pages.len())
	copy(gens, h.pageGen)
	for id, g := range gens {
		if g == 0 {
			// A page never written and not dirty cannot exist: every page
			// is dirty when created. Guard anyway: write it now.
			if _, ok := c.dirty[uint32(id)]; !ok {
				ids = append(ids, uint32(id))
			}
		}
	}
	slices.Sort(ids)
	st = CheckpointStats{Gen: gen, LSN: v.lsn, TotalPages: v.pages.len()}
	var batch []PageImage
	held := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := iw.put(batch); err != nil {
			return err
		}
		st.Batches++
		st.PeakBatchBytes = max(st.PeakBatchBytes, held)
		// The writer owns the batch now; the next is a new one.
		batch, held = make([]PageImage, 0, len(batch)), 0
		return nil
	}
	var raw, enc []byte
	for _, id := range ids {
		var data []byte
		if p := v.pages.at(int(id)); p.isCold() {
			if data, err = h.coldImage(p); err != nil { // already the compressed image
				return st, err
			}
		} else {
			raw = encodePage(raw[:0], p, &h.schema)
			enc = h.z.compress(enc[:0], raw, h.codec)
			data = slices.Clone(enc) // exact size: the batch holds it until written
			st.RawBytes += len(raw)
		}
		batch = append(batch, PageImage{Key: PageKey{Gen: gen, ID: id}, Data: data})
		held += len(data)
		if opts.Pace != nil {
			opts.Pace()
		}
		gens[id] = gen
		st.Pages++
		st.Bytes += len(data)
		if held >= limit {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	m := manifest{gen: gen, lsn: v.lsn, rows: uint64(v.rows), pageRows: uint32(h.cfg.PageRows), pageBytes: uint32(h.cfg.PageBytes), codec: h.codec, gens: gens}
	// The summary segments that changed go out with the last images
	// (sumseg.go): before the manifest, in the same bounded batches.
	m.segPages = h.cfg.SummarySegPages
	prev := h.sumSegs
	if h.sumSegPages != m.segPages {
		prev = nil // restored from a checkpoint cut otherwise
	}
	m.segs, err = summarySegments(v, m.segPages, prev, gen, func(im PageImage) error {
		// A segment (up to ≈ 500 KB) joins a batch only while both fit
		// the ceiling: a batch holds at most the ceiling plus one image,
		// or one segment alone.
		if held > 0 && held+len(im.Data) > limit {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, im)
		held += len(im.Data)
		st.SummaryBytes += len(im.Data)
		if held >= limit {
			return flush()
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	if err := flush(); err != nil {
		return st, err
	}
	// Every image is in the store before the manifest naming them.
	if err := iw.close(); err != nil {
		return st, err
	}
	for _, col := range h.schema.Columns {
		m.kinds = append(m.kinds, col.Kind)
	}
	if err := store.PutManifest(table, gen, v.lsn, m.encode()); err != nil {
		return st, err
	}
	h.gen = gen
	h.pageGen = gens
	h.sumSegs, h.sumSegPages = m.segs, m.segPages
	c.done = true
	h.ckptMu.Unlock()
	return st, nil
}

// restoreDirty puts back the dirty set of a checkpoint that failed: the
// next one writes those pages again.
func (h *Heap) restoreDirty(dirty map[uint32]struct{}) {
	h.mu.Lock()
	for id := range dirty {
		h.dirty[id] = struct{}{}
	}
	h.mu.Unlock()
}

// Open restores a heap from its newest checkpoint in store (OpenGen).
func Open(schema Schema, cfg Config, store PageStore, table string) (*Heap, error) {
	return OpenGen(schema, cfg, store, table, 0)
}

// CheckpointLSN returns the LSN of table's checkpoint of generation gen
// in store (0: the newest) from its manifest alone, without reading a
// page: a caller that expects a given LSN refuses a checkpoint before
// paying for its pages (OpenGen decodes every one).
func CheckpointLSN(store PageStore, table string, gen uint64) (uint64, error) {
	lsn, _, err := CheckpointPages(store, table, gen)
	return lsn, err
}

// CheckpointPages is CheckpointLSN plus the number of pages the
// checkpoint holds (what OpenGen restores: the total of Config.Restored).
func CheckpointPages(store PageStore, table string, gen uint64) (lsn uint64, pages int, err error) {
	mb, err := store.GetManifest(table, gen)
	if err != nil {
		return 0, 0, err
	}
	m, err := decodeManifest(mb)
	if err != nil {
		return 0, 0, fmt.Errorf("heap checkpoint of %q: %w", table, err)
	}
	if gen != 0 && m.gen != gen {
		return 0, 0, fmt.Errorf("heap checkpoint of %q: %w: the manifest of generation %d says %d", table, errManifest, gen, m.gen)
	}
	return m.lsn, len(m.gens), nil
}

// OpenGen restores a heap from its checkpoint of generation gen in store
// (0: the newest). The schema must be the one checkpointed (else the
// caller rebuilds from the tree); cfg's page sizes are taken from the
// checkpoint. It returns ErrNoCheckpoint when there is none. The heap
// reflects the manifest's LSN: the caller catches up from there.
func OpenGen(schema Schema, cfg Config, store PageStore, table string, gen uint64) (*Heap, error) {
	mb, err := store.GetManifest(table, gen)
	if err != nil {
		return nil, err
	}
	m, err := decodeManifest(mb)
	if err != nil {
		return nil, fmt.Errorf("heap restore of %q: %w", table, err)
	}
	if gen != 0 && m.gen != gen {
		return nil, fmt.Errorf("heap restore of %q: %w: the manifest of generation %d says %d", table, errManifest, gen, m.gen)
	}
	if len(m.kinds) != len(schema.Columns) {
		return nil, fmt.Errorf("heap restore of %q: checkpoint has %d columns, schema %d", table, len(m.kinds), len(schema.Columns))
	}
	for i, k := range m.kinds {
		if schema.Columns[i].Kind != k {
			return nil, fmt.Errorf("heap restore of %q: column %d is %v in the checkpoint, %v in the schema", table, i, k, schema.Columns[i].Kind)
		}
	}
	cfg.PageRows, cfg.PageBytes, cfg.Codec = int(m.pageRows), int(m.pageBytes), m.codec
	h, err := New(schema, cfg)
	if err != nil {
		return nil, fmt.Errorf("heap restore of %q: %w", table, err)
	}
	h.sumSegs, h.sumSegPages = m.segs, m.segPages
	if cfg.RestoreCold && m.segs != nil {
		if err := loadSummaries(m, store, table); err != nil {
			return nil, fmt.Errorf("heap restore of %q: %w", table, err)
		}
	}
	if cfg.RestoreCold && m.sums != nil {
		return h.openCold(m, store, table)
	}
	v := &version{lsn: m.lsn, stats: make([]ColStats, len(schema.Columns))}
	// Pages past the memory bound are restored cold, as apply would have
	// left them: a restart must not decode the whole table at once. The
	// stored images are read a window at a time (one store read each, not
	// one per page) and decoded in parallel; then, in page order, each is
	// kept decoded or made cold from its stored image (no second encode).
	bounded := h.cfg.Memory > 0 || h.charge != nil
	var decoded int64
	keys := make([]PageKey, len(m.gens))
	for id, g := range m.gens {
		keys[id] = PageKey{Gen: g, ID: uint32(id)}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	pages := make([]*page, restoreWindow)
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
					pages[i], errs[i] = nil, nil
					var err error
					if raw, err = h.z.decompress(raw, blobs[i]); err != nil {
						errs[i] = fmt.Errorf("heap restore of %q: page %d: %w", table, win[i].ID, err)
						continue
					}
					p, err := decodePage(raw, &h.schema, h.cfg.PageRows, 0)
					if err != nil {
						errs[i] = fmt.Errorf("heap restore of %q: page %d: %w", table, win[i].ID, err)
						continue
					}
					if p.id != win[i].ID {
						errs[i] = fmt.Errorf("heap restore of %q: page %d holds page %d", table, win[i].ID, p.id)
						continue
					}
					pages[i] = p
				}
			}()
		}
		wg.Wait()
		for i := range win {
			if errs[i] != nil {
				return nil, errs[i]
			}
			p := pages[i]
			pages[i] = nil
			if bounded {
				if decoded+p.memBytes() > h.allowed() {
					p = h.freezeImage(p, blobs[i])
				} else {
					decoded += p.memBytes()
				}
			}
			v.pages.push(p, 0)
			v.rows += int64(p.nlive)
			for c, col := range h.schema.Columns {
				v.stats[c].merge(col.Kind, &p.stats[c])
			}
		}
		if cfg.Restored != nil {
			cfg.Restored.Add(int64(len(win)))
		}
	}
	if v.rows != int64(m.rows) {
		return nil, fmt.Errorf("heap restore of %q: %d rows in pages, manifest says %d", table, v.rows, m.rows)
	}
	h.cur.Store(v)
	h.charged(decoded)
	h.gen, h.pageGen = m.gen, m.gens
	h.rebuildFSM(v)
	return h, nil
}

// restoreWindow is how many pages a restore reads and decodes at once:
// what it holds decoded beyond the heap's bound while deciding which go
// cold.
const restoreWindow = 256

// PageBatchGetter is a PageStore that reads many images at once (one
// read transaction instead of one per page).
type PageBatchGetter interface {
	// GetPages returns the images stored under keys, in that order.
	GetPages(table string, keys []PageKey) ([][]byte, error)
}

// getPages reads the images under keys: in one call when store can.
func getPages(store PageStore, table string, keys []PageKey) ([][]byte, error) {
	if g, ok := store.(PageBatchGetter); ok {
		return g.GetPages(table, keys)
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		b, err := store.GetPage(table, k)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// ManifestKeys returns the page image keys a manifest names: what a store
// must keep (see the Badger store's Prune).
func ManifestKeys(manifest []byte) ([]PageKey, error) {
	m, err := decodeManifest(manifest)
	if err != nil {
		return nil, err
	}
	keys := make([]PageKey, len(m.gens), len(m.gens)+len(m.segs))
	for id, g := range m.gens {
		keys[id] = PageKey{Gen: g, ID: uint32(id)}
	}
	for i, s := range m.segs {
		keys = append(keys, sumSegKey(s, i))
	}
	return keys, nil
}
