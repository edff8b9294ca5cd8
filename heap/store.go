package heap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// PageStore keeps checkpoints: page images and one manifest per table.
// The heap writes a checkpoint as one PutPages call: the images of the
// pages changed since the previous checkpoint under fresh keys (the
// checkpoint's generation), then the manifest that names, per page, the
// key of its current image, then the removal of the images the manifest
// no longer names. A store must make the manifest visible only after the
// images (so that a crash leaves the previous checkpoint whole) and the
// manifest write itself atomic; Drop may be lost in a crash (garbage the
// next Drop does not name: see the Badger store's sweep).
type PageStore interface {
	// PutPages writes one checkpoint of table, which reflects lsn.
	PutPages(table string, lsn uint64, b PageBatch) error
	// GetManifest returns table's manifest, or ErrNoCheckpoint.
	GetManifest(table string) ([]byte, error)
	// GetPage returns the image stored under key.
	GetPage(table string, key PageKey) ([]byte, error)
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
	Pages    []PageImage // written first
	Manifest []byte      // then this, atomically
	Drop     []PageKey   // then these are removed
}

// ErrNoCheckpoint: the store holds no checkpoint of the table.
var ErrNoCheckpoint = errors.New("no heap checkpoint")

// MemStore is an in-memory PageStore, for tests.
type MemStore struct {
	mu        sync.Mutex
	manifests map[string][]byte
	pages     map[string]map[PageKey][]byte
	// Puts counts PutPages calls; Images the images written.
	Puts, Images int
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{manifests: map[string][]byte{}, pages: map[string]map[PageKey][]byte{}}
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
	m.manifests[table] = slices.Clone(b.Manifest)
	for _, k := range b.Drop {
		delete(t, k)
	}
	m.Puts++
	m.Images += len(b.Pages)
	return nil
}

// GetManifest implements PageStore.
func (m *MemStore) GetManifest(table string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.manifests[table]
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

// Len returns how many images the store holds for table.
func (m *MemStore) Len(table string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pages[table])
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
	LSN        uint64
	Pages      int // images written (the dirty pages)
	Bytes      int // their compressed size
	RawBytes   int // uncompressed size of those encoded now (not of cold pages, already compressed)
	TotalPages int
}

// Checkpoint writes the pages changed since the previous checkpoint to
// store, as one batch with the LSN of the current version. The writer is
// held only to take the version and the dirty set; encoding and the write
// run beside apply. If the write fails the dirty set is restored, and the
// next checkpoint writes those pages again.
func (h *Heap) Checkpoint(store PageStore, table string) (CheckpointStats, error) {
	h.ckptMu.Lock()
	defer h.ckptMu.Unlock()
	h.mu.Lock()
	v := h.cur.Load()
	dirty := h.dirty
	h.dirty = map[uint32]struct{}{}
	h.mu.Unlock()

	gen := h.gen + 1
	ids := make([]uint32, 0, len(dirty))
	for id := range dirty {
		if int(id) < v.pages.len() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	gens := make([]uint64, v.pages.len())
	copy(gens, h.pageGen)
	var b PageBatch
	st := CheckpointStats{LSN: v.lsn, TotalPages: v.pages.len()}
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
		if int(id) < len(h.pageGen) && h.pageGen[id] != 0 {
			b.Drop = append(b.Drop, PageKey{Gen: h.pageGen[id], ID: id})
		}
		gens[id] = gen
		st.Pages++
		st.Bytes += len(data)
	}
	for id := v.pages.len(); id < len(h.pageGen); id++ { // pages dropped by a full compaction
		if h.pageGen[id] != 0 {
			b.Drop = append(b.Drop, PageKey{Gen: h.pageGen[id], ID: uint32(id)})
		}
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

// Open restores a heap from its last checkpoint in store. The schema
// must be the one checkpointed (else the caller rebuilds from the tree);
// cfg's page sizes are taken from the checkpoint. It returns
// ErrNoCheckpoint when there is none. The heap reflects the manifest's
// LSN: the caller catches up from there.
func Open(schema Schema, cfg Config, store PageStore, table string) (*Heap, error) {
	mb, err := store.GetManifest(table)
	if err != nil {
		return nil, err
	}
	m, err := decodeManifest(mb)
	if err != nil {
		return nil, fmt.Errorf("heap restore of %q: %w", table, err)
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
	var raw []byte
	// Pages past the memory bound are restored cold, as apply would have
	// left them: a restart must not decode the whole table at once.
	bounded := h.cfg.Memory > 0 || h.charge != nil
	var decoded int64
	for id, g := range m.gens {
		blob, err := store.GetPage(table, PageKey{Gen: g, ID: uint32(id)})
		if err != nil {
			return nil, fmt.Errorf("heap restore of %q: %w", table, err)
		}
		if raw, err = h.z.decompress(raw, blob); err != nil {
			return nil, fmt.Errorf("heap restore of %q: page %d: %w", table, id, err)
		}
		p, err := decodePage(raw, &h.schema, h.cfg.PageRows, 0)
		if err != nil {
			return nil, fmt.Errorf("heap restore of %q: page %d: %w", table, id, err)
		}
		if p.id != uint32(id) {
			return nil, fmt.Errorf("heap restore of %q: page %d holds page %d", table, id, p.id)
		}
		if bounded {
			if decoded+p.memBytes() > h.allowed() {
				p = h.freeze(p)
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
	if v.rows != int64(m.rows) {
		return nil, fmt.Errorf("heap restore of %q: %d rows in pages, manifest says %d", table, v.rows, m.rows)
	}
	h.cur.Store(v)
	h.charged(decoded)
	h.gen, h.pageGen = m.gen, m.gens
	h.rebuildFSM(v)
	return h, nil
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
