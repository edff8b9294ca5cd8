// Package head keeps the HEAD of every followed table in memory, laid out
// for reads: per table a heap of PAX pages (heap/) and a radix index from
// the tree key to the heap row id (radixindex/), fed by the mirror's
// derived-consumer interface (mirror.Consumer).
//
// The Prolly trees stay the truth (DESIGN.md invariant 2). The model is
// derived: it carries the LSN of the last batch it applied, it is behind
// the trees by at most the batches the mirror has made durable and not yet
// delivered (one commit group at most, since the mirror delivers a batch
// once it is durable), and a reader uses it only when it is exactly at the
// version the reader resolved (Model.Get, Model.Range report whether they
// could); otherwise the reader goes to the tree. Nothing is lost when the
// model is: a restart without its state rebuilds it from the trees (the
// mirror sends every table whole).
//
// Consistency: a table's heap and index change together, inside the
// index's write lock (radixindex.Index.Update), once per batch; a reader
// works inside the read lock (Index.View), so it sees the heap snapshot and
// the index of the same batch, never half a transaction.
package head

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

// Options configure a Model.
type Options struct {
	// Heap sizes each table's pages (zero: heap defaults).
	Heap heap.Config
	// Persist, when set, is where the model checkpoints itself; nil keeps
	// it in memory only (rebuilt from the trees on every start).
	Persist *Persist
}

// Model is the in-memory HEAD of the followed tables. It implements
// mirror.Consumer; its read methods are safe for concurrent use with the
// mirror's delivery.
type Model struct {
	opts Options

	// wmu serialises the writers of the tables' state: Apply (the
	// consumer's goroutine) and Compact (an API request).
	wmu    sync.Mutex
	mu     sync.RWMutex // guards tables (the map, not the tables)
	tables map[string]*Table

	// applied is the LSN of the last batch applied whole, to every table
	// it names. A table's state is valid from its own lsn up to applied.
	applied atomic.Uint64
	// caught is the mirror's durable LSN when it last had no batch
	// waiting for the model (mirror.CaughtUp): the state is the mirror's
	// at every version up to it, even past applied (after an initial copy
	// with no commit, HEAD is the copy's LSN, beyond any batch's).
	caught atomic.Uint64
	// copied is Position.CopiedAt as of applied (writer only).
	copied map[string]wal.LSN
	// declined are the tables the model does not hold because of a key
	// too long for the index (decline.go; written under wmu and mu), and
	// resend those of them to be sent whole again (wmu).
	declined map[string]*declinedTable
	resend   []string
	// batches counts applied batches; served, reads answered (tests, metrics).
	batches, served atomic.Int64
	// copyBuilds counts tables built from their copy's rows (copybuild.go).
	copyBuilds atomic.Int64
	// snapshots counts heap snapshots handed to scans (SnapshotAt,
	// SnapshotRange).
	snapshots atomic.Int64
	// following: the model follows the mirror's commits (caught up once,
	// subscribed): readers may wait for it to reach a version
	// (snapshot.Following). True from New; the daemon clears it while it
	// restores and catches up.
	following atomic.Bool

	// Checkpoint state. ckptSlot (capacity 1) is held by the checkpoint
	// being taken, from its cut until it is written: one at a time. gen
	// belongs to its holder; lastCkpt (when the last one was cut) and
	// closed (no more from Apply) to wmu's. ckptWG counts the goroutine
	// writing a checkpoint started from Apply (Close waits for it).
	ckptSlot chan struct{}
	gen      uint64 // generation of the last checkpoint (0: none yet)
	// prevImages is, per table, the index and key store parts of the last
	// durable generation (record version 6): what the next checkpoint
	// links instead of writing again. Its holder's, as gen.
	prevImages map[string]*tablePrev
	lastCkpt   time.Time
	closed     bool
	ckptWG     sync.WaitGroup
	// ckptHurry, set by Close, stops a background checkpoint's pacing:
	// the owner waits for it (ckptpace.go).
	ckptHurry atomic.Bool

	// warmWG counts the warmer a restore starts (warm.go); warmStop asks
	// it to stop (Close); warmed is the pages it decoded once done.
	warmWG   sync.WaitGroup
	warmStop atomic.Bool
	warmed   atomic.Int64
	// verified: the warmer checked every mapped image file's pages
	// (ckptfile.go); tests wait for it.
	verified atomic.Bool
	// warmHold, when set (tests), is received from before the warmer
	// starts: a warmer held there leaves the restored pages pinned.
	warmHold chan struct{}
	// pastTaken, when set (tests), is called by a table's batch right
	// after it took the snapshot it keeps as a past state.
	pastTaken func(*Table)

	// unusable is set when an Apply failed after changing some of the
	// model's state: the tables no longer describe one version, so nothing
	// is served (servable), checkpointed or applied until Reset empties
	// the model for a rebuild from the trees.
	unusable atomic.Bool
	// fault, when set (tests: SetApplyFault), is called before each table
	// of a batch is applied; an error fails the Apply there.
	fault atomic.Pointer[func(table string, lsn wal.LSN) error]

	// restoring counts a checkpoint restore's heap pages (Load): how far
	// it is, for status and for the SQL port's refusals meanwhile.
	restoring restoreProgress
}

// restoreProgress is how many heap pages a restore has decoded of how
// many the checkpoint holds.
type restoreProgress struct {
	done, total atomic.Int64
	// indexKeys and heaps are the time (ns) the last restore spent reading
	// the radix indexes and key stores, and opening the heaps (side by
	// side per table), for the restore's log line.
	indexKeys, heaps atomic.Int64
}

// RestoreProgress is how many of the checkpoint's heap pages the running
// (or last) Load has restored, of how many (total 0: none started, or a
// checkpoint without pages).
func (m *Model) RestoreProgress() (done, total int64) {
	return m.restoring.done.Load(), m.restoring.total.Load()
}

// New returns an empty model: its Durable position is zero, so a
// subscription starts by sending every table whole.
func New(opts Options) *Model {
	m := &Model{opts: opts, tables: map[string]*Table{}, copied: map[string]wal.LSN{}, declined: map[string]*declinedTable{}, ckptSlot: make(chan struct{}, 1),
		prevImages: map[string]*tablePrev{}}
	m.following.Store(true) // an owner that loads it first says otherwise (SetFollowing)
	return m
}

var _ mirror.Consumer = (*Model)(nil)

// Durable implements mirror.Consumer: the position the model holds, in
// memory: the last batch it applied whole and the copy of each table it
// has (zero for a new model: the mirror then sends every table whole).
// The mirror reads it once, when it subscribes the model, and brings it
// forward from there by a diff of the trees. The model's state lives in
// memory, so that is where a subscription must start, not at its last
// checkpoint: a model subscribed again after applying batches past its
// checkpoint (or its restore) was brought forward from the older
// position, and a row inserted after it and deleted before the diff's
// head was in neither tree of the diff, so it stayed in the model
// (TestResubscribeAfterApplying; TestCheckpointKilledMidway failed so).
// After a restore the two are the same: the checkpoint's position.
func (m *Model) Durable() mirror.Position {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return mirror.Position{LSN: m.LSN(), CopiedAt: maps.Clone(m.copied)}
}

// CaughtUp implements mirror.CaughtUp: every batch up to lsn was applied,
// so the model may serve versions up to lsn.
func (m *Model) CaughtUp(lsn wal.LSN) {
	for {
		c := m.caught.Load()
		if uint64(lsn) <= c || m.caught.CompareAndSwap(c, uint64(lsn)) {
			return
		}
	}
}

// Current is the latest version the model can serve: the last batch it
// applied, or further when the mirror said nothing more is waiting
// (CaughtUp).
func (m *Model) Current() wal.LSN { return wal.LSN(max(m.applied.Load(), m.caught.Load())) }

// SetFollowing says whether the model follows the mirror's commits: true
// once its first catch-up is applied, false when its subscription ended.
func (m *Model) SetFollowing(on bool) { m.following.Store(on) }

// Following implements snapshot.Following.
func (m *Model) Following() bool { return m.following.Load() }

// LSN is the position of the last batch the model applied whole.
func (m *Model) LSN() wal.LSN { return wal.LSN(m.applied.Load()) }

// Batches is the number of batches applied.
func (m *Model) Batches() int64 { return m.batches.Load() }

// Table returns the named table's state, or nil.
func (m *Model) Table(name string) *Table {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.tables[name]
}

// Tables returns the names of the tables the model holds, sorted.
func (m *Model) Tables() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	names := make([]string, 0, len(m.tables))
	for n := range m.tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ErrUnusable is returned by Apply and Checkpoint once an Apply failed
// part-way (Model.Unusable): the owner Resets the model and subscribes it
// again, which rebuilds it from the trees.
var ErrUnusable = errors.New("head: the in-memory model is unusable after a failed apply; it must be reset and rebuilt")

// Apply implements mirror.Consumer: it applies every table of the batch,
// each whole under its own write lock, then advances the model's LSN.
//
// An error after the batch changed any table leaves tables at different
// versions: the model is marked unusable (nothing is served from it from
// then on) until Reset. An error before any change (a tree read failing
// on the first table, a cancelled context) leaves it as it was, usable
// and brought forward again by a new subscription.
func (m *Model) Apply(ctx context.Context, b *mirror.Batch) error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.unusable.Load() {
		return ErrUnusable
	}
	start := time.Now()
	changed, err := m.applyBatch(ctx, b)
	m.logApplied(b, start, err)
	if err != nil && changed {
		m.unusable.Store(true)
		// Every table, not only those the batch reached: a reader must
		// not go on with a table it looked up before the flag.
		m.mu.RLock()
		for _, t := range m.tables {
			t.retired.Store(true)
		}
		m.mu.RUnlock()
		return fmt.Errorf("%w (%w)", err, ErrUnusable)
	}
	return err
}

// slowBatch is how long a batch's Apply may take before it is logged
// (a reset, a table sent whole, is always logged): the time from a copy
// holding every row to the HEAD serving it is made of these.
const slowBatch = time.Second

// logApplied logs a batch that sent a table whole or took slowBatch or
// more, with how long it took, so that the daemon's log says where the
// time from a copy's end to the HEAD being ready went.
func (m *Model) logApplied(b *mirror.Batch, start time.Time, err error) {
	p := m.opts.Persist
	if p == nil || p.Logger == nil {
		return
	}
	took := time.Since(start)
	var resets []string
	for _, tb := range b.Tables {
		if tb.Reset {
			resets = append(resets, tb.Table)
		}
	}
	if len(resets) == 0 && took < slowBatch {
		return
	}
	p.Logger.Info("in-memory HEAD applied a batch", "kind", b.Kind, "lsn", b.LSN, "tables", len(b.Tables), "reset", resets,
		"took", took.Round(time.Millisecond), "err", err)
}

// Unusable reports whether an Apply failed part-way since the last Reset.
func (m *Model) Unusable() bool { return m.unusable.Load() }

// Reset empties the model — no table, position zero — so that a new
// subscription sends every table whole and rebuilds it from the trees.
// Tables handed out before are retired: nothing of them is served again.
// The owner calls it after an Apply failed part-way (Unusable), once the
// failed subscription has stopped.
func (m *Model) Reset() {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	m.mu.Lock()
	for _, t := range m.tables {
		t.retired.Store(true)
		t.dropPast()
		t.charge.Set(0) // dropped: its index is garbage
	}
	m.tables = map[string]*Table{}
	m.mu.Unlock()
	m.copied = map[string]wal.LSN{}
	m.declined = map[string]*declinedTable{}
	m.resend = nil
	m.applied.Store(0)
	m.caught.Store(0)
	m.unusable.Store(false)
}

// SetApplyFault makes Apply call f before it applies each table of a
// batch, failing there when f returns an error (nil removes it). For
// tests: a failure injected between the tables of one batch is an Apply
// that failed part-way.
func (m *Model) SetApplyFault(f func(table string, lsn wal.LSN) error) {
	if f == nil {
		m.fault.Store(nil)
		return
	}
	m.fault.Store(&f)
}

// applyBatch is Apply under wmu; changed reports whether any table's
// state was changed (or replaced) before an error.
func (m *Model) applyBatch(ctx context.Context, b *mirror.Batch) (changed bool, _ error) {
	for i := range b.Tables {
		tb := &b.Tables[i]
		if f := m.fault.Load(); f != nil {
			if err := (*f)(tb.Table, b.LSN); err != nil {
				return changed, fmt.Errorf("head: %s: %w", tb.Table, err)
			}
		}
		t := m.Table(tb.Table)
		if d := m.declined[tb.Table]; d != nil && t == nil && !tb.Reset {
			// A table the model declines (decline.go): only its long
			// keys are followed; its reads go to the tree.
			if err := m.followDeclined(ctx, tb.Table, d, tb); err != nil {
				return changed, fmt.Errorf("head: %s (declined): %w", tb.Table, err)
			}
			continue
		}
		if t == nil && !tb.Reset {
			// Edits of a table the model never received whole: building
			// it from them would serve a table of only those rows.
			return changed, fmt.Errorf("head: %s: changes of a table whose rows were never sent", tb.Table)
		}
		if t == nil || tb.Reset || !sameSchema(t.rel, tb.Relation) {
			if !tb.Reset && t != nil {
				// A new schema without a reset would be a mirror bug:
				// the rows below were not sent. Refuse rather than guess.
				return changed, fmt.Errorf("head: %s: schema changed without a reset", tb.Table)
			}
			// A reset's rows: built from the copy's rows (copybuild.go)
			// or read from the tree.
			nt, err := m.newResetTable(ctx, tb, uint64(b.LSN))
			if isKeyTooLong(err) {
				// Only this table leaves the model (decline.go).
				if derr := m.decline(ctx, tb.Table, t, err, b.LSN, tb.Whole); derr != nil {
					return changed, fmt.Errorf("head: %s: %w", tb.Table, derr)
				}
				changed = true
				continue
			}
			if err != nil {
				// nt was never installed: the model's tables are as before.
				return changed, fmt.Errorf("head: %s: %w", tb.Table, err)
			}
			if t != nil {
				t.retired.Store(true) // before applied moves: see servable
				t.dropPast()
				t.charge.Set(0)
			}
			m.mu.Lock()
			m.tables[tb.Table] = nt
			m.mu.Unlock()
		} else if err := t.apply(ctx, tb, uint64(b.LSN)); isKeyTooLong(err) {
			// Checked before the heap changed: the table is as before,
			// and leaves the model (decline.go). It held no long key, so
			// the batch's edits are all of them.
			if derr := m.decline(ctx, tb.Table, t, err, b.LSN, tb.Edits); derr != nil {
				return changed, fmt.Errorf("head: %s: %w", tb.Table, derr)
			}
			changed = true
			continue
		} else if err != nil {
			// The heap rolls a failed batch back and the index changes
			// after it cannot fail, so t is as before unless the failure
			// came from the heap after all; only a cancelled read of the
			// batch's edits is known to have changed nothing.
			return changed || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded),
				fmt.Errorf("head: %s: %w", tb.Table, err)
		}
		changed = true
		m.copied[tb.Table] = tb.CopiedAt
	}
	m.applied.Store(uint64(b.LSN))
	m.batches.Add(1)
	if p := m.opts.Persist; p != nil && p.Every >= 0 {
		every := p.Every
		if every == 0 {
			every = 5 * time.Minute
		}
		if m.lastCkpt.IsZero() {
			m.lastCkpt = time.Now()
		} else if time.Since(m.lastCkpt) >= every {
			// Cut here, written beside the next batches: Apply waits for
			// the cut only (the write took ~9 min after a 10M-row copy at
			// load 50–80, and the subscription delivered nothing meanwhile).
			m.startCheckpointLocked()
		}
	}
	return true, nil
}

func sameSchema(a, b *wal.Relation) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i].Name != b.Columns[i].Name || a.Columns[i].TypeOID != b.Columns[i].TypeOID {
			return false
		}
	}
	return true
}

// Table is one table's HEAD: heap + index + keys, changed together.
type Table struct {
	m    *Model // the model holding it (its version and counters)
	name string
	rel  *wal.Relation
	hp   *heap.Heap
	ix   *radixindex.Index
	keys keyStore // under ix's lock
	// images is the mapped index and key store files the table was
	// restored from (nil: none; ckptfile.go), kept for the process's life.
	images *tableImages
	// charge is the index and key store's bytes, charged to the heaps'
	// page budget (heap.memory, when the model has one): they grow with
	// the table and bound the decoded pages (chargeLocked).
	charge *heap.Charge
	lsn    atomic.Uint64
	// retired: the table was replaced (a reset); its state is that of an
	// older copy and must not be served.
	retired atomic.Bool
	// past holds the table's heap before its last few batches (oldest
	// first), for scans at a version the model has just moved past.
	// pastDrops counts dropPast calls: a state taken before one is not
	// kept after it (keepPast).
	pastMu    sync.Mutex
	past      []pastState
	pastDrops uint64

	// opKeys and opIDs are applyOps' per-batch slices, reused (writer
	// only, under ix's write lock or before the table is shared): a copy
	// applies ~60 batches of resetChunkRows per 1M rows, each slice fresh
	// memory before (a first touch costs ~20 µs a 4 KiB page on this VM
	// under load). Kept only up to opScratchMax entries.
	opKeys [][]byte
	opIDs  []heap.RowID
}

// opScratchMax bounds the batch slices a table keeps for reuse.
const opScratchMax = 64 << 10

// pastState is the table's heap as it was for versions [from, until):
// before the batch at until. A statement resolves HEAD, then plans, then
// opens its tables; under a steady update load the model has often
// applied the next commit meanwhile, and without these a count(*) went to
// the tree (minutes at 3M rows, restart-2026-12-05.md) with the model
// ready. Only heap snapshots are kept (scans); key reads at such a
// version use the tree, which is fast for them.
type pastState struct {
	from, until uint64
	snap        *heap.Snapshot
	kept        time.Time
}

// Bounds of Table.past: a state is dropped at the next batch once it is
// older than pastKeep, or when pastMax newer ones are kept. What a state
// pins is the pages the batches after it rewrote.
const (
	pastMax  = 4
	pastKeep = 2 * time.Second
)

// keepPast records prev, the heap before the batch at until, valid from
// from, and drops what is past the bounds. drops is pastDropped as read
// before prev was taken: when dropPast ran since, prev is released, not
// kept. The warmer drops the past states once a mapped restore's pages
// are warm (their versions pin the restored checkpoint's images) without
// wmu, so it can run while a batch holds a snapshot taken before the
// warmer's last step; kept after it, that snapshot pinned every restored
// page of the table until a later batch dropped it — on a table no batch
// reaches, for good: the images were never released (issue 26).
func (t *Table) keepPast(prev *heap.Snapshot, from, until, drops uint64) {
	now := time.Now()
	t.pastMu.Lock()
	defer t.pastMu.Unlock()
	if t.pastDrops != drops {
		prev.Release()
		return
	}
	t.past = append(t.past, pastState{from: from, until: until, snap: prev, kept: now})
	drop := 0
	for drop < len(t.past) && (len(t.past)-drop > pastMax || now.Sub(t.past[drop].kept) > pastKeep) {
		t.past[drop].snap.Release()
		drop++
	}
	t.past = append(t.past[:0], t.past[drop:]...)
}

// pastAt is a snapshot of the table's heap at version at from its kept
// past states (nil when none covers at). The caller releases it.
func (t *Table) pastAt(at uint64) *heap.Snapshot {
	t.pastMu.Lock()
	defer t.pastMu.Unlock()
	for _, p := range t.past {
		if p.from <= at && at < p.until {
			return p.snap.Clone()
		}
	}
	return nil
}

// pastDropped is how many times dropPast ran (keepPast).
func (t *Table) pastDropped() uint64 {
	t.pastMu.Lock()
	defer t.pastMu.Unlock()
	return t.pastDrops
}

// dropPast releases every kept past state, and every state taken before
// it that keepPast is still to record.
func (t *Table) dropPast() {
	t.pastMu.Lock()
	defer t.pastMu.Unlock()
	t.pastDrops++
	for _, p := range t.past {
		p.snap.Release()
	}
	t.past = nil
}

func (m *Model) newTable(name string, rel *wal.Relation, cfg heap.Config) (*Table, error) {
	if rel == nil {
		return nil, errors.New("no relation")
	}
	var s heap.Schema
	for _, c := range rel.Columns {
		s.Columns = append(s.Columns, heap.Column{Name: c.Name, Kind: heap.KindForOID(c.TypeOID)})
	}
	hp, err := heap.New(s, cfg)
	if err != nil {
		return nil, err
	}
	t := &Table{m: m, name: name, rel: rel, hp: hp, charge: cfg.Budget.NewCharge()}
	t.ix = radixindex.NewIndex(func(dst []byte, id uint64) []byte { return t.keys.key(heap.RowID(id)) })
	return t, nil
}

// Relation is the table's schema.
func (t *Table) Relation() *wal.Relation { return t.rel }

// Heap is the table's heap (scans read its snapshots).
func (t *Table) Heap() *heap.Heap { return t.hp }

// pending is one edit waiting for its row id.
type pending struct {
	key []byte
	op  int // index into ops
}

// apply applies one table batch: the heap batch and the index changes
// inside one index write lock.
func (t *Table) apply(ctx context.Context, tb *mirror.TableBatch, lsn uint64) error {
	var err error
	if tb.Reset && t.ix.Len() > 0 {
		return errors.New("reset of a table that holds rows") // callers build a new Table
	}
	var prev *heap.Snapshot
	var drops uint64
	from := t.lsn.Load()
	if !tb.Reset && from < lsn {
		drops = t.pastDropped() // before the snapshot: see keepPast
		prev = t.hp.Snapshot()  // the state before this batch (writers are serialised by wmu)
		if t.m.pastTaken != nil {
			t.m.pastTaken(t)
		}
	}
	defer func() {
		if prev != nil {
			if err == nil {
				t.keepPast(prev, from, lsn, drops)
			} else {
				prev.Release()
			}
		}
	}()
	t.ix.Update(lsn, func(tr *radixindex.Tree) {
		chunk := 0
		if tb.Reset { // a new table, not served until applied whole
			chunk = resetChunkRows
		}
		err = t.applyChunked(tr, func(fn func(prolly.Edit) error) error { return tb.Edits(ctx, fn) }, lsn, chunk)
	})
	if err == nil {
		t.lsn.Store(lsn)
	}
	return err
}

// applyLocked applies edits, a table's changes in key order, under the
// index's write lock, as one heap batch.
func (t *Table) applyLocked(tr *radixindex.Tree, edits func(fn func(prolly.Edit) error) error, lsn uint64) error {
	return t.applyChunked(tr, edits, lsn, 0)
}

// resetChunkRows is how many rows of a table sent whole (a copy, a
// resync, a rebuild from the trees) are applied to the heap at once: the
// table is not served until all of them are in, so it need not be one
// heap batch, and chunks keep the rows buffered here, and the decoded
// pages of the batch being published (never made cold), small.
const resetChunkRows = 16 << 10

// applyChunked is applyLocked in heap batches of at most chunk rows (0:
// one batch). Only a table nobody reads yet may be applied in chunks:
// a reader could see the heap between two of them.
func (t *Table) applyChunked(tr *radixindex.Tree, edits func(fn func(prolly.Edit) error) error, lsn uint64, chunk int) error {
	// Edits alias memory valid only during the callback: keys and rows are
	// copied into two arenas (amortised growth, no allocation per row) and
	// sliced once the batch is complete.
	var ops []heap.Op
	var keyEnds, rowEnds []int // per op: end offsets in the arenas
	var karena, rarena []byte
	err := edits(func(e prolly.Edit) error {
		id, found := tr.Get(e.Key)
		switch {
		case e.Delete && !found:
			return nil // deleted before we saw it: nothing to do
		case e.Delete:
			ops = append(ops, heap.Op{Kind: heap.OpDelete, ID: heap.RowID(id)})
		case found:
			ops = append(ops, heap.Op{Kind: heap.OpUpdate, ID: heap.RowID(id)})
			rarena = append(rarena, e.Value...)
		default:
			ops = append(ops, heap.Op{Kind: heap.OpInsert})
			rarena = append(rarena, e.Value...)
		}
		karena = append(karena, e.Key...)
		keyEnds = append(keyEnds, len(karena))
		rowEnds = append(rowEnds, len(rarena))
		if chunk > 0 && len(ops) >= chunk {
			if err := t.applyOps(tr, ops, keyEnds, rowEnds, karena, rarena, lsn); err != nil {
				return err
			}
			ops, keyEnds, rowEnds, karena, rarena = ops[:0], keyEnds[:0], rowEnds[:0], karena[:0], rarena[:0]
		}
		return nil
	})
	if err != nil {
		return err
	}
	return t.applyOps(tr, ops, keyEnds, rowEnds, karena, rarena, lsn)
}

// applyOps applies one heap batch of ops (keys and rows in the arenas,
// ending at keyEnds and rowEnds) and the index changes it makes. Nothing
// keeps the arenas' bytes (the heap copies rows into its pages, the key
// store keys into its own per-page buffers, the radix index stores no
// keys): the caller may reuse both arenas for its next batch.
func (t *Table) applyOps(tr *radixindex.Tree, ops []heap.Op, keyEnds, rowEnds []int, karena, rarena []byte, lsn uint64) error {
	keys := slices.Grow(t.opKeys[:0], len(ops))[:len(ops)]
	defer func() {
		clear(keys) // no reference to the caller's arena is kept
		if cap(keys) <= opScratchMax {
			t.opKeys = keys[:0]
		}
	}()
	// Key lengths are checked before the heap changes: a failure here
	// applies nothing of the batch.
	prev := 0
	for _, ke := range keyEnds[:len(ops)] {
		if ke-prev > radixindex.MaxKeyLen {
			return keyTooLong(ke - prev)
		}
		prev = ke
	}
	ks, rs := 0, 0
	for i := range ops {
		keys[i] = karena[ks:keyEnds[i]:keyEnds[i]]
		ks = keyEnds[i]
		if ops[i].Kind != heap.OpDelete {
			ops[i].Row = rarena[rs:rowEnds[i]:rowEnds[i]]
		}
		rs = rowEnds[i]
	}
	ids, err := t.hp.ApplyInto(heap.Batch{LSN: lsn, Ops: ops}, t.opIDs)
	if err != nil {
		return err
	}
	if cap(ids) <= opScratchMax {
		t.opIDs = ids[:0]
	}
	defer t.chargeLocked(tr)
	for i, op := range ops {
		id := ids[i]
		switch op.Kind {
		case heap.OpDelete:
			tr.Delete(keys[i])
			t.keys.drop(op.ID)
		case heap.OpInsert:
			t.keys.set(id, keys[i])
			tr.Put(keys[i], uint64(id))
		case heap.OpUpdate:
			if id != op.ID { // moved to another page
				t.keys.set(id, keys[i])
				tr.Put(keys[i], uint64(id))
				t.keys.drop(op.ID)
			}
		}
	}
	return nil
}

// chargeLocked charges the index and key store's bytes now to the heaps'
// page budget (under the index's write lock, or before the table is
// shared): the heaps' decoded pages get what they leave of heap.memory,
// and a heap publishing its next batch makes pages cold to fit.
//
// Of a table restored from mapped image files (ckptfile.go), what is
// charged is the memory of the index's and key store's own (what changes
// copied) and the mapped pages resident in the process; when that would
// take the budget past its limit, the mapped pages are dropped from the
// process (clean and file-backed, they cost nothing to drop: the next
// touch reads them back) before the heaps' decoded pages give way.
func (t *Table) chargeLocked(tr *radixindex.Tree) {
	if !t.charge.Budgeted() {
		return
	}
	t.charge.Set(t.indexCharge(tr))
}

// indexCharge is what chargeLocked charges (the caller holds the index's
// lock, read or write).
func (t *Table) indexCharge(tr *radixindex.Tree) int64 {
	im := t.images
	if im == nil {
		return int64(tr.MemoryBytes() + t.keys.memoryBytes())
	}
	own := int64(tr.MemoryBytes() - tr.MappedBytes() + t.keys.memoryBytes() - t.keys.mappedBytes())
	res := im.residentBytes()
	if res > 0 && t.charge.Over(own+res) {
		im.evict()
		res = 0
	}
	return own + res
}

// ChargeIndex charges the table's index and key store to heap.memory
// again (chargeLocked) and returns what it charged: reads fault mapped
// pages in without a batch, so the owner calls it when it reports the
// budget (status, /metrics).
func (t *Table) ChargeIndex() int64 {
	var n int64
	t.ix.View(func(tr *radixindex.Tree, _ uint64) {
		n = t.indexCharge(tr)
		if t.charge.Budgeted() {
			t.charge.Set(n)
		}
	})
	return n
}

// ErrNotAtVersion is returned by reads when the model is not at the
// version asked for: the caller reads the tree instead.
var ErrNotAtVersion = errors.New("head: the in-memory model is not at that version")

// servable reports whether the table's state, read under its lock, is the
// state at version at: no batch after the table's own LSN touched it up to
// at (the model applied everything up to at), and the table is not past at.
//
// applied is loaded first: a writer that replaces a table retires the old
// one before it moves applied, so a reader that sees applied at or past the
// replacement also sees the old table retired. caught counts as applied:
// it moves only after Apply returned (the same goroutine), and says that
// no batch up to it is left.
//
// ilsn is the index's LSN (radixindex.Index.View's): the LSN of a batch
// whose index and heap changes are in (Update sets it before unlocking),
// while t.lsn moves only after; a reader between the two saw t.lsn of the
// batch before with the heap of this one.
func (m *Model) servable(t *Table, at wal.LSN, ilsn uint64) bool {
	if m.unusable.Load() || m.Current() < at {
		return false
	}
	return !t.retired.Load() && max(t.lsn.Load(), ilsn) <= uint64(at)
}

// behind says, without the table's lock, that the model has not applied
// version at yet, so no read of it can be served (servable says so again
// under the lock). A reader checks it first: while a batch is applied the
// index's write lock is held — after a restart the catch-up since the
// checkpoint is one batch of seconds — and a reader that only learns
// under the lock that it must go to the tree waited for all of it (a
// point get 5 s after a restart at 1M rows, issue 21 item 11).
func (m *Model) behind(at wal.LSN) bool { return m.Current() < at }

// Get appends the canonical row stored under key in table as of version
// at to dst. It returns ErrNotAtVersion when the model cannot answer for
// that version, and found=false when the key has no row.
func (m *Model) Get(table string, key []byte, at wal.LSN, dst []byte) (row []byte, found bool, err error) {
	t := m.Table(table)
	if t == nil {
		return dst, false, ErrNotAtVersion
	}
	return m.get(t, key, at, dst)
}

func (m *Model) get(t *Table, key []byte, at wal.LSN, dst []byte) (row []byte, found bool, err error) {
	if m.behind(at) {
		return dst, false, ErrNotAtVersion
	}
	err = ErrNotAtVersion
	t.ix.View(func(tr *radixindex.Tree, ilsn uint64) {
		if !m.servable(t, at, ilsn) {
			return
		}
		err = nil
		id, ok := tr.Get(key)
		if !ok {
			return
		}
		snap := t.hp.Snapshot()
		defer snap.Release()
		if row, found, err = snap.RowErr(dst, heap.RowID(id), nil); err != nil {
			err = fmt.Errorf("head: %s: %w", t.name, err)
		}
	})
	if !found {
		row = dst
	}
	return row, found, err
}

// Range calls fn with each key ≥ from and < to (nil: unbounded) and its
// row, in key order, as of version at, at most limit rows (limit ≤ 0: no
// limit), until fn returns false. The whole range is read under one read
// lock, so it is one committed state; apply waits meanwhile, so callers
// bound it (a full key-order scan of a large table belongs on the tree).
// key and row are valid only during fn.
func (m *Model) Range(table string, from, to []byte, limit int, at wal.LSN, fn func(key, row []byte) bool) error {
	t := m.Table(table)
	if t == nil {
		return ErrNotAtVersion
	}
	return m.rangeOf(t, from, to, limit, at, nil, fn)
}

func (m *Model) rangeOf(t *Table, from, to []byte, limit int, at wal.LSN, cols []int, fn func(key, row []byte) bool) error {
	if m.behind(at) {
		return ErrNotAtVersion
	}
	err := ErrNotAtVersion
	t.ix.View(func(tr *radixindex.Tree, ilsn uint64) {
		if !m.servable(t, at, ilsn) {
			return
		}
		err = nil
		snap := t.hp.Snapshot()
		defer snap.Release()
		it := tr.Iter(nil)
		ok := it.First()
		if from != nil {
			ok = it.Seek(from)
		}
		var buf []byte
		for n := 0; ok && (limit <= 0 || n < limit); n++ {
			k := it.Key()
			if to != nil && bytes.Compare(k, to) >= 0 {
				return
			}
			var live bool
			var rerr error
			if buf, live, rerr = snap.RowErr(buf[:0], heap.RowID(it.RowID()), cols); rerr != nil {
				err = fmt.Errorf("head: %s: %w", t.name, rerr) // a cold page that cannot be read back
				return
			}
			if !live {
				err = fmt.Errorf("head: %s: index names row id %d, which the heap does not hold", t.name, it.RowID())
				return
			}
			if !fn(k, buf) {
				return
			}
			ok = it.Next()
		}
	})
	return err
}

// Len is the number of rows of the table in the model (0 when absent).
func (m *Model) Len(table string) int {
	t := m.Table(table)
	if t == nil {
		return 0
	}
	return t.ix.Len()
}

// MemoryBytes is the model's footprint in the index and key store of each
// table (the heap reports its own).
func (t *Table) IndexBytes() (index, keys int) {
	t.ix.View(func(tr *radixindex.Tree, _ uint64) {
		index, keys = tr.MemoryBytes(), t.keys.memoryBytes()
	})
	return index, keys
}

// HeadTable implements history.HeadReader: the table's state, served
// through its HeadGet and HeadRange.
func (m *Model) HeadTable(table string) (history.HeadTable, bool) {
	t := m.Table(table)
	if t == nil {
		return nil, false
	}
	return t, true
}

// HeadGet implements history.HeadTable over Model.Get.
func (t *Table) HeadGet(key []byte, at wal.LSN, dst []byte) ([]byte, bool, bool) {
	row, found, err := t.m.get(t, key, at, dst)
	if err != nil {
		return dst, false, false
	}
	t.m.served.Add(1)
	return row, found, true
}

// HeadRange implements history.HeadTable over Model.Range, with each row
// projected to cols (nil: every column) by the heap.
func (t *Table) HeadRange(from, to []byte, limit int, at wal.LSN, cols []int, fn func(key, row []byte) bool) (bool, error) {
	err := t.m.rangeOf(t, from, to, limit, at, cols, fn)
	if errors.Is(err, ErrNotAtVersion) {
		return false, nil
	}
	t.m.served.Add(1)
	return true, err
}

// Snapshots is the number of heap snapshots SnapshotAt and SnapshotRange
// handed to scans.
func (m *Model) Snapshots() int64 { return m.snapshots.Load() }

// Served is the number of HeadGet and HeadRange calls the model answered.
func (m *Model) Served() int64 { return m.served.Load() }

// CompactStats describes the full compaction of one table.
type CompactStats struct {
	Table       string        `json:"table"`
	Rows        int           `json:"rows"`  // live rows
	Moved       int           `json:"moved"` // rows whose row id changed
	PagesBefore int           `json:"pages_before"`
	PagesAfter  int           `json:"pages_after"`
	Took        time.Duration `json:"took_ns"`
}

// Compact rewrites the named table's heap densely (full compaction, as
// VACUUM FULL) and rebuilds its index and key store for the moved rows, in
// one write lock: readers see the table before or after, never between.
// It returns the rows that moved. It waits for a batch being applied and
// holds the next one meanwhile, so it is safe while the model is
// subscribed. The next checkpoint stores the compacted pages.
func (m *Model) Compact(table string) (int, error) {
	st, err := m.CompactTable(table)
	return st.Moved, err
}

// CompactTable is Compact with its figures.
func (m *Model) CompactTable(table string) (CompactStats, error) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	t := m.Table(table)
	if t == nil {
		return CompactStats{Table: table}, fmt.Errorf("head compact: %w: %s", ErrNoTable, table)
	}
	start := time.Now()
	st := CompactStats{Table: table, PagesBefore: numPages(t.hp)}
	var err error
	t.ix.Update(t.lsn.Load(), func(tr *radixindex.Tree) {
		st.Moved, err = t.compactLocked(tr)
		st.Rows = tr.Len()
		t.chargeLocked(tr)
	})
	st.PagesAfter, st.Took = numPages(t.hp), time.Since(start)
	return st, err
}

// ErrNoTable: the model holds no table of that name.
var ErrNoTable = errors.New("no such table in the in-memory HEAD")

func numPages(h *heap.Heap) int {
	s := h.Snapshot()
	defer s.Release()
	return s.NumPages()
}

// compactLocked is Compact under the index's write lock. Moved rows change
// ids wholesale (a dense rewrite reuses low ids), so the key store is
// rebuilt and the index bulk-loaded from the old one's order.
func (t *Table) compactLocked(tr *radixindex.Tree) (int, error) {
	moves := t.hp.Compact()
	if len(moves) == 0 {
		return 0, nil
	}
	// Row ids are page<<16 | slot and full compaction renumbers densely:
	// remap by a flat table indexed by page and slot instead of a map.
	rowsPer := t.hp.Config().PageRows
	var maxPage uint32
	for _, mv := range moves {
		maxPage = max(maxPage, mv.Old.Page())
	}
	remap := make([]heap.RowID, (int(maxPage)+1)*rowsPer)
	for _, mv := range moves {
		remap[int(mv.Old.Page())*rowsPer+mv.Old.Slot()] = mv.New + 1 // 0: not moved
	}
	type pair struct {
		key []byte
		id  uint64
	}
	pairs := make([]pair, 0, tr.Len())
	var nk keyStore
	it := tr.Iter(nil)
	for ok := it.First(); ok; ok = it.Next() {
		old := heap.RowID(it.RowID())
		id := old
		if i := int(old.Page())*rowsPer + old.Slot(); i < len(remap) && remap[i] != 0 {
			id = remap[i] - 1
		}
		k := t.keys.key(old)
		nk.set(id, k)
		pairs = append(pairs, pair{key: k, id: uint64(id)})
	}
	t.keys = nk // the old arenas stay valid for the slices in pairs
	err := tr.Rebuild(func(yield func([]byte, uint64) bool) {
		for _, p := range pairs {
			if !yield(p.key, p.id) {
				return
			}
		}
	})
	if err != nil {
		return len(moves), fmt.Errorf("head compact %s: rebuild index: %w", t.name, err)
	}
	return len(moves), nil
}
