package head

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/corrupt"
	"github.com/sidecar-dev/sidecar/internal/invariants"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// Checkpoints. The model is derived, so losing it loses nothing; a
// checkpoint only saves the rebuild from the trees on a restart. One
// checkpoint takes a new generation, above every generation on disk, and
// writes, for each table, the heap's changed pages and its manifest of
// that generation (heap's own checkpoint, store.HeapPages under
// PrefixHeap), then the radix index and the key store as chunks under
// PrefixIndex, then the model's position record naming that generation,
// syncs, and only then drops every other generation: the chunks
// (sweepChunks), and the heap manifests and page images the new manifests
// do not name (PageStore.Retain):
//
//	'x' 'p'                                         → position record
//	'x' 'c' gen:u64 uvarint(len) table kind chunk:u32 → 1 MiB of a stream (kind 'i' index, 'k' keys)
//
// A kill at any point of a checkpoint therefore leaves the previous one
// whole: until the new record is durable nothing the old record names is
// touched, and what the new checkpoint wrote is unreachable garbage the
// next checkpoint removes. (Before generations of heap manifests a kill
// between the heap's checkpoint and the record cost a rebuild of the whole
// model from the trees: 8 min at 10M rows, issue 21 item 11.) A restore
// reads the position record and opens each table's heap at the record's
// generation.

const (
	// recordVersion 2 added the streams' checksums; 3 names the heap
	// manifests by the record's generation (before, one manifest per table
	// that a checkpoint overwrote); 4 writes the index and key store as
	// images (radixindex.WriteImage, writeKeyImage: read back page by page
	// into place, each page checksummed, instead of decoded node by node
	// and key by key). Version 3 records are still restored (decoded); an
	// older record is refused (the model is rebuilt from the trees once),
	// and so is a version 4 record by a binary from before it.
	recordVersion = recordParts
	// recordStreams is the last record version whose index and key store
	// are the decoded streams (Tree.WriteCheckpoint, encodeKeyPagesTo).
	recordStreams = 3
	chunkBytes    = 1 << 20
)

var positionKey = []byte{store.PrefixIndex, 'p'}

// position is what the record holds.
type position struct {
	// version is the record's (not in the JSON: its first byte).
	version byte
	Gen     uint64
	LSN     uint64
	Tables  []tableRecord
}

type tableRecord struct {
	Name     string
	Relation *wal.Relation
	LSN      uint64 // the table's own: its last batch
	CopiedAt uint64
	IndexLen int // bytes of the index stream
	KeysLen  int
	// IndexCRC, KeysCRC: CRC-32C of the streams, checked on restore.
	IndexCRC uint32
	KeysCRC  uint32
	IndexLSN uint64
	// IndexFile, KeysFile: the image files in Persist.imageDir (record
	// version 5; empty: the images are chunks, as in version 4).
	IndexFile string `json:",omitempty"`
	KeysFile  string `json:",omitempty"`
	// IndexParts, KeyParts: record version 6: the index image's pages per
	// kind and the key store's pages in parts (ckptparts.go); IndexFile
	// is then the index image's head, IndexLen and KeysLen the sums.
	IndexParts [][]partFile `json:",omitempty"`
	KeyParts   []partFile   `json:",omitempty"`
	// KeyDirFile (KeyDirLen bytes): the key parts' tails in one file
	// (keydir.go), read by a restore instead of each part's end; empty in
	// a record written before it (or when a tail was unknown).
	KeyDirFile string `json:",omitempty"`
	KeyDirLen  int    `json:",omitempty"`
}

func chunkKey(gen uint64, table string, kind byte, i uint32) []byte {
	k := binary.BigEndian.AppendUint64(bytes.Clone(chunkPrefix), gen)
	k = binary.AppendUvarint(k, uint64(len(table)))
	k = append(k, table...)
	k = append(k, kind)
	return binary.BigEndian.AppendUint32(k, i)
}

// Persist is where a model keeps its checkpoints.
type Persist struct {
	DB *store.DB
	// Every is the least time between two checkpoints taken on apply
	// (default 5 min; negative: only through Checkpoint). Heap pages are
	// written when changed, but the index and key store whole, so a large
	// table's checkpoint writes about 25 bytes per row each time.
	Every  time.Duration
	Logger *slog.Logger
	// Mirror, when set, is compared with the model after every checkpoint
	// in invariants builds (internal/invariants).
	Mirror *mirror.Mirror

	// crashAt, in tests, is called at each step of a checkpoint (see
	// step); an error stops the checkpoint there as a kill would.
	crashAt func(step string) error
	// beforeWrite, in tests, is called by a checkpoint started from Apply
	// after its cut, before it writes anything: a test holds the writer
	// there to see apply go on.
	beforeWrite func()
	// beforeCut, in tests, is called when a checkpoint started from
	// Apply is about to take its cut: a test holds it there to see the
	// batch that started it served meanwhile.
	beforeCut func()
	// newPacer, in tests, makes the pacer of a checkpoint started from
	// Apply (default newCkptPacer(ckptPaceDuty, ckptPaceSlice)).
	newPacer func() *ckptPacer
	// beforeEncode, in tests, is called by writeCut before it encodes a
	// table's frozen index and key store: a test holds it there to see
	// batches applied meanwhile (the encoding is off the writer's lock).
	beforeEncode func(table string, cut wal.LSN)
	// batchBytes, in tests, is the ceiling on a heap's page images held
	// at once (0: heap.CheckpointBatchBytes).
	batchBytes int
	// streams, in tests, writes version 3 records (the index and key
	// store as decoded streams), as a binary from before images did.
	streams bool
	// chunkImages, in tests, writes the images as chunks (version 4's
	// way) into a store that has a directory.
	chunkImages bool
	// singleFiles, in tests, writes version 5 records (one index and one
	// key store file per table, whole at every checkpoint).
	singleFiles bool
}

// step reports reaching step of a checkpoint to the test hook.
func (p *Persist) step(step string) error {
	if p.crashAt == nil {
		return nil
	}
	if err := p.crashAt(step); err != nil {
		return fmt.Errorf("head checkpoint stopped at %s: %w", step, err)
	}
	return nil
}

// CheckpointStats says what a checkpoint wrote.
type CheckpointStats struct {
	LSN        wal.LSN
	Tables     int
	HeapPages  int // page images written (changed pages only)
	HeapBytes  int
	IndexBytes int // radix index checkpoints
	KeyBytes   int // key stores
	// FileBytes is the bytes of index and key store image files this
	// checkpoint wrote; LinkedBytes those it took over from the
	// generation before unchanged (a hard link, nothing written).
	FileBytes, LinkedBytes int
	// ReleasedBytes is the bytes of a restored generation's mapped image
	// files the checkpoint gave back (nothing maps them any more).
	ReleasedBytes int64
	// HeapBatches is the number of batches the page images were written
	// in; PeakBatchBytes the most image bytes one batch held (at most
	// heap.CheckpointBatchBytes plus one image).
	HeapBatches    int
	PeakBatchBytes int
	// Cut is how long the cut took (the model's writer waited that long:
	// the heap's hand-over and a copy of each index and key store page
	// list); Encode how long encoding the frozen indexes and key stores
	// took, after the cut, beside the writer; Took the whole checkpoint.
	Cut    time.Duration
	Encode time.Duration
	Took   time.Duration
	// IndexCopied is the bytes of radix index chunks the writer copied
	// while the checkpoint held its frozen views (radixindex.Frozen.Release):
	// the memory the views kept alive beside the live indexes.
	IndexCopied int
	// Paced is the time a background checkpoint's pacer rested
	// (ckptpace.go; 0 for Checkpoint).
	Paced time.Duration
}

// Checkpoint writes the model's state with its position, and returns
// once it is durable. It waits for a checkpoint being written (one at a
// time), takes the cut while no batch is applied, and writes it while
// batches go on being applied. The owner calls it at shutdown, once the
// subscription has stopped, so that a restart replays nothing.
func (m *Model) Checkpoint() (CheckpointStats, error) {
	m.ckptSlot <- struct{}{}
	defer func() { <-m.ckptSlot }()
	start := time.Now()
	m.wmu.Lock()
	c, err := m.cutLocked()
	if err == nil {
		m.lastCkpt = start
	}
	m.wmu.Unlock()
	if err != nil {
		return CheckpointStats{LSN: m.LSN()}, err
	}
	return m.writeCut(c, start)
}

// startCheckpointLocked starts a checkpoint from Apply (under wmu): a
// goroutine the model owns (Close waits for it) takes the cut once it
// gets wmu after this batch — so the batch that started it is applied,
// delivered and served without waiting for the cut — and then writes it
// while the next batches are applied. It does nothing while a checkpoint
// is being taken or written (a later batch tries again) or once the model
// is closed. A failure is logged: the model is derived, the next
// checkpoint may work, and a restart without one rebuilds it from the
// trees.
//
// The cut encoded the radix index and key store under wmu then (≈ 170 MB
// at 10M rows; now it only copies them, cutLocked); taken inside Apply,
// it kept the subscription busy, so a
// copy longer than the checkpoint interval, whose table's reset batch
// started the first checkpoint, had its HEAD made ready only after it
// (66 s after a 10M-row copy, issue 21 item 2).
func (m *Model) startCheckpointLocked() {
	select {
	case m.ckptSlot <- struct{}{}:
	default:
		return
	}
	if m.closed {
		<-m.ckptSlot
		return
	}
	p := m.opts.Persist
	m.lastCkpt = time.Now()
	m.ckptWG.Add(1)
	go func() {
		defer m.ckptWG.Done()
		defer func() { <-m.ckptSlot }()
		if p.beforeCut != nil {
			p.beforeCut()
		}
		start := time.Now()
		m.wmu.Lock()
		if m.closed {
			m.wmu.Unlock()
			return
		}
		c, err := m.cutLocked()
		if err == nil {
			m.lastCkpt = start
		}
		m.wmu.Unlock()
		if err != nil {
			if p.Logger != nil {
				p.Logger.Warn("in-memory HEAD checkpoint failed", "err", err)
			}
			return
		}
		if p.beforeWrite != nil {
			p.beforeWrite()
		}
		if p.newPacer != nil {
			c.pace = p.newPacer()
		} else {
			c.pace = newCkptPacer(ckptPaceDuty, ckptPaceSlice)
		}
		c.pace.hurry = &m.ckptHurry
		st, err := m.writeCut(c, start)
		if p.Logger == nil {
			return
		}
		if err != nil {
			p.Logger.Warn("in-memory HEAD checkpoint failed", "err", err)
			return
		}
		p.Logger.Info("in-memory HEAD checkpointed", "lsn", st.LSN, "tables", st.Tables, "heap_pages", st.HeapPages,
			"heap_batches", st.HeapBatches, "cut", st.Cut.Round(time.Millisecond), "encode", st.Encode.Round(time.Millisecond), "took", st.Took.Round(time.Millisecond),
			"paced", st.Paced.Round(time.Millisecond), "index_copied", st.IndexCopied, "index_written", st.FileBytes, "index_linked", st.LinkedBytes, "released", st.ReleasedBytes)
	}()
}

// Close waits for a checkpoint being written by the model's goroutine
// and starts no other from Apply; one started but not yet cut is dropped
// (the owner checkpoints at shutdown). Checkpoint still works after it.
func (m *Model) Close() {
	m.wmu.Lock()
	m.closed = true
	m.wmu.Unlock()
	m.ckptHurry.Store(true)
	m.warmStop.Store(true)
	m.warmWG.Wait()
	m.ckptWG.Wait()
}

// ckptCut is the model's state a checkpoint writes, taken while no batch
// is applied (cutLocked): per table the heap's cut (a published version,
// immutable, and its dirty pages) and the radix index and key store
// frozen (views the writer does not change), all of the same batch.
type ckptCut struct {
	lsn    wal.LSN
	took   time.Duration
	tables []tableCut
	// pace paces the write (ckptpace.go; nil: as fast as it goes).
	pace *ckptPacer
}

type tableCut struct {
	name     string
	rel      *wal.Relation
	lsn      uint64
	copiedAt wal.LSN
	heap     *heap.Cut
	index    *radixindex.Frozen
	keys     frozenKeys
	// images is the table's mapped image files (nil: none): writing the
	// cut reads every page of them, resident only for the write.
	images *tableImages
	// pace is the checkpoint's pacer (nil: none), rested after each
	// image part written.
	pace *ckptPacer
}

// abort releases the heap cuts and the frozen indexes not written.
func (c *ckptCut) abort() {
	for i := range c.tables {
		tc := &c.tables[i]
		tc.heap.Abort()
		if tc.index != nil {
			tc.index.Release()
			tc.index = nil
		}
	}
}

// cutLocked takes the cut under wmu (no batch is being applied). The
// writer waits for it: the heap hands over its current version and dirty
// set, and the index's node chunk lists and the key store's page list are
// copied (both copy-on-write: the writer copies a chunk or page the first
// time it changes it after); writeCut encodes them after. (The index and
// key store were encoded here until issue 24's cut work: 1.2 s – 4 min
// under the lock by load and size; then the index's slabs were copied
// here, ≈ 16 B a key, 0.3–0.9 s at the first cut after a 1M-row copy.)
func (m *Model) cutLocked() (*ckptCut, error) {
	if m.unusable.Load() {
		return nil, fmt.Errorf("head checkpoint: %w", ErrUnusable)
	}
	p := m.opts.Persist
	if p == nil || p.DB == nil {
		return nil, errors.New("head checkpoint: no store configured")
	}
	start := time.Now()
	c := &ckptCut{lsn: m.LSN()}
	for _, name := range m.Tables() {
		t := m.Table(name)
		if tl := t.lsn.Load(); tl > uint64(c.lsn) {
			// Only an Apply that failed part-way leaves a table past the
			// model: a record at c.lsn would not describe it.
			c.abort()
			return nil, fmt.Errorf("head checkpoint: %s is at %s, past the model's %s (a batch applied in part)", name, wal.LSN(tl), c.lsn)
		}
		tc := tableCut{name: name, rel: t.rel, lsn: t.lsn.Load(), copiedAt: m.copied[name], heap: t.hp.CutCheckpoint(), images: t.images}
		c.tables = append(c.tables, tc)
		last := &c.tables[len(c.tables)-1]
		last.index = t.ix.Freeze()
		t.ix.View(func(*radixindex.Tree, uint64) { last.keys = t.keys.freeze() })
	}
	c.took = time.Since(start)
	return c, nil
}

// writeCut writes cut c (the caller holds the checkpoint slot; wmu is not
// held: batches are applied meanwhile). It takes a new generation, above
// every generation on disk, writes each table's heap pages (in bounded
// batches) and manifest, then its index and key store chunks, then the
// position record naming that generation, syncs, and only then drops
// every other generation.
func (m *Model) writeCut(c *ckptCut, start time.Time) (CheckpointStats, error) {
	defer c.abort() // the heap cuts a failure left unwritten
	p := m.opts.Persist
	st := CheckpointStats{LSN: c.lsn, Cut: c.took}
	bdb := p.DB.Badger()
	pages := p.DB.HeapPages()
	// Above every generation on disk: the previous record's, and any a
	// kill left (chunks, heap manifests and images of a checkpoint whose
	// record was never written), so nothing a surviving record names is
	// ever overwritten.
	top, err := topGeneration(bdb)
	if err != nil {
		return st, fmt.Errorf("head checkpoint: %w", err)
	}
	heapTop, err := pages.TopGeneration()
	if err != nil {
		return st, fmt.Errorf("head checkpoint: %w", err)
	}
	files := p.writesFiles()
	dir := p.imageDir()
	if files {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return st, fmt.Errorf("head checkpoint: %w", err)
		}
		fileTop, err := topFileGeneration(dir)
		if err != nil {
			return st, fmt.Errorf("head checkpoint: %w", err)
		}
		top = max(top, fileTop)
	}
	m.gen = max(m.gen, top, heapTop) + 1
	gen := m.gen
	pos := position{version: recordVersion, Gen: gen, LSN: uint64(c.lsn)}
	switch {
	case p.streams:
		pos.version = recordStreams
	case files && p.singleFiles:
		pos.version = recordFiles
	}
	// prev: the parts of the last durable generation, compared with
	// (only the checkpoint slot's holder touches m.prevImages).
	prevs := m.prevImages
	nextPrevs := map[string]*tablePrev{}
	names := make([]string, 0, len(c.tables))
	for i := range c.tables {
		tc := &c.tables[i]
		name := tc.name
		names = append(names, name)
		if err := p.step("heap " + name); err != nil {
			return st, err
		}
		wo := heap.WriteOptions{BatchBytes: p.batchBytes, BeforeBatch: func(n int) error {
			return p.step(fmt.Sprintf("heap %s batch %d", name, n))
		}}
		if c.pace != nil {
			wo.Pace = c.pace.pace
			if wo.BatchBytes == 0 {
				wo.BatchBytes = ckptPaceBatchBytes
			}
			// The images written so far synced every few batches, on
			// the writer's goroutine: the page cache never holds the
			// whole checkpoint's images dirty for the manifest's sync
			// to write back at once.
			step := wo.BeforeBatch
			wo.BeforeBatch = func(n int) error {
				if n > 0 && n%ckptPaceSyncBatches == 0 {
					if err := p.DB.Sync(); err != nil {
						return fmt.Errorf("sync page images: %w", err)
					}
				}
				return step(n)
			}
		}
		tc.pace = c.pace
		hs, err := tc.heap.Write(pages, name, gen, wo)
		if err != nil {
			return st, fmt.Errorf("head checkpoint: %w", err)
		}
		st.HeapPages += hs.Pages
		st.HeapBytes += hs.Bytes
		st.HeapBatches += hs.Batches
		st.PeakBatchBytes = max(st.PeakBatchBytes, hs.PeakBatchBytes)
		// The streams are encoded from the frozen copies and written a
		// table at a time, each dropped once written, so what the cut
		// holds shrinks as it goes.
		if p.beforeEncode != nil {
			p.beforeEncode(name, c.lsn)
		}
		encStart := time.Now()
		rec := tableRecord{Name: name, Relation: tc.rel, LSN: tc.lsn, CopiedAt: uint64(tc.copiedAt), IndexLSN: tc.index.LSN()}
		readMapped := true
		switch {
		case files && pos.version == recordParts:
			var next *tablePrev
			var ps partStats
			next, ps, err = writeTableParts(p, dir, gen, i, tc, &rec, prevs[name])
			st.FileBytes += ps.written
			st.LinkedBytes += ps.linked
			readMapped = ps.readMapped
			if err == nil {
				nextPrevs[name] = next
			}
		case files:
			err = writeTableFiles(p, dir, gen, i, tc, &rec)
			st.FileBytes += rec.IndexLen + rec.KeysLen
		default:
			err = writeTableChunks(bdb, p, gen, tc, &rec)
		}
		// Released, the index's writer owns its node chunks again and
		// stops copying them (radixindex.Frozen.Release).
		st.IndexCopied += tc.index.Release()
		tc.index, tc.keys = nil, frozenKeys{}
		if tc.images != nil && readMapped {
			// The write read the mapped pages the writer had not copied
			// of the parts it wrote (version 5: all of them): dropped
			// from the process again (the next lookups read back what
			// they use).
			tc.images.evict()
		}
		st.Encode += time.Since(encStart)
		if err != nil {
			return st, fmt.Errorf("head checkpoint of %s: %w", name, err)
		}
		st.IndexBytes += rec.IndexLen
		st.KeyBytes += rec.KeysLen
		pos.Tables = append(pos.Tables, rec)
		st.Tables++
	}
	if err := p.step("chunks"); err != nil {
		return st, err
	}
	if files {
		// The files' names durable before the record naming them.
		if err := syncDir(dir); err != nil {
			return st, fmt.Errorf("head checkpoint: sync %s: %w", dir, err)
		}
	}
	rec, err := encodePosition(pos)
	if err != nil {
		return st, err
	}
	if err := p.step("record"); err != nil {
		return st, err
	}
	if err := store.RetryBlocked(context.Background(), func() error {
		return bdb.Update(func(txn *badger.Txn) error { return txn.Set(positionKey, rec) })
	}); err != nil {
		return st, fmt.Errorf("head checkpoint: write position: %w", err)
	}
	if err := p.step("sync"); err != nil {
		return st, err
	}
	if err := p.DB.Sync(); err != nil {
		return st, fmt.Errorf("head checkpoint: sync: %w", err)
	}
	// The generation the next checkpoint compares its parts with.
	m.prevImages = nextPrevs
	// Every other generation is garbage now: the previous record's, and any
	// a kill left behind (between the chunks and the record, or between the
	// record and this sweep) or a checkpoint the restart could not use.
	if err := p.step("sweep"); err != nil {
		return st, err
	}
	if err := sweepChunks(bdb, gen); err != nil && p.Logger != nil {
		p.Logger.Warn("head checkpoint: dropping older generations failed (garbage until the next)", "err", err)
	}
	if files {
		if err := sweepImageFiles(dir, gen); err != nil && p.Logger != nil {
			p.Logger.Warn("head checkpoint: dropping older generations' image files failed (garbage until the next)", "err", err)
		}
		// A restored generation's parts that nothing maps any more are
		// given back: unlinked by the sweep, their space is free now.
		for _, name := range names {
			if t := m.Table(name); t != nil {
				st.ReleasedBytes += t.releaseImages()
			}
		}
	}
	for _, name := range names {
		if err := p.step("retain " + name); err != nil {
			return st, err
		}
		if t := m.Table(name); t != nil && t.hp.CheckpointPins() > 0 {
			// Pages of a mapped restore still read their images from the
			// checkpoint restored (warm.go): keep them until none does; a
			// later checkpoint's Retain drops what this one supersedes.
			continue
		}
		if err := pages.Retain(name, gen); err != nil && p.Logger != nil {
			p.Logger.Warn("head checkpoint: dropping superseded heap pages failed (garbage until the next)", "table", name, "err", err)
		}
	}
	if invariants.Enabled && p.Mirror != nil && p.Mirror.Err() == nil {
		// Under wmu: Compare reads each table at the model's LSN, which
		// a batch applied meanwhile would move under it.
		m.wmu.Lock()
		_, err := m.Compare(context.Background(), p.Mirror)
		m.wmu.Unlock()
		if err != nil {
			panic(fmt.Sprintf("invariant violated: the checkpointed in-memory HEAD differs from the trees: %v", err))
		}
	}
	st.Took = time.Since(start)
	st.Paced = c.pace.restedFor()
	return st, nil
}

// writeTableChunks writes the cut tc's index and key store as chunks of
// generation gen (record versions 3 and 4, and 5 for a store without a
// directory) and fills their lengths and checksums into rec. Each stream
// goes into the write batch chunk by chunk as it is encoded
// (streamWriter), not whole into one buffer first (≈ 11 B a row, grown by
// doubling: 110 MB at 10M rows).
func writeTableChunks(bdb *badger.DB, p *Persist, gen uint64, tc *tableCut, rec *tableRecord) error {
	wb := bdb.NewWriteBatch()
	index := &streamWriter{wb: wb, gen: gen, table: tc.name, kind: 'i'}
	keys := &streamWriter{wb: wb, gen: gen, table: tc.name, kind: 'k'}
	var err error
	if p.streams {
		_, err = tc.index.WriteCheckpoint(index)
	} else {
		_, err = tc.index.WriteImage(index)
	}
	if err == nil {
		err = index.close()
	}
	if err == nil && p.streams {
		err = encodeKeyPagesTo(keys, tc.keys.pages)
	} else if err == nil {
		err = writeKeyImage(keys, tc.keys.pages)
	}
	if err == nil {
		err = keys.close()
	}
	if err == nil {
		err = p.step("chunks " + tc.name)
	}
	if err == nil {
		if err = wb.Flush(); err != nil {
			err = fmt.Errorf("write chunks: %w", err)
		}
	}
	if err != nil {
		wb.Cancel()
		return err
	}
	rec.IndexLen, rec.KeysLen, rec.IndexCRC, rec.KeysCRC = index.len, keys.len, index.crc, keys.crc
	return nil
}

// writeTableFiles writes the cut tc's index and key store as the image
// files of generation gen, table number i, in dir, each synced (the
// caller syncs dir before the record), and fills their names and lengths
// into rec.
func writeTableFiles(p *Persist, dir string, gen uint64, i int, tc *tableCut, rec *tableRecord) error {
	rec.IndexFile, rec.KeysFile = imageFileName(gen, i, 'i'), imageFileName(gen, i, 'k')
	n, err := writeImageFile(dir, rec.IndexFile, tc.index.WriteImage)
	if err != nil {
		return err
	}
	rec.IndexLen = int(n)
	if err := p.step("index file " + tc.name); err != nil {
		return err
	}
	n, err = writeImageFile(dir, rec.KeysFile, func(w io.Writer) (int64, error) { return writeKeyFile(w, tc.keys.pages) })
	if err != nil {
		return err
	}
	rec.KeysLen = int(n)
	return p.step("chunks " + tc.name)
}

// chunkPrefix is the key prefix of every checkpoint chunk.
var chunkPrefix = []byte{store.PrefixIndex, 'c'}

// chunkGeneration is the generation a chunk key names.
func chunkGeneration(k []byte) uint64 { return binary.BigEndian.Uint64(k[len(chunkPrefix):]) }

// topGeneration is the highest generation any chunk in bdb carries (0 when
// there is none), read from the keys alone.
func topGeneration(bdb *badger.DB) (uint64, error) {
	var top uint64
	err := bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: chunkPrefix})
		defer it.Close()
		for it.Seek(chunkPrefix); it.Valid(); it.Next() {
			if k := it.Item().Key(); len(k) >= len(chunkPrefix)+8 {
				top = max(top, chunkGeneration(k))
			}
		}
		return nil
	})
	return top, err
}

// sweepChunks deletes every chunk whose generation is not keep, found by
// a keys-only walk of the chunk prefix (not DropPrefix: that stops
// Badger's writes, the mirror's among them).
func sweepChunks(bdb *badger.DB, keep uint64) error {
	var stale [][]byte
	err := bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: chunkPrefix})
		defer it.Close()
		for it.Seek(chunkPrefix); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) < len(chunkPrefix)+8 || chunkGeneration(k) != keep {
				stale = append(stale, it.Item().KeyCopy(nil))
			}
		}
		return nil
	})
	if err != nil || len(stale) == 0 {
		return err
	}
	wb := bdb.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range stale {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// streamWriter writes a checkpoint stream into a write batch in chunks
// — chunk i is bytes [i×chunkBytes, (i+1)×chunkBytes), an empty stream
// one empty chunk (getStream reads them back) — as its bytes come,
// summing its length and checksum. The batch keeps each chunk until its
// transaction commits; a new chunk is allocated for the next bytes.
type streamWriter struct {
	wb    chunkSetter
	gen   uint64
	table string
	kind  byte
	buf   []byte // the chunk being filled
	n     uint32 // chunks set
	len   int    // bytes set
	crc   uint32
}

// chunkSetter is where a streamWriter puts its chunks: a
// *badger.WriteBatch.
type chunkSetter interface {
	Set(key, val []byte) error
}

func (s *streamWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		if s.buf == nil {
			s.buf = make([]byte, 0, chunkBytes)
		}
		k := min(len(p), chunkBytes-len(s.buf))
		s.buf = append(s.buf, p[:k]...)
		p = p[k:]
		if len(s.buf) == chunkBytes {
			if err := s.set(); err != nil {
				return total - len(p), err
			}
		}
	}
	return total, nil
}

// set hands the chunk being filled to the batch.
func (s *streamWriter) set() error {
	if s.buf == nil {
		s.buf = []byte{}
	}
	if err := s.wb.Set(chunkKey(s.gen, s.table, s.kind, s.n), s.buf); err != nil {
		return fmt.Errorf("chunk %d of the %c stream: %w", s.n, s.kind, err)
	}
	s.crc = crc32.Update(s.crc, crcTable, s.buf)
	s.len += len(s.buf)
	s.n++
	s.buf = nil
	return nil
}

// close sets the last chunk (the only one, empty, for an empty stream).
func (s *streamWriter) close() error {
	if len(s.buf) > 0 || s.n == 0 {
		return s.set()
	}
	return nil
}

func getStream(txn *badger.Txn, gen uint64, table string, kind byte, n int) ([]byte, error) {
	chunks := max(1, (n+chunkBytes-1)/chunkBytes)
	out := make([]byte, 0, n)
	for i := range chunks {
		item, err := txn.Get(chunkKey(gen, table, kind, uint32(i)))
		if err != nil {
			return nil, fmt.Errorf("chunk %d of %s's %c stream: %w", i, table, kind, err)
		}
		if err := item.Value(func(v []byte) error { out = append(out, v...); return nil }); err != nil {
			return nil, err
		}
	}
	if len(out) != n {
		return nil, fmt.Errorf("%w: %s's %c stream: %d bytes, record says %d", ErrCorruptCheckpoint, table, kind, len(out), n)
	}
	return out, nil
}

func encodePosition(p position) ([]byte, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("head checkpoint: encode position: %w", err)
	}
	v := p.version
	if v == 0 {
		v = recordVersion
	}
	out := append([]byte{v}, body...)
	return binary.BigEndian.AppendUint32(out, crc32.Checksum(out, crcTable)), nil
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// ErrCorruptCheckpoint is wrapped by every restore error about the
// checkpoint's own bytes (position record, chunk streams); it carries the
// one corruption marker, internal/corrupt.Err.
var ErrCorruptCheckpoint = corrupt.New("corrupt in-memory HEAD checkpoint")

func decodePosition(b []byte) (position, error) {
	var p position
	if len(b) < 5 || (b[0] != recordParts && b[0] != recordFiles && b[0] != recordImages && b[0] != recordStreams) {
		return p, fmt.Errorf("%w: unknown position record", ErrCorruptCheckpoint)
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, crcTable) != sum {
		return p, fmt.Errorf("%w: position record checksum mismatch", ErrCorruptCheckpoint)
	}
	if err := json.Unmarshal(body[1:], &p); err != nil {
		return p, fmt.Errorf("%w: position record: %w", ErrCorruptCheckpoint, err)
	}
	p.version = b[0]
	return p, nil
}

// Restore returns a model loaded from the checkpoint in opts.Persist, or
// an empty one (rebuilt from the trees by the mirror) when there is none
// or it cannot be used; why is logged.
func Restore(opts Options) *Model {
	m := restoreCounting(opts, nil)
	m.startWarm()
	return m
}

// restoreCounting is Restore, counting the pages restored in prog (nil:
// the new model's own counters).
func restoreCounting(opts Options, prog *restoreProgress) *Model {
	m := New(opts)
	p := opts.Persist
	if p == nil || p.DB == nil {
		return m
	}
	if prog == nil {
		prog = &m.restoring
	}
	start := time.Now()
	err := m.restore(prog)
	if err != nil {
		if p.Logger != nil && !errors.Is(err, badger.ErrKeyNotFound) {
			p.Logger.Warn("in-memory HEAD: checkpoint not usable; rebuilding it from the trees", "err", err)
		}
		return New(opts)
	}
	if p.Logger != nil {
		p.Logger.Info("in-memory HEAD restored from its checkpoint", "lsn", m.LSN(), "tables", len(m.tables),
			"took", time.Since(start).Round(time.Millisecond), "index_keys", time.Duration(prog.indexKeys.Load()).Round(time.Millisecond),
			"heaps", time.Duration(prog.heaps.Load()).Round(time.Millisecond))
	}
	return m
}

// Load restores into m, which is being served but not yet subscribed
// to the mirror, the checkpoint in its Options.Persist, as Restore does
// (when it is missing or not usable m stays empty and the mirror rebuilds
// it from the trees). It reports whether a checkpoint was loaded. Readers
// may use m meanwhile: until Load returns it holds no table, so every read
// goes to the tree, and the restored tables are installed together, at the
// checkpoint's version (served only for versions they are exact for). The
// daemon starts its listeners first and loads meanwhile (issue 21 item 11).
func (m *Model) Load() bool {
	r := restoreCounting(m.opts, &m.restoring)
	if len(r.tables) == 0 {
		return false
	}
	m.ckptSlot <- struct{}{} // gen and prevImages are the checkpoint's
	m.gen = r.gen
	m.prevImages = r.prevImages
	<-m.ckptSlot
	m.wmu.Lock()
	m.copied = r.copied
	m.applied.Store(r.applied.Load())
	m.mu.Lock()
	for name, t := range r.tables {
		t.m = m
		m.tables[name] = t
	}
	m.mu.Unlock()
	m.wmu.Unlock()
	m.startWarm()
	return true
}

// readPosition reads and decodes the position record.
func readPosition(txn *badger.Txn) (position, error) {
	item, err := txn.Get(positionKey)
	if err != nil {
		return position{}, err
	}
	rec, err := item.ValueCopy(nil)
	if err != nil {
		return position{}, err
	}
	return decodePosition(rec)
}

func (m *Model) restore(prog *restoreProgress) (err error) {
	p := m.opts.Persist
	bdb := p.DB.Badger()
	// The mappings of a restore that fails are released: nothing was
	// served from them.
	var mapped []*tableImages
	defer func() {
		if err != nil {
			for _, im := range mapped {
				im.unmap()
			}
		}
	}()
	return bdb.View(func(txn *badger.Txn) error {
		pos, err := readPosition(txn)
		if err != nil {
			return err
		}
		// Every heap's manifest is checked against the record before any
		// page is read: a checkpoint that cannot be used is refused in
		// milliseconds, not after decoding every page of the tables
		// before the one that fails (28 s at 3M rows, 2026-12-04).
		total := 0
		for _, tr := range pos.Tables {
			lsn, pages, err := heap.CheckpointPages(p.DB.HeapPages(), tr.Name, pos.Gen)
			if err != nil {
				return fmt.Errorf("heap of %s: %w", tr.Name, err)
			}
			if lsn != tr.LSN {
				return fmt.Errorf("heap of %s is at %d, the position record at %d (a checkpoint cut short)", tr.Name, lsn, tr.LSN)
			}
			total += pages
		}
		prog.done.Store(0)
		prog.total.Store(int64(total))
		prog.indexKeys.Store(0)
		prog.heaps.Store(0)
		hcfg := m.opts.Heap
		hcfg.Restored = &prog.done
		// Mapped, not decoded: the pages come back cold and the warmer
		// decodes them beside the reads (warm.go).
		hcfg.RestoreCold = true
		for _, tr := range pos.Tables {
			t, err := m.newTable(tr.Name, tr.Relation, m.opts.Heap)
			if err != nil {
				return err
			}
			// The heap's pages (read and decoded in parallel by OpenGen)
			// and the key store and index (decoded here) are independent:
			// they are restored side by side.
			type opened struct {
				hp  *heap.Heap
				err error
			}
			hc := make(chan opened, 1)
			started := time.Now()
			go func() {
				hp, err := heap.OpenGen(t.hp.Schema(), hcfg, p.DB.HeapPages(), tr.Name, pos.Gen)
				prog.heaps.Add(int64(time.Since(started)))
				hc <- opened{hp, err}
			}()
			var ix *radixindex.Index
			switch {
			case pos.version == recordStreams:
				ix, err = restoreIndex(txn, t, pos.Gen, tr)
			case pos.version == recordParts && tr.IndexFile != "":
				// Mapped in parts (ckptparts.go).
				var prev *tablePrev
				ix, t.images, prev, err = restoreIndexParts(p.imageDir(), t, tr)
				if prev != nil {
					m.prevImages[tr.Name] = prev
				}
				if t.images != nil {
					mapped = append(mapped, t.images)
				}
			case tr.IndexFile != "":
				// Mapped: the model is served before a page of either is
				// read (ckptfile.go).
				ix, t.images, err = restoreIndexFiles(p.imageDir(), t, tr)
				if t.images != nil {
					mapped = append(mapped, t.images)
				}
			default:
				ix, err = restoreIndexImage(bdb, t, pos.Gen, tr)
			}
			prog.indexKeys.Add(int64(time.Since(started)))
			ho := <-hc
			if ho.err != nil {
				return fmt.Errorf("heap of %s: %w", tr.Name, ho.err)
			}
			if err != nil {
				return err
			}
			hp := ho.hp
			got := hp.Snapshot()
			hlsn, rows := got.LSN(), got.Rows()
			got.Release()
			if hlsn != tr.LSN {
				return fmt.Errorf("heap of %s is at %d, the position record at %d (a checkpoint cut short)", tr.Name, hlsn, tr.LSN)
			}
			t.hp = hp
			if ix.Len() != int(rows) {
				return fmt.Errorf("index of %s has %d keys, its heap %d rows", tr.Name, ix.Len(), rows)
			}
			t.ix = ix
			ix.View(func(itr *radixindex.Tree, _ uint64) { t.chargeLocked(itr) })
			t.lsn.Store(tr.LSN)
			m.tables[tr.Name] = t
			m.copied[tr.Name] = wal.LSN(tr.CopiedAt)
		}
		m.gen = pos.Gen
		m.applied.Store(pos.LSN)
		return nil
	})
}

// restoreIndex reads and checks the key store and radix index streams of
// table tr of generation gen into t's key store, and returns the index.
func restoreIndex(txn *badger.Txn, t *Table, gen uint64, tr tableRecord) (*radixindex.Index, error) {
	kb, err := getStream(txn, gen, tr.Name, 'k', tr.KeysLen)
	if err != nil {
		return nil, err
	}
	if crc32.Checksum(kb, crcTable) != tr.KeysCRC {
		return nil, fmt.Errorf("%w: keys of %s: checksum mismatch", ErrCorruptCheckpoint, tr.Name)
	}
	if err := t.keys.decode(kb); err != nil {
		return nil, fmt.Errorf("keys of %s: %w", tr.Name, err)
	}
	ib, err := getStream(txn, gen, tr.Name, 'i', tr.IndexLen)
	if err != nil {
		return nil, err
	}
	if crc32.Checksum(ib, crcTable) != tr.IndexCRC {
		return nil, fmt.Errorf("%w: index of %s: checksum mismatch", ErrCorruptCheckpoint, tr.Name)
	}
	ix, err := radixindex.RestoreIndex(ib, func(dst []byte, id uint64) []byte { return t.keys.key(heap.RowID(id)) })
	if err != nil {
		return nil, fmt.Errorf("index of %s: %w", tr.Name, err)
	}
	return ix, nil
}

// encode appends the key store: uvarint(pages), per page uvarint(slots),
// per slot uvarint(len) and the key (0: none).
func (s *keyStore) encode(dst []byte) []byte { return encodeKeyPages(dst, s.pages) }

// encode appends the frozen key store as keyStore.encode appended it at
// the freeze.
func (f frozenKeys) encode(dst []byte) []byte { return encodeKeyPages(dst, f.pages) }

// encodeKeyPagesTo writes what encodeKeyPages appends to w, a page at a
// time through a buffer of about 64 KiB.
func encodeKeyPagesTo(w io.Writer, pages []*keyPage) error {
	return writeKeyPages(w, binary.AppendUvarint(nil, uint64(len(pages))), pages, appendKeyPage)
}

// writeKeyPages writes head, then every page as appendPage appends it, to
// w through a buffer of about 64 KiB.
func writeKeyPages(w io.Writer, head []byte, pages []*keyPage, appendPage func([]byte, *keyPage) []byte) error {
	const flushAt = 64 << 10
	buf := append(make([]byte, 0, 2*flushAt), head...)
	for _, p := range pages {
		buf = appendPage(buf, p)
		if len(buf) >= flushAt {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

func encodeKeyPages(dst []byte, pages []*keyPage) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(pages)))
	for _, p := range pages {
		dst = appendKeyPage(dst, p)
	}
	return dst
}

// appendKeyPage appends one page of the key store's encoding.
func appendKeyPage(dst []byte, p *keyPage) []byte {
	if p == nil {
		return binary.AppendUvarint(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(p.slots()))
	for i := range p.slots() {
		k := p.key(i)
		dst = binary.AppendUvarint(dst, uint64(len(k)))
		dst = append(dst, k...)
	}
	return dst
}

func (s *keyStore) decode(b []byte) error {
	r := bytes.NewReader(b)
	np, err := binary.ReadUvarint(r)
	if err != nil || np > uint64(len(b)) {
		return fmt.Errorf("key store: bad page count")
	}
	*s = keyStore{pages: make([]*keyPage, np)}
	var k []byte
	for pi := range s.pages {
		ns, err := binary.ReadUvarint(r)
		if err != nil || ns > uint64(len(b)) {
			return fmt.Errorf("key store: page %d: bad slot count", pi)
		}
		for i := range int(ns) {
			n, err := binary.ReadUvarint(r)
			if err != nil || n > uint64(r.Len()) {
				return fmt.Errorf("key store: page %d slot %d: bad key length", pi, i)
			}
			if n == 0 {
				continue // no key
			}
			k = append(k[:0], make([]byte, n)...)
			if _, err := r.Read(k); err != nil {
				return fmt.Errorf("key store: page %d slot %d: %w", pi, i, err)
			}
			// Through set: a page of same-length keys is restored in the
			// fixed layout.
			s.set(heap.MakeRowID(uint32(pi), i), k)
		}
	}
	if r.Len() != 0 {
		return fmt.Errorf("key store: %d bytes past the end", r.Len())
	}
	return nil
}
