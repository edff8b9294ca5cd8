// The copy's end (wal.CopySink.TableCopied): the table is recorded ready
// with its tree, and the changes held for a resync are applied to it.

package mirror

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// TableCopied implements wal.CopySink: the table's runs are
// merged and bulk-built into a tree, which lands (landing.go) once the
// mirror has taken every commit below at: then, in one Badger
// transaction, the table is recorded ready with its root (a table is
// copied at a known LSN or not at all), and the changes held while it
// waited for this resync are applied when their commit LSN is >= at (the
// copy does not contain them) and dropped otherwise. Until it lands the
// copy is held and the table stays resync_needed, its reads after its
// last held version refused; a recorded table's held copy is recorded
// too, and a crash leaves it held at the next start (heldcopy.go).
func (m *Mirror) TableCopied(ctx context.Context, rel *wal.Relation, at wal.LSN) error {
	name := rel.QualifiedName()
	// A GC that began before this build defers its collection until the
	// tree is recorded (RootWatch.Roots, gcbuild.go).
	defer m.builds.begin()()
	m.copyMu.Lock()
	tc := m.copies[name]
	delete(m.copies, name)
	// Still busy while its tree is built and recorded (Busy).
	started := time.Now()
	if tc != nil {
		started = tc.started
	}
	m.building[name] = started
	m.copyMu.Unlock()
	defer func() {
		m.copyMu.Lock()
		delete(m.building, name)
		m.copyMu.Unlock()
	}()
	if tc == nil {
		// A table with no rows may have had no range at all.
		t, err := newTable(tableRecord{Name: name, Rel: rel})
		if err != nil {
			return fmt.Errorf("copy %s: %w", name, err)
		}
		tc = &tableCopy{rel: rel, t: t}
	}
	if tc.dir != "" {
		defer os.RemoveAll(tc.dir)
	}
	// Every range is closed: their spare chunks go back to the pool.
	m.copyPool.Release(tc.spare.drain())
	start := time.Now()
	// The merge's read buffers: their bound is taken from the pool.
	mergeMem := m.opts.CopyMemory / 2
	m.copyPool.Take(mergeMem)
	// Consumers that build from the copy's rows (the in-memory HEAD) got
	// them as the ranges delivered them (copyfeed.go), or get them as the
	// tree is built; their builds are handed over with the reset, or
	// discarded.
	intake := tc.feed.take()
	ordered := m.startCopyBuilds(name, rel, false, intake)
	bs := copyBuilds{}
	maps.Copy(bs, intake)
	maps.Copy(bs, ordered)
	if len(bs) == 0 {
		bs = nil
	}
	handed := false // to the held copy (landDue hands them over or discards them)
	defer func() {
		if !handed {
			bs.discard()
		}
	}()
	root, err := tc.build(ctx, m.eng, mergeMem, ordered)
	m.copyPool.Release(mergeMem)
	// The runs kept in memory are in the tree now (or the copy failed).
	m.releaseRuns(tc)
	if err != nil {
		return err
	}
	if err := m.ns.Flush(ctx); err != nil {
		return fmt.Errorf("copy %s: %w", name, err)
	}
	m.log.Info("table copied", "table", name, "at", at, "rows", tc.rows, "build", time.Since(start),
		"merge_blocked", tc.stats.mergeBlocked, "tree_idle", tc.stats.treeIdle,
		"tree_blocked", tc.stats.treeBlocked, "consumer_idle", tc.stats.consumerIdle,
		"range_chunks", tc.chunks.Load(), "spare_chunks", tc.spare.taken(), "read_chunks", tc.stats.readChunks,
		"intake_builds", len(intake), "intake_rows", tc.feed.rows())

	m.mu.Lock()
	defer m.mu.Unlock()
	for m.txn != nil && m.err == nil {
		m.idle.Wait()
	}
	if m.err != nil {
		return m.err
	}
	if t := m.tables[name]; t != nil && t.rec.State == StateReady {
		// Its changes since the copy's snapshot were applied to the old
		// tree, not held: replacing the tree would lose them.
		return fmt.Errorf("copy %s: the table is ready; call MarkResync before re-copying it so that its changes during the copy are kept", name)
	}
	hc := &heldCopy{name: name, rel: rel, root: root, at: at, rows: tc.rows, started: started, bs: bs}
	if old := m.landing[name]; old != nil {
		old.bs.discard() // a newer copy replaces one still waiting
	}
	if m.landing == nil {
		m.landing = map[string]*heldCopy{}
	}
	m.landing[name] = hc
	handed = true
	if err := m.landDue(ctx, 0); err != nil {
		return err
	}
	if m.landing[name] == hc {
		// The mirror has not taken every commit below at yet: landing
		// now would put rows committed after the head's version into it.
		// The consumers' builds wait with it (handed over at the landing
		// when no held change alters the tree). A recorded table's copy
		// is recorded too, so that a crash before the landing does not
		// cost it the commits up to another copy (heldcopy.go).
		if m.tables[name] != nil {
			if err := m.recordHeld(hc); err != nil {
				return err
			}
		}
		m.noteWaiting(hc, max(m.lastEnd, m.resume))
	}
	return nil
}

// readError marks an error of the tree read under applyHeld's row
// lookups, so it is reported as such rather than taken for a change made
// under another schema.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// applyHeld applies t's held changes with commit LSN >= at to root, in
// commit order. The caller holds mu.
func (m *Mirror) applyHeld(ctx context.Context, t *table, root prolly.Root, at wal.LSN) (prolly.Root, error) {
	set := newEditSet()
	flush := func() error {
		var err error
		root, err = set.apply(ctx, m.eng, root)
		set = newEditSet()
		return err
	}
	current := func(key []byte) ([]byte, bool, error) {
		if v, found, known := set.lookup(key); known {
			return v, found, nil
		}
		v, found, err := m.eng.Get(ctx, root, key)
		if err != nil {
			return nil, false, &readError{err}
		}
		return v, found, nil
	}
	prefix := heldPrefix(t.rec.Name)
	applied := 0
	err := m.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != len(prefix)+12 {
				return fmt.Errorf("%w: held key %x", errCorrupt, k)
			}
			if wal.LSN(binary.BigEndian.Uint64(k[len(prefix):])) < at {
				continue
			}
			var h *heldChange
			if err := it.Item().Value(func(v []byte) (err error) {
				h, err = decodeHeld(slices.Clone(v))
				return err
			}); err != nil {
				return err
			}
			if h.kind == wal.Truncate {
				set.truncate()
			} else if err := rowEdits(t, h.kind, h.oldKind, h.newVals, h.oldVals, current, set.put); err != nil {
				var missing *missingRowError
				var rerr *readError
				if errors.As(err, &missing) {
					return err
				}
				if errors.As(err, &rerr) {
					// The store failed (or ctx ended): not the table's fault.
					return fmt.Errorf("apply held changes of %s: %w", t.rec.Name, rerr.err)
				}
				// Made under another schema than the copy's: the table
				// needs another resync.
				return &missingRowError{table: t.rec.Name, key: nil, reason: err.Error()}
			}
			applied++
			if len(set.m) >= m.opts.SpillRows {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return prolly.Root{}, err
	}
	if applied > 0 {
		m.log.Info("applied changes held during resync", "table", t.rec.Name, "changes", applied)
	}
	return root, flush()
}
