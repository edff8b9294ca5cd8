package heap

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sidecar-dev/sidecar/internal/prefault"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// Config sizes the pages of one heap. The zero value takes every default.
type Config struct {
	// PageRows is the slot capacity of a page (default 1024, at most 65536).
	PageRows int
	// PageBytes is the varlen budget of a page: the bytes of text values
	// and exception texts it holds, garbage included (default 64 KiB). An
	// empty page takes a row of any size.
	PageBytes int
	// FillFactor is the percentage of PageBytes an insert may fill
	// (default 85): the rest is headroom for updates that grow a row, so
	// that they stay in place (PostgreSQL's fillfactor, for the same HOT
	// reason).
	FillFactor int
	// DeadPercent: a page touched by a batch whose dead slots exceed this
	// percentage of its slots, or whose varlen garbage exceeds it of
	// PageBytes, is compacted (page-local, row ids kept) before the batch is
	// published, as lazy VACUUM would (default 20; negative: never
	// automatically, only through Vacuum).
	DeadPercent int
	// Codec compresses page images: checkpoints and cold pages (default
	// CodecS2).
	Codec Codec
	// Memory (heap.memory) bounds the bytes of decoded pages. Past it, the
	// pages written longest ago are kept compressed ("cold": their
	// summaries, zone maps and live bitmaps stay decoded) and decoded on
	// demand: by a reader for the page it asks for, without keeping the
	// result, and by the writer when it changes the page (which makes it
	// hot again). 0: no bound. Pages touched by the batch being published
	// are never made cold, so one batch larger than the bound exceeds it
	// until the next.
	Memory int64
	// Budget, when set, is decoded-page memory shared with other heaps
	// (heap.memory for the whole HEAD, not per table): a heap publishing a
	// batch keeps its decoded pages within what the others leave of it,
	// making its own pages cold. It replaces Memory.
	Budget *PageBudget
	// Pages, when set, is where cold pages go: written to this page file
	// and read back by pread through its page cache, instead of kept
	// compressed in memory (pagefile.go). Shared by heaps like Budget.
	Pages *PageFile
	// Restored, when set, counts the pages a restore (OpenGen) has read
	// and decoded so far: the daemon reports it while the in-memory HEAD
	// loads (its total is CheckpointPages).
	Restored *atomic.Int64
	// RestoreCold makes a restore (OpenGen) of a checkpoint whose manifest
	// carries the pages' summaries map it instead of decoding it: every
	// page is cold, its image read from the checkpoint on demand, its
	// summaries from the manifest, and Warm decodes pages afterwards (up
	// to the memory bound; the rest moved to the page file) while the heap
	// is served (restorecold.go). Without it, or for an older manifest,
	// every page is read and decoded by the restore.
	RestoreCold bool
	// SummarySegPages is how many pages' summaries one summary segment of
	// a checkpoint holds (sumseg.go; default 1024): a checkpoint rewrites
	// only the segments whose pages' summaries changed.
	SummarySegPages int
}

func (c Config) withDefaults() (Config, error) {
	if c.PageRows == 0 {
		c.PageRows = 1024
	}
	if c.SummarySegPages <= 0 {
		c.SummarySegPages = summarySegPages
	}
	if c.PageBytes == 0 {
		c.PageBytes = 64 << 10
	}
	if c.FillFactor == 0 {
		c.FillFactor = 85
	}
	if c.DeadPercent == 0 {
		c.DeadPercent = 20
	}
	if c.Codec == 0 {
		c.Codec = CodecS2
	}
	switch {
	case c.PageRows < 1 || c.PageRows > 1<<slotBits:
		return c, fmt.Errorf("heap config: page rows %d not in [1, %d]", c.PageRows, 1<<slotBits)
	case c.PageBytes < 1 || c.PageBytes > 1<<30:
		return c, fmt.Errorf("heap config: page bytes %d not in [1, 1 GiB]", c.PageBytes)
	case c.FillFactor < 10 || c.FillFactor > 100:
		return c, fmt.Errorf("heap config: fillfactor %d not in [10, 100]", c.FillFactor)
	case c.Memory < 0:
		return c, fmt.Errorf("heap config: memory %d below 0", c.Memory)
	case c.Codec > CodecNone:
		return c, fmt.Errorf("heap config: unknown codec %d", c.Codec)
	case c.DeadPercent > 100:
		return c, fmt.Errorf("heap config: dead percent %d above 100", c.DeadPercent)
	}
	return c, nil
}

// OpKind is the kind of one change.
type OpKind uint8

const (
	// OpInsert adds Row; Apply returns its new row id.
	OpInsert OpKind = iota + 1
	// OpUpdate replaces the row at ID with Row; Apply returns the row id it
	// has afterwards (ID, unless the row had to move to another page).
	OpUpdate
	// OpDelete removes the row at ID (soft: the slot stays dead until a
	// compaction frees it); Apply returns ID.
	OpDelete
)

func (k OpKind) String() string {
	switch k {
	case OpInsert:
		return "insert"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Op is one change of a batch. Row is a canonical vrow1 row of the heap's
// schema (insert and update); the heap copies what it keeps.
type Op struct {
	Kind OpKind
	ID   RowID
	Row  []byte
}

// Batch is what one Apply publishes at once: typically one committed
// transaction, or a commit group. LSN is the position it reflects.
type Batch struct {
	LSN uint64
	Ops []Op
}

// ErrRowID is wrapped by errors about a row id that names no live row.
var ErrRowID = errors.New("no live row at row id")

// Heap is one table's HEAD as PAX pages. One writer (Apply, Vacuum,
// Compact, Checkpoint are serialised by the heap) and any number of
// readers, each of which sees exactly one published version through a
// Snapshot: a batch is published whole, never in part.
type Heap struct {
	schema Schema
	cfg    Config
	fill   int // FillFactor of PageBytes

	cur  atomic.Pointer[version]
	open atomic.Int64 // snapshots not yet released
	// thaws counts cold pages decoded (Thaws).
	thaws atomic.Int64

	mu      sync.Mutex // the writer
	epoch   uint64
	fsm     []uint32            // pages believed to have room, a stack
	inFSM   []bool              // by page id
	dirty   map[uint32]struct{} // pages changed since the last checkpoint
	cells   []cell
	changed []bool // per column, during an update
	tmp     *big.Int
	// inserts is how many inserts of the batch being applied are still to
	// come: a page's text segment is sized for them when it is first
	// written (reserveVarlen), not grown by doubling one row at a time.
	inserts int
	// frozenImg and frozenEnc are the writer's scratch for freeze: a
	// page's image and its compressed form before the cold page gets an
	// exact-size copy (a bounded heap's build freezes a page every
	// 1,024 rows: two buffers grown from nothing each time were 4 % of a
	// 10M-row copy's CPU).
	frozenImg, frozenEnc []byte
	frozenRec            []byte // the page file record written last (coldForm)
	frozenBounds         []int  // the image's sections (colblob.go)

	ckptMu      sync.Mutex // one checkpoint at a time; owns gen and pageGen
	gen         uint64     // generation of the last checkpoint
	pageGen     []uint64   // per page: generation of its stored image (0: none)
	sumSegs     []sumSeg   // the summary segments the last checkpoint named (sumseg.go)
	sumSegPages int        // … of this many pages each
	codec       Codec
	z           *compressor
	charge      *budgetCharge // this heap's share of cfg.Budget (nil without one)
	owner       uint64        // this heap's id in cfg.Pages
	// midFrozen counts pages of a batch in progress made cold (tests).
	midFrozen int
	// boundWalked counts the pages the bound's checks (evict,
	// evictMidBatch) looked at one by one (tests: it must not grow with
	// the table per check).
	boundWalked int64
	// warmNext is the page Warm looks at next; warmFull: Warm reached
	// the bound and only moves checkpoint pages now (writer only).
	warmNext int
	warmFull bool
	// pins counts the live pages reading their image from the checkpoint
	// (CheckpointPins). Apart from the heap: the cleanups that decrement
	// it hold it, and must not hold the heap (whose versions reach the
	// pages: a heap dropped before Warm would never be collected).
	pins *atomic.Int64
}

// version is one published state. Immutable once published.
type version struct {
	epoch   uint64
	lsn     uint64
	pages   pageTable
	stats   []ColStats
	rows    int64
	touched []uint32 // while being built: pages this batch copied
}

// New returns an empty heap for schema.
func New(schema Schema, cfg Config) (*Heap, error) {
	if err := schema.validate(); err != nil {
		return nil, err
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := Schema{Columns: append([]Column(nil), schema.Columns...)}
	h := &Heap{
		schema: s, cfg: cfg, fill: cfg.PageBytes * cfg.FillFactor / 100,
		dirty: map[uint32]struct{}{},
		cells: make([]cell, len(s.Columns)), changed: make([]bool, len(s.Columns)), tmp: new(big.Int),
		codec: cfg.Codec, z: newCompressor(), pins: new(atomic.Int64),
	}
	if cfg.Budget != nil {
		h.chargeTo(cfg.Budget)
	}
	if cfg.Pages != nil {
		h.owner = cfg.Pages.newOwner()
	}
	h.cur.Store(&version{stats: make([]ColStats, len(s.Columns))})
	return h, nil
}

// Close releases the heap's compression coders. The heap must not be
// used afterwards.
func (h *Heap) Close() { h.z.close() }

// Schema returns the heap's schema (a copy).
func (h *Heap) Schema() Schema {
	return Schema{Columns: append([]Column(nil), h.schema.Columns...)}
}

// Config returns the heap's configuration with defaults filled in.
func (h *Heap) Config() Config { return h.cfg }

// begin starts a new version from cur.
func (h *Heap) begin(cur *version, lsn uint64) *version {
	w := &version{
		epoch: h.epoch + 1, lsn: lsn, rows: cur.rows,
		pages: cur.pages.clone(),
		stats: make([]ColStats, len(cur.stats)),
	}
	for i := range cur.stats {
		w.stats[i] = cur.stats[i].clone()
	}
	return w
}

// mut returns page pid of w, copied (or decoded, if cold) for w's batch
// if it was not yet.
func (h *Heap) mut(w *version, pid uint32) *page {
	p := w.pages.at(int(pid))
	if p.epoch != w.epoch || p.isCold() {
		if p.isCold() {
			p = h.mustThaw(p, w.epoch)
		} else {
			p = p.clone(w.epoch)
		}
		w.pages.set(int(pid), p, w.epoch)
		w.touched = append(w.touched, pid)
	}
	return p
}

// readable returns page pid of w decoded, for reading.
func (h *Heap) readable(w *version, pid uint32) *page {
	if p := w.pages.at(int(pid)); !p.isCold() {
		return p
	}
	return h.mut(w, pid)
}

// Apply applies a batch and publishes it as one new version. It returns,
// per op, the row id the row has afterwards (see OpKind). On error nothing
// of the batch is published; a cold page that cannot be read back is a
// *PageError.
func (h *Heap) Apply(b Batch) ([]RowID, error) {
	return h.ApplyInto(b, nil)
}

// ApplyInto is Apply returning the row ids in ids' array when it has room
// (a caller applying batch after batch reuses one slice instead of fresh
// memory per batch).
func (h *Heap) ApplyInto(b Batch, ids []RowID) (_ []RowID, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur := h.cur.Load()
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*PageError)
			if !ok {
				panic(r)
			}
			h.rollback(cur)
			err = fmt.Errorf("heap apply: %w", pe)
		}
	}()
	if b.LSN < cur.lsn {
		return nil, fmt.Errorf("heap apply: LSN %d is behind the heap's %d", b.LSN, cur.lsn)
	}
	w := h.begin(cur, b.LSN)
	ids = slices.Grow(ids[:0], len(b.Ops))[:len(b.Ops)]
	h.inserts = 0
	for i := range b.Ops {
		if b.Ops[i].Kind == OpInsert {
			h.inserts++
		}
	}
	bounded := h.cfg.Memory > 0 || h.cfg.Budget != nil
	for i, op := range b.Ops {
		if bounded && i > 0 && i%midBatchEvictOps == 0 {
			h.evictMidBatch(w)
		}
		id, err := h.applyOp(w, op)
		if err != nil {
			h.rollback(cur)
			return nil, fmt.Errorf("heap apply: op %d (%v): %w", i, op.Kind, err)
		}
		ids[i] = id
	}
	h.publish(w, true)
	return ids, nil
}

func (h *Heap) applyOp(w *version, op Op) (RowID, error) {
	switch op.Kind {
	case OpInsert:
		h.inserts--
		if err := h.parse(op.Row); err != nil {
			return 0, err
		}
		return h.insert(w), nil
	case OpUpdate:
		if err := h.checkLive(w, op.ID); err != nil {
			return 0, err
		}
		if err := h.parse(op.Row); err != nil {
			return 0, err
		}
		return h.update(w, op.ID), nil
	case OpDelete:
		if err := h.checkLive(w, op.ID); err != nil {
			return 0, err
		}
		h.delete(w, op.ID)
		return op.ID, nil
	}
	return 0, fmt.Errorf("unknown op kind %d", op.Kind)
}

func (h *Heap) checkLive(w *version, id RowID) error {
	pid, slot := id.Page(), id.Slot()
	if int(pid) >= w.pages.len() || slot >= w.pages.at(int(pid)).n || !bit(w.pages.at(int(pid)).live, slot) {
		return fmt.Errorf("%w %d (page %d slot %d)", ErrRowID, id, pid, slot)
	}
	return nil
}

// parse splits and parses row into h.cells.
func (h *Heap) parse(row []byte) error {
	it := rowenc.NewIter(row)
	n := 0
	for it.Next() {
		c := it.Column()
		if c >= len(h.cells) {
			return fmt.Errorf("row has more than the schema's %d columns", len(h.cells))
		}
		x := &h.cells[c]
		*x = cell{null: it.Null(), text: it.Value()}
		if !x.null && h.schema.Columns[c].Kind != KindText {
			v, err := parseTyped(h.schema.Columns[c].Kind, x.text)
			if err != nil {
				return fmt.Errorf("column %d (%s): %w", c, h.schema.Columns[c].Name, err)
			}
			x.v = v
		}
		n++
	}
	if err := it.Err(); err != nil {
		return err
	}
	if n != len(h.cells) {
		return fmt.Errorf("row has %d columns, the schema %d", n, len(h.cells))
	}
	return nil
}

// rowVarlen is the varlen bytes h.cells needs.
func (h *Heap) rowVarlen() int {
	n := 0
	for c := range h.cells {
		if h.cells[c].needsVarlen(h.schema.Columns[c].Kind) {
			n += len(h.cells[c].text)
		}
	}
	return n
}

// fits reports whether p can take an insert needing need varlen bytes.
func (h *Heap) fits(p *page, need int) bool {
	if p.n >= h.cfg.PageRows && p.n-p.nlive-p.ndead == 0 {
		return false
	}
	return p.n == 0 || p.varUsed+need <= h.fill
}

// insert writes h.cells into a free slot and returns its row id.
func (h *Heap) insert(w *version) RowID {
	need := h.rowVarlen()
	var p *page
	for len(h.fsm) > 0 {
		pid := h.fsm[len(h.fsm)-1]
		if h.fits(w.pages.at(int(pid)), need) {
			p = h.mut(w, pid)
			break
		}
		h.fsm = h.fsm[:len(h.fsm)-1]
		h.inFSM[pid] = false
	}
	if p == nil {
		pid := uint32(w.pages.len())
		p = newPage(pid, &h.schema, h.cfg.PageRows, w.epoch)
		w.pages.push(p, w.epoch)
		w.touched = append(w.touched, pid)
		h.pushFSM(pid)
	}
	slot := p.freeSlot(h.cfg.PageRows)
	for c, col := range h.schema.Columns {
		x := &h.cells[c]
		g := p.mutableAt(c, w.epoch, slot)
		if x.needsVarlen(col.Kind) && cap(g.data)-len(g.data) < len(x.text) {
			h.reserveVarlen(g, len(x.text), slot, need, p.varUsed)
		}
		p.write(col.Kind, g, slot, x, h.cfg.PageRows)
		p.stats[c].addValue(col.Kind, x.null, &x.v, x.text, h.tmp)
		w.stats[c].addValue(col.Kind, x.null, &x.v, x.text, h.tmp)
	}
	setBit(p.live, slot)
	p.nlive++
	if slot >= p.n {
		p.n = slot + 1
	}
	w.rows++
	return MakeRowID(p.id, slot)
}

// reserveVarlen grows g's text data, which has no room for a value of n
// bytes, to hold this row's value and as many like it as the batch's
// remaining inserts could put in the page: its free slots, and the rows
// of need varlen bytes (the whole row's) its fill budget leaves room for
// past used. It replaces append's doubling from a few bytes: a copy fills
// every page in one batch. The old bytes are copied; versions already
// published keep the old array (data is append-only: colSeg).
func (h *Heap) reserveVarlen(g *colSeg, n, slot, need, used int) {
	rows := min(h.inserts, h.cfg.PageRows-slot-1) + 1
	if need > 0 {
		rows = min(rows, max(h.fill-used, 0)/need+1)
	}
	grown := 2 * cap(g.data) // append's growth, roughly
	if cap(g.data) >= 4<<10 {
		grown = cap(g.data) + cap(g.data)/4
	}
	want := max(len(g.data)+n*rows, grown)
	data := make([]byte, len(g.data), want)
	// Fresh memory the page's rows will fill: mapped in one call, not a
	// fault a page (internal/prefault).
	prefault.Write(data)
	copy(data, g.data)
	g.data = data
}

func (h *Heap) pushFSM(pid uint32) {
	for int(pid) >= len(h.inFSM) {
		h.inFSM = append(h.inFSM, false)
	}
	if !h.inFSM[pid] {
		h.inFSM[pid] = true
		h.fsm = append(h.fsm, pid)
	}
}

// update replaces the row at id with h.cells: in place when the changed
// values fit the page's budget (after a page-local compaction if garbage
// is in the way), else as a delete and an insert elsewhere.
func (h *Heap) update(w *version, id RowID) RowID {
	pid, slot := id.Page(), id.Slot()
	p := h.readable(w, pid)
	extra, changed := 0, false
	for c, col := range h.schema.Columns {
		x := &h.cells[c]
		h.changed[c] = !p.same(col.Kind, c, slot, x)
		if !h.changed[c] {
			continue
		}
		changed = true
		if x.needsVarlen(col.Kind) {
			extra += len(x.text)
		}
	}
	if !changed {
		return id
	}
	if extra > 0 && p.varUsed+extra > h.cfg.PageBytes {
		if p.varUsed-p.garbage+extra <= h.cfg.PageBytes {
			p = h.mut(w, pid)
			p.vacuum(&h.schema, w.epoch)
		} else {
			// Move: the unchanged columns come from the old row.
			var old cell
			for c, col := range h.schema.Columns {
				if !h.changed[c] {
					p.load(col.Kind, c, slot, &old)
					h.cells[c] = old
				}
			}
			// The loaded texts point into the old page's data, which
			// delete never rewrites.
			h.delete(w, id)
			return h.insert(w)
		}
	}
	p = h.mut(w, pid)
	var old cell
	for c, col := range h.schema.Columns {
		x := &h.cells[c]
		if !h.changed[c] {
			continue
		}
		p.load(col.Kind, c, slot, &old)
		p.stats[c].removeValue(col.Kind, old.null, &old.v, old.text, h.tmp)
		w.stats[c].removeValue(col.Kind, old.null, &old.v, old.text, h.tmp)
		p.garbage += p.varBytes(col.Kind, c, slot)
		p.write(col.Kind, p.mutable(c, w.epoch), slot, x, h.cfg.PageRows)
		p.stats[c].addValue(col.Kind, x.null, &x.v, x.text, h.tmp)
		w.stats[c].addValue(col.Kind, x.null, &x.v, x.text, h.tmp)
	}
	return id
}

// delete soft-deletes the row at id.
func (h *Heap) delete(w *version, id RowID) {
	pid, slot := id.Page(), id.Slot()
	p := h.mut(w, pid)
	var old cell
	for c, col := range h.schema.Columns {
		p.load(col.Kind, c, slot, &old)
		p.stats[c].removeValue(col.Kind, old.null, &old.v, old.text, h.tmp)
		w.stats[c].removeValue(col.Kind, old.null, &old.v, old.text, h.tmp)
		p.garbage += p.varBytes(col.Kind, c, slot)
	}
	clrBit(p.live, slot)
	setBit(p.dead, slot)
	p.nlive--
	p.ndead++
	w.rows--
}

// needsVacuum reports whether p is past the automatic compaction
// threshold.
func (h *Heap) needsVacuum(p *page) bool {
	d := h.cfg.DeadPercent
	if d < 0 {
		return false
	}
	return p.ndead*100 > d*p.n || p.garbage*100 > d*h.cfg.PageBytes
}

// publish finishes w (automatic compaction, exact min/max, free-space
// map, dirty set) and makes it the current version.
// settle finishes page pid (p, decoded) of batch w: compaction past
// DeadPercent when auto, its min/max, the free-space map, the checkpoint's
// dirty set.
func (h *Heap) settle(w *version, pid uint32, p *page, auto bool) {
	if auto && h.needsVacuum(p) {
		p.vacuum(&h.schema, w.epoch)
	}
	p.refreshMinMax(&h.schema)
	if h.fits(p, 0) {
		h.pushFSM(pid)
	}
	h.dirty[pid] = struct{}{}
}

func (h *Heap) publish(w *version, auto bool) {
	stale := false
	for _, pid := range w.touched {
		h.settle(w, pid, w.pages.at(int(pid)), auto)
	}
	for c := range w.stats {
		if w.stats[c].stale {
			stale = true
		}
	}
	if stale {
		h.refreshTableMinMax(w)
	}
	w.touched = nil
	if h.cfg.Memory > 0 || h.cfg.Budget != nil {
		h.evict(w)
	}
	h.epoch = w.epoch
	h.cur.Store(w)
}

// refreshTableMinMax recomputes the table's min/max from the pages'.
func (h *Heap) refreshTableMinMax(w *version) {
	for c, col := range h.schema.Columns {
		st := &w.stats[c]
		if !st.stale {
			continue
		}
		var m ColStats
		for i := range w.pages.len() {
			ps := w.pages.at(i).stats[c]
			ps.NumSum = nil // min/max only
			ps.Sum = Int128{}
			m.merge(col.Kind, &ps)
		}
		st.MinI, st.MaxI, st.MinF, st.MaxF = m.MinI, m.MaxI, m.MinF, m.MaxF
		st.MinB, st.MaxB, st.MinN, st.MaxN = m.MinB, m.MaxB, m.MinN, m.MaxN
		st.nMin, st.nMax = m.nMin, m.nMax
		st.stale = false
	}
}

// rollback forgets a failed batch: the free-space map is rebuilt from the
// published version (the work version's pages are dropped).
func (h *Heap) rollback(cur *version) {
	h.rebuildFSM(cur)
}

func (h *Heap) rebuildFSM(v *version) {
	h.fsm = h.fsm[:0]
	h.inFSM = make([]bool, v.pages.len())
	for i := range v.pages.len() {
		if h.fits(v.pages.at(i), 0) {
			h.pushFSM(uint32(i))
		}
	}
}

// VacuumStats says what a Vacuum reclaimed.
type VacuumStats struct {
	Pages      int // pages compacted
	SlotsFreed int // dead slots made free
	Bytes      int // varlen garbage bytes dropped
}

// Vacuum is incremental compaction of the whole table: every page with
// dead slots or varlen garbage is compacted page-locally (dead slots
// freed, data rewritten); row ids of live rows do not change. Published as
// one version (same LSN).
func (h *Heap) Vacuum() VacuumStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur := h.cur.Load()
	w := h.begin(cur, cur.lsn)
	var st VacuumStats
	for pid := range cur.pages.len() {
		p := cur.pages.at(pid)
		if p.ndead == 0 && p.garbage == 0 {
			continue
		}
		st.Pages++
		st.SlotsFreed += p.ndead
		st.Bytes += p.garbage
		h.mut(w, uint32(pid)).vacuum(&h.schema, w.epoch)
	}
	h.publish(w, false)
	return st
}

// Move is one row renumbered by a full compaction.
type Move struct{ Old, New RowID }

// Compact is full compaction: the live rows are rewritten densely, in row
// id order, into new pages filled to the fillfactor (VACUUM FULL). It
// returns the rows whose id changed, so the index can be repointed.
// Published as one version (same LSN).
func (h *Heap) Compact() []Move {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur := h.cur.Load()
	w := h.begin(cur, cur.lsn)
	w.pages = pageTable{}
	var moves []Move
	var dst *page
	var x cell
	for i := range cur.pages.len() {
		src := cur.pages.at(i)
		if src.isCold() {
			src = h.mustThaw(src, 0)
		}
		for s := 0; s < src.n; s++ {
			if !bit(src.live, s) {
				continue
			}
			need := 0
			for c, col := range h.schema.Columns {
				need += src.varBytes(col.Kind, c, s)
			}
			if dst == nil || dst.n >= h.cfg.PageRows || (dst.n > 0 && dst.varUsed+need > h.fill) {
				dst = newPage(uint32(w.pages.len()), &h.schema, h.cfg.PageRows, w.epoch)
				w.pages.push(dst, w.epoch)
				w.touched = append(w.touched, dst.id)
			}
			d := dst.n
			for c, col := range h.schema.Columns {
				src.load(col.Kind, c, s, &x)
				dst.write(col.Kind, &dst.cols[c], d, &x, h.cfg.PageRows)
				dst.stats[c].addValue(col.Kind, x.null, &x.v, x.text, h.tmp)
			}
			setBit(dst.live, d)
			dst.nlive++
			dst.n++
			if old, nw := MakeRowID(src.id, s), MakeRowID(dst.id, d); old != nw {
				moves = append(moves, Move{Old: old, New: nw})
			}
		}
	}
	for pid := w.pages.len(); pid < cur.pages.len(); pid++ {
		delete(h.dirty, uint32(pid)) // gone: the next checkpoint drops its image
	}
	h.rebuildFSM(&version{})
	h.publish(w, false)
	return moves
}
