package heap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// PageStore keeps checkpoints: page images and, per table, one manifest
// per checkpoint generation. The heap writes a checkpoint as one PutPages
// call: the images of the pages changed since the previous checkpoint
// under fresh keys (the checkpoint's generation), then the manifest that
// names, per page, the key of its current image. A store must make the
// manifest visible only after the images and the manifest write itself
// atomic. Nothing of an older generation is removed by PutPages: the
// previous manifest and every image it names stay readable until the
// owner calls Retain with a newer generation, once the record that names
// that generation is durable (head's position record). A crash anywhere in
// between therefore leaves the previous checkpoint whole (issue 21 item
// 11: a kill in a long checkpoint cost a full rebuild of the HEAD).
type PageStore interface {
	// PutPages writes one checkpoint of table, which reflects lsn.
	PutPages(table string, lsn uint64, b PageBatch) error
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

// PageBatch is one checkpoint.
type PageBatch struct {
	Gen      uint64      // the checkpoint's generation
	Pages    []PageImage // written first
	Manifest []byte      // then this, atomically, as generation Gen's
}

// ErrNoCheckpoint: the store holds no checkpoint of the table.
var ErrNoCheckpoint = errors.New("no heap checkpoint")

// MemStore is an in-memory PageStore, for tests.
type MemStore struct {
	mu        sync.Mutex
	manifests map[string]map[uint64][]byte
	pages     map[string]map[PageKey][]byte
	// Puts counts PutPages calls; Images the images written.
	Puts, Images int
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{manifests: map[string]map[uint64][]byte{}, pages: map[string]map[PageKey][]byte{}}
}

// PutPages implements PageStore.
func (m *MemStore) PutPages(table string, _ uint64, b PageBatch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.pages[table]
	if t == nil {
		t = map[PageKey][]byte{}
		m.pages[table] = t
	}
	for _, p := range b.Pages {
		t[p.Key] = slices.Clone(p.Data)
	}
	if m.manifests[table] == nil {
		m.manifests[table] = map[uint64][]byte{}
	}
	m.manifests[table][b.Gen] = slices.Clone(b.Manifest)
	m.Puts++
	m.Images += len(b.Pages)
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

// Len returns how many images the store holds for table.
func (m *MemStore) Len(table string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pages[table])
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
const manifestMagic = "HMF1"

type manifest struct {
	gen, lsn, rows      uint64
	pageRows, pageBytes uint32
	codec               Codec
	kinds               []Kind
	gens                []uint64 // per page: the generation holding its image
}

func (m *manifest) encode() []byte {
	b := []byte(manifestMagic)
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
	return b
}

var errManifest = errors.New("corrupt heap manifest")

func decodeManifest(b []byte) (*manifest, error) {
	r := &reader{b: b}
	if string(r.take(4)) != manifestMagic {
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
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("%w: bad length", errManifest)
	}
	return m, nil
}

// CheckpointStats says what a checkpoint wrote.
type CheckpointStats struct {
	Gen        uint64 // the checkpoint's generation
	LSN        uint64
	Pages      int // images written (the dirty pages)
	Bytes      int // their compressed size
	RawBytes   int // uncompressed size of those encoded now (not of cold pages, already compressed)
	TotalPages int
}

// Checkpoint writes the pages changed since the previous checkpoint to
// store as the next generation, then removes what it supersedes (Retain):
// for a heap checkpointed on its own. An owner that names the generation
// in a record of its own (head) uses CheckpointGen and calls Retain only
// once that record is durable.
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
// store, as one batch of generation gen (above every generation this heap
// wrote or was opened from) with the LSN of the current version. Nothing
// older is removed: the previous generation stays whole until the caller's
// Retain. The writer is held only to take the version and the dirty set;
// encoding and the write run beside apply. If the write fails the dirty
// set is restored, and the next checkpoint writes those pages again.
func (h *Heap) CheckpointGen(store PageStore, table string, gen uint64) (CheckpointStats, error) {
	h.ckptMu.Lock()
	defer h.ckptMu.Unlock()
	if gen <= h.gen {
		return CheckpointStats{}, fmt.Errorf("heap checkpoint of %q: generation %d is not above the last one, %d", table, gen, h.gen)
	}
	h.mu.Lock()
	v := h.cur.Load()
	dirty := h.dirty
	h.dirty = map[uint32]struct{}{}
	h.mu.Unlock()

	ids := make([]uint32, 0, len(dirty))
	for id := range dirty {
		if int(id) < v.pages.len() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	gens := make([]uint64, v.pages.len())
	copy(gens, h.pageGen)
	b := PageBatch{Gen: gen}
	st := CheckpointStats{Gen: gen, LSN: v.lsn, TotalPages: v.pages.len()}
	var raw []byte
	for _, id := range ids {
		var data []byte
		if p := v.pages.at(int(id)); p.isCold() {
			var err error
			if data, err = h.coldImage(p); err != nil { // already the compressed image
				h.restoreDirty(dirty)
				return st, fmt.Errorf("heap checkpoint of %q at LSN %d: %w", table, v.lsn, err)
			}
		} else {
			raw = encodePage(raw[:0], p, &h.schema)
			data = h.z.compress(nil, raw, h.codec)
			st.RawBytes += len(raw)
		}
		b.Pages = append(b.Pages, PageImage{Key: PageKey{Gen: gen, ID: id}, Data: data})
		gens[id] = gen
		st.Pages++
		st.Bytes += len(data)
	}
	for id, g := range gens {
		if g == 0 {
			// A page never written and not dirty cannot exist: every page
			// is dirty when created. Guard anyway: write it now.
			p := v.pages.at(id)
			if p.isCold() {
				var err error
				if p, err = h.thawStats(p, 0, nil); err != nil {
					h.restoreDirty(dirty)
					return st, fmt.Errorf("heap checkpoint of %q at LSN %d: %w", table, v.lsn, err)
				}
			}
			raw = encodePage(raw[:0], p, &h.schema)
			b.Pages = append(b.Pages, PageImage{Key: PageKey{Gen: gen, ID: uint32(id)}, Data: h.z.compress(nil, raw, h.codec)})
			gens[id] = gen
		}
	}
	m := manifest{gen: gen, lsn: v.lsn, rows: uint64(v.rows), pageRows: uint32(h.cfg.PageRows), pageBytes: uint32(h.cfg.PageBytes), codec: h.codec, gens: gens}
	for _, c := range h.schema.Columns {
		m.kinds = append(m.kinds, c.Kind)
	}
	b.Manifest = m.encode()
	if err := store.PutPages(table, v.lsn, b); err != nil {
		h.restoreDirty(dirty)
		return st, fmt.Errorf("heap checkpoint of %q at LSN %d: %w", table, v.lsn, err)
	}
	h.gen = gen
	h.pageGen = gens
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
	keys := make([]PageKey, len(m.gens))
	for id, g := range m.gens {
		keys[id] = PageKey{Gen: g, ID: uint32(id)}
	}
	return keys, nil
}
