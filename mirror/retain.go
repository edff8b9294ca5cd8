package mirror

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// Retention: versions older than a horizon are expired by deleting their
// log and group records; the nodes only they reached become garbage for
// refs.CollectGarbage. Expiry works at group granularity: a version
// stays readable while the group record it replays from is kept, so the
// horizon is always a group record's LSN and every version at or after
// it stays whole (its log records are also what the versions after it
// replay). A kept version below the horizon (a tag) keeps its group base
// and the log records between them: an island.

// keyRetain holds the retention record: the horizon and the islands.
var keyRetain = []byte{store.PrefixMeta, 'h'}

// ErrExpired is wrapped by errors about a version that history.retain
// expired (see Mirror.Expire).
var ErrExpired = errors.New("version expired by retention")

// Island is a run of versions kept below the horizon for a tag: the
// group record at Base and every commit in [Base, Kept].
type Island struct {
	Base, Kept wal.LSN
}

// retention is the stored retention state.
type retention struct {
	// Horizon: every version with end LSN >= Horizon is retained.
	Horizon wal.LSN
	Islands []Island // by Base
}

func (r *retention) encode() []byte {
	e := enc{}
	e.byte(recVersion)
	e.uvarint(uint64(r.Horizon))
	e.uvarint(uint64(len(r.Islands)))
	for _, is := range r.Islands {
		e.uvarint(uint64(is.Base))
		e.uvarint(uint64(is.Kept))
	}
	return e.b
}

func decodeRetention(b []byte) (*retention, error) {
	d := dec{b: b}
	if v := d.byte(); v != recVersion && d.err == nil {
		return nil, fmt.Errorf("decode retention: %w: record version %d", errCorrupt, v)
	}
	r := &retention{Horizon: wal.LSN(d.uvarint())}
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		r.Islands = append(r.Islands, Island{Base: wal.LSN(d.uvarint()), Kept: wal.LSN(d.uvarint())})
	}
	return r, d.done("retention")
}

// retained reports whether a version (a log record) at end LSN v is kept.
func (r *retention) retained(v wal.LSN) bool {
	if r == nil || v >= r.Horizon {
		return true
	}
	for _, is := range r.Islands {
		if is.Base <= v && v <= is.Kept {
			return true
		}
	}
	return false
}

// readable reports whether the state as of lsn, whose latest commit is v
// (0: none), can be read: both in the retained range or in one island.
func (r *retention) readable(lsn, v wal.LSN) bool {
	if r == nil || lsn >= r.Horizon && (v >= r.Horizon || v == 0) {
		return true
	}
	for _, is := range r.Islands {
		if is.Base <= lsn && lsn <= is.Kept && (v == 0 || is.Base <= v) {
			return true
		}
	}
	return false
}

// Horizon returns the end LSN from which every version is retained (0:
// nothing has expired) and the islands kept below it for tags.
func (m *Mirror) Horizon() (wal.LSN, []Island) {
	r := m.retain.Load()
	if r == nil {
		return 0, nil
	}
	return r.Horizon, slices.Clone(r.Islands)
}

// expiredError names what is retained.
func (m *Mirror) expiredError(lsn wal.LSN) error {
	h, _ := m.Horizon()
	return fmt.Errorf("%w: %s is before the oldest retained version %s (history.retain)", ErrExpired, lsn, h)
}

func loadRetention(txn *badger.Txn) (*retention, error) {
	item, err := txn.Get(keyRetain)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r *retention
	err = item.Value(func(v []byte) (err error) {
		r, err = decodeRetention(v)
		return err
	})
	return r, err
}

// ExpireStats reports one Expire.
type ExpireStats struct {
	Horizon  wal.LSN // the new horizon (unchanged when nothing expired)
	Islands  int     // kept below it for Keep
	Versions int     // commit log records deleted
	Groups   int     // group records deleted
	Took     time.Duration
}

// Expire drops the versions with end LSN < before, except the versions
// in keep (tags), which stay readable. The horizon moves to the latest
// group record at or before before (never backwards, never past the
// latest group), so versions between it and before stay too. It deletes
// records only: the nodes that only expired versions reached are garbage
// for refs.CollectGarbage, which must not run concurrently with
// readers that resolved a version before Expire (see Reading).
//
// Expire writes the new retention record first and then deletes, so a
// crash in between leaves stale records that readers already ignore and
// the next Expire removes.
func (m *Mirror) Expire(ctx context.Context, before wal.LSN, keep []wal.LSN) (ExpireStats, error) {
	start := time.Now()
	var st ExpireStats
	// A cancelled call fails whether or not there is anything to expire,
	// so a caller's cancellation is never reported as a completed pass.
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("expire: %w", err)
	}
	m.expireMu.Lock()
	defer m.expireMu.Unlock()
	if err := m.drain(); err != nil {
		return st, fmt.Errorf("expire: %w", err)
	}
	old := m.retain.Load()
	var cur retention
	if old != nil {
		cur = *old
	}
	st.Horizon = cur.Horizon
	var delLogs, delGroups, delOrds [][]byte
	err := m.bdb.View(func(txn *badger.Txn) error {
		g, err := latestGroup(txn, before)
		if err != nil {
			return err
		}
		if g == nil || g.End < cur.Horizon {
			return nil // nothing new to expire
		}
		next := retention{Horizon: g.End}
		for _, k := range keep {
			if k >= next.Horizon || !cur.retained(k) {
				continue
			}
			// k is a commit, or a copy's LSN before any commit (a tag on
			// the initial copy): either way the group at or before it and
			// the log up to it keep it.
			b, err := latestGroup(txn, k)
			if err != nil {
				return err
			}
			if b == nil {
				continue
			}
			next.Islands = append(next.Islands, Island{Base: b.End, Kept: k})
		}
		slices.SortFunc(next.Islands, func(a, b Island) int { return cmp.Compare(a.Base, b.Base) })
		isBase := map[wal.LSN]bool{}
		for _, is := range next.Islands {
			isBase[is.Base] = true
		}
		opts := badger.IteratorOptions{Prefix: logPrefix()}
		it := txn.NewIterator(opts)
		for it.Rewind(); it.Valid(); it.Next() {
			end, err := lsnOfKey(it.Item().Key())
			if err != nil {
				it.Close()
				return err
			}
			if end >= next.Horizon {
				break
			}
			if !next.retained(end) {
				delLogs = append(delLogs, it.Item().KeyCopy(nil))
			}
		}
		it.Close()
		ords, err := expiredOrdinals(txn, next.Horizon)
		if err != nil {
			return err
		}
		delOrds = ords
		opts.Prefix = groupPrefix()
		it = txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			end, err := lsnOfKey(it.Item().Key())
			if err != nil {
				return err
			}
			if end >= next.Horizon {
				break
			}
			if !isBase[end] {
				delGroups = append(delGroups, it.Item().KeyCopy(nil))
			}
		}
		cur = next
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("expire before %s: %w", before, err)
	}
	if cur.Horizon == 0 || old != nil && cur.Horizon == old.Horizon && slices.Equal(cur.Islands, old.Islands) &&
		len(delLogs)+len(delGroups)+len(delOrds) == 0 {
		st.Took = time.Since(start)
		return st, nil
	}
	// The record first: readers filter by it, so deleting after it is
	// invisible to them.
	if err := m.update(func(txn *badger.Txn) error { return txn.Set(keyRetain, cur.encode()) }); err != nil {
		return st, fmt.Errorf("expire: write retention: %w", err)
	}
	m.retain.Store(&cur)
	// Deletes are idempotent: rewritten while Badger blocks writes.
	if err := store.RetryBlocked(ctx, func() error {
		wb := m.bdb.NewWriteBatch()
		defer wb.Cancel()
		for i, k := range slices.Concat(delLogs, delGroups, delOrds) {
			if i%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := wb.Delete(k); err != nil {
				return fmt.Errorf("delete %x: %w", k, err)
			}
		}
		return wb.Flush()
	}); err != nil {
		return st, fmt.Errorf("expire: delete records: %w", err)
	}
	st.Horizon, st.Islands, st.Versions, st.Groups = cur.Horizon, len(cur.Islands), len(delLogs), len(delGroups)
	st.Took = time.Since(start)
	m.log.Info("versions expired", "horizon", cur.Horizon, "versions", st.Versions, "groups", st.Groups,
		"islands", st.Islands, "took", st.Took)
	return st, nil
}

// readers counts the read operations in progress per epoch, so GC can
// wait for the ones that began before it expired versions or dropped
// branches (they may hold roots no record names any more) without
// blocking the ones that begin later (they resolve against the new
// records).
type readers struct {
	mu     sync.Mutex
	epoch  uint64
	active map[uint64]int
}

// Reading registers a read of versions (resolving refs, then reading
// trees) until done is called. Long reads (a streamed diff) hold GC's
// sweep back; they never block it from starting.
func (m *Mirror) Reading() (done func()) {
	r := &m.readers
	r.mu.Lock()
	e := r.epoch
	if r.active == nil {
		r.active = map[uint64]int{}
	}
	r.active[e]++
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			if r.active[e]--; r.active[e] == 0 {
				delete(r.active, e)
			}
			r.mu.Unlock()
		})
	}
}

// WaitReaders waits until every read registered (Reading) before the
// call is done.
func (m *Mirror) WaitReaders(ctx context.Context) error {
	r := &m.readers
	r.mu.Lock()
	e := r.epoch
	r.epoch++
	r.mu.Unlock()
	busy := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for ep := range r.active {
			if ep <= e {
				return true
			}
		}
		return false
	}
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for busy() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for readers: %w", ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

// RootWatch records every root the mirror writes into a group record
// while a GC runs, so the GC can mark trees whose records it did not see
// (see WatchRoots).
type RootWatch struct {
	m     *Mirror
	roots []prolly.Root
	// builds is the last copy build begun before the watch (gcbuild.go).
	builds uint64
}

// WatchRoots starts recording roots for a GC and flushes the write queue,
// so every group record queued before it is in Badger: the GC lists
// stored records after this call, and RootWatch.Roots covers the rest.
// The GC's node sweep must have begun (store.NodeStore.BeginSweep): a copy
// build begun after this call has its nodes kept by it. Stop it when the
// GC ends.
func (m *Mirror) WatchRoots() (*RootWatch, error) {
	w := &RootWatch{m: m, builds: m.builds.mark()}
	m.mu.Lock()
	if m.watch != nil {
		m.mu.Unlock()
		return nil, errors.New("watch roots: another GC is running")
	}
	m.watch = w
	m.mu.Unlock()
	if err := m.drain(); err != nil {
		w.Stop()
		return nil, fmt.Errorf("watch roots: %w", err)
	}
	return w, nil
}

// noteRoots records group roots for a running GC. The caller holds mu.
func (m *Mirror) noteRoots(recs map[string]tableRecord) {
	if m.watch == nil {
		return
	}
	for _, r := range recs {
		m.watch.roots = append(m.watch.roots, r.Root)
	}
}

// Roots returns every tree the mirror may reference that a GC listing
// stored records (after WatchRoots) could miss: roots recorded since
// WatchRoots, the tables' current roots, a large transaction's scratch
// trees and the result of a group flush in flight (it waits for that to
// finish: its nodes may predate the GC's sweep version while its records
// come later). Trees started after WatchRoots write their nodes after the
// sweep began, so it keeps them. A table copy that began building its
// tree before WatchRoots and has not recorded it yet is not waited for
// (that took a whole build, 35 min at 100M rows): Roots returns
// ErrCopyBuilding and the GC is deferred.
func (w *RootWatch) Roots(ctx context.Context) ([]prolly.Root, error) {
	m := w.m
	// Held while the roots are listed: a build that ends meanwhile has
	// recorded its tree (under mu) before it deregisters.
	m.builds.mu.Lock()
	defer m.builds.mu.Unlock()
	if m.builds.olderRunningLocked(w.builds) {
		return nil, fmt.Errorf("gc roots: %w", ErrCopyBuilding)
	}
	m.mu.Lock()
	out := slices.Clone(w.roots)
	for _, t := range m.tables {
		out = append(out, t.rec.Root)
	}
	if m.txn != nil {
		for _, tt := range m.txn.tables {
			if tt.scratch != nil {
				out = append(out, *tt.scratch)
			}
		}
	}
	out = append(out, m.streamRoots()...)  // stream.go
	out = append(out, m.landingRoots()...) // landing.go
	fs := m.flushing
	m.mu.Unlock()
	if fs != nil {
		select {
		case <-fs.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("gc roots: wait for group flush: %w", ctx.Err())
		}
		if fs.err == nil {
			for _, r := range fs.roots {
				out = append(out, r.Root)
			}
		}
	}
	return out, nil
}

// Stop ends the recording.
func (w *RootWatch) Stop() {
	w.m.mu.Lock()
	if w.m.watch == w {
		w.m.watch = nil
	}
	w.m.mu.Unlock()
}

// GroupRoots returns the distinct roots named by the retained group
// records, and by the records of copies held until their landing
// (heldcopy.go): every retained version's trees are reachable from them
// (the versions inside a group replay the log onto its roots, in memory).
// Group records below the horizon that are no island's base are skipped:
// an interrupted Expire leaves them, and Badger has been seen to bring
// deleted keys back after value-log GC; their nodes may be gone.
func (m *Mirror) GroupRoots(ctx context.Context) ([]prolly.Root, error) {
	ret := m.retain.Load()
	base := map[wal.LSN]bool{}
	if ret != nil {
		for _, is := range ret.Islands {
			base[is.Base] = true
		}
	}
	seen := map[prolly.Root]bool{}
	var out []prolly.Root
	err := m.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: groupPrefix()})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			end, err := lsnOfKey(it.Item().Key())
			if err != nil {
				return err
			}
			if ret != nil && end < ret.Horizon && !base[end] {
				continue
			}
			if err := it.Item().Value(func(v []byte) error {
				g, err := decodeGroup(end, v)
				if err != nil {
					return err
				}
				for _, r := range g.Roots {
					if !seen[r.Root] {
						seen[r.Root] = true
						out = append(out, r.Root)
					}
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list group roots: %w", err)
	}
	// The held copies' trees: no group names them before their landing.
	err = m.bdb.View(func(txn *badger.Txn) error {
		return eachHeldCopy(txn, func(_ []byte, hc *heldCopy) error {
			if !seen[hc.root] {
				seen[hc.root] = true
				out = append(out, hc.root)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list held copies' roots: %w", err)
	}
	return out, nil
}

// Retained reports whether the commit ending at end is kept by retention
// (at or after the horizon, or in an island). Walks over the commit log's
// keys use it to skip records an interrupted Expire left behind.
func (m *Mirror) Retained(end wal.LSN) bool { return m.retain.Load().retained(end) }

// RelationAt returns the Relation of table's rows as of lsn: the one its
// latest copy at or before lsn was made with, or the current one when no
// copy recorded one. Relation records are never expired, so this also
// answers for trees kept outside the version history (branches).
func (m *Mirror) RelationAt(table string, lsn wal.LSN) (*wal.Relation, error) {
	var rel *wal.Relation
	err := m.bdb.View(func(txn *badger.Txn) (err error) {
		rel, err = relationAt(txn, table, lsn)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("relation of %s at %s: %w", table, lsn, err)
	}
	if rel == nil {
		m.mu.Lock()
		if t := m.tables[table]; t != nil {
			rel = t.rec.Rel
		}
		m.mu.Unlock()
	}
	if rel == nil {
		return nil, fmt.Errorf("relation of %s at %s: %w", table, lsn, ErrUnknownTable)
	}
	return rel, nil
}
