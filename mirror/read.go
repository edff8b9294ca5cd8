package mirror

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// ErrNoVersion is wrapped by errors about an LSN before the first version
// the mirror holds.
var ErrNoVersion = errors.New("no version at or before this LSN")

// ErrUnknownTable is wrapped by errors about a table the mirror does not
// hold.
var ErrUnknownTable = errors.New("table not in the mirror")

// Head returns the latest commit whose record is written (readable by
// TreeAt; durable once Durable reaches it). Its zero value means no commit
// yet.
func (m *Mirror) Head() Version { return *m.readHead.Load() }

// visible waits until every commit applied with end LSN <= lsn is
// written, so a read at lsn sees every version the Sink has taken up to
// it (commits are queued at Commit and written by the writer within
// milliseconds).
func (m *Mirror) visible(lsn wal.LSN) error {
	m.mu.Lock()
	applied := m.head.EndLSN
	m.mu.Unlock()
	if min(lsn, applied) <= m.readHead.Load().EndLSN {
		return nil
	}
	return m.drain()
}

// Versions returns up to limit versions (all when limit <= 0) with end LSN
// in [from, to], oldest first.
func (m *Mirror) Versions(from, to wal.LSN, limit int) ([]Version, error) {
	var out []Version
	if err := m.visible(to); err != nil {
		return nil, fmt.Errorf("list versions %s..%s: %w", from, to, err)
	}
	ret := m.retain.Load()
	err := m.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: logPrefix()})
		defer it.Close()
		for it.Seek(logKey(from)); it.Valid(); it.Next() {
			end, err := lsnOfKey(it.Item().Key())
			if err != nil {
				return err
			}
			if end > to || (limit > 0 && len(out) >= limit) {
				return nil
			}
			if !ret.retained(end) {
				continue
			}
			if err := it.Item().Value(func(b []byte) error {
				v, _, err := decodeLog(end, b, false)
				if err == nil {
					out = append(out, *v)
				}
				return err
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list versions %s..%s: %w", from, to, err)
	}
	return out, nil
}

// VersionAt returns the latest commit with end LSN <= lsn.
func (m *Mirror) VersionAt(lsn wal.LSN) (Version, error) {
	var v *Version
	if err := m.visible(lsn); err != nil {
		return Version{}, fmt.Errorf("version at %s: %w", lsn, err)
	}
	err := m.bdb.View(func(txn *badger.Txn) error {
		var err error
		v, err = versionAt(txn, lsn)
		return err
	})
	if err != nil {
		return Version{}, fmt.Errorf("version at %s: %w", lsn, err)
	}
	if v, err = m.retained(lsn, v); err != nil {
		return Version{}, fmt.Errorf("version at %s: %w", lsn, err)
	}
	if v == nil {
		return Version{}, fmt.Errorf("version at %s: %w", lsn, ErrNoVersion)
	}
	return *v, nil
}

// retained applies retention to v, the latest commit at or before lsn
// found in the log: an error wrapping ErrExpired when the state at lsn
// was expired, nil when lsn is at or after the horizon but v is not (the
// horizon is then a copy's group record, with no commit since).
func (m *Mirror) retained(lsn wal.LSN, v *Version) (*Version, error) {
	r := m.retain.Load()
	var end wal.LSN
	if v != nil {
		end = v.EndLSN
	}
	switch {
	case r.readable(lsn, end):
		return v, nil
	case lsn >= r.Horizon:
		return nil, nil
	}
	return nil, m.expiredError(lsn)
}

func versionAt(txn *badger.Txn, lsn wal.LSN) (*Version, error) {
	it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: logPrefix()})
	defer it.Close()
	it.Seek(logKey(lsn))
	if !it.Valid() {
		return nil, nil
	}
	end, err := lsnOfKey(it.Item().Key())
	if err != nil {
		return nil, err
	}
	var v *Version
	err = it.Item().Value(func(b []byte) (err error) {
		v, _, err = decodeLog(end, b, false)
		return err
	})
	return v, err
}

// TableInfo describes one table of the mirror.
type TableInfo struct {
	Name     string
	State    TableState
	CopiedAt wal.LSN
	// LandedAt is the version at which the copy at CopiedAt landed
	// (landing.go): CopiedAt for the initial copy.
	LandedAt wal.LSN
	// HeldUntil, for a table in state resync_needed whose copy is built,
	// is that copy's LSN: it lands once the stream reaches it.
	HeldUntil wal.LSN
	// Root and Rows are as of the last group record (pending commits not
	// included).
	Root     prolly.Root
	Rows     uint64
	Relation *wal.Relation
}

// Tables lists the tables with a record (ready or resync_needed), by
// name; see Copying for copies in progress.
func (m *Mirror) Tables() []TableInfo {
	m.mu.Lock()
	out := make([]TableInfo, 0, len(m.tables))
	for _, t := range m.tables {
		ti := TableInfo{Name: t.rec.Name, State: t.rec.State, CopiedAt: t.rec.CopiedAt, LandedAt: m.landedAt(t.rec.Name, t.rec.CopiedAt),
			Root: t.rec.Root, Rows: t.rec.Rows, Relation: t.rec.Rel}
		if hc := m.landing[t.rec.Name]; hc != nil {
			ti.HeldUntil = hc.at
		}
		out = append(out, ti)
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b TableInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Copying lists the copies in progress (initial copies and resyncs), with
// state StateCopying and the rows of their closed ranges, by name.
func (m *Mirror) Copying() []TableInfo {
	m.copyMu.Lock()
	defer m.copyMu.Unlock()
	out := make([]TableInfo, 0, len(m.copies))
	for name, tc := range m.copies {
		tc.mu.Lock()
		out = append(out, TableInfo{Name: name, State: StateCopying, Rows: uint64(tc.rows), Relation: tc.rel})
		tc.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b TableInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Tree is one table as of one version, readable through its own engine:
// a version inside a group is materialised by replaying the log onto the
// group's base root, and the nodes that replay writes live in memory only.
type Tree struct {
	Table string
	// Version is the commit the tree shows (the latest with end LSN <= the
	// LSN asked for); zero when the table predates every commit.
	Version Version
	Root    prolly.Root
	// Relation is the schema of the table's rows at this version: the one
	// its latest copy (initial or resync) before the version was made
	// with.
	Relation *wal.Relation
	// Codec encodes primary keys; nil for a REPLICA IDENTITY FULL table,
	// whose key is the whole row's vrow1.
	Codec *rowenc.KeyCodec
	eng   *prolly.Engine
	// pending, from RowsAt only: the version's edits over Root, not
	// applied to it (pending.go).
	pending *pendingRows
}

// Engine returns the engine that can read Root.
func (t *Tree) Engine() *prolly.Engine { return t.eng }

// Get returns the stored vrow1 row under the primary key given as column
// texts (one per identity column).
func (t *Tree) Get(ctx context.Context, pk ...string) ([]byte, bool, error) {
	if t.Codec == nil {
		return nil, false, fmt.Errorf("get %s: REPLICA IDENTITY FULL tables are keyed by the whole row, not a primary key; scan them", t.Table)
	}
	key, err := t.Codec.Encode(pk...)
	if err != nil {
		return nil, false, fmt.Errorf("get %s: %w", t.Table, err)
	}
	v, ok, err := t.Lookup(ctx, key)
	if err != nil {
		return nil, false, fmt.Errorf("get %s at %s: %w", t.Table, t.Version.EndLSN, err)
	}
	return slices.Clone(v), ok, nil
}

// Scan opens a cursor over the rows with start <= key < end (nil: open).
// A tree from RowsAt with pending edits has no cursor of its own: read it
// with Rows.
func (t *Tree) Scan(ctx context.Context, start, end []byte) (*prolly.Cursor, error) {
	if t.pending != nil {
		return nil, fmt.Errorf("scan %s at %s: the version's edits are not in a tree yet (read it with Rows)", t.Table, t.Version.EndLSN)
	}
	return t.eng.Range(ctx, t.Root, start, end)
}

// Count returns the number of rows.
func (t *Tree) Count(ctx context.Context) (uint64, error) {
	if t.pending != nil {
		return t.pending.count(ctx, t.eng, t.Root)
	}
	return t.eng.Count(ctx, t.Root)
}

// TreeAt returns table as of the latest commit with end LSN <= lsn: the
// root of the latest group record at or before it, plus a replay of the
// logged commits after that group up to the version.
func (m *Mirror) TreeAt(ctx context.Context, table string, lsn wal.LSN) (*Tree, error) {
	return m.treeAt(ctx, table, lsn, false, true)
}

// storedTreeAt is TreeAt without the resync window's refusal: the trees
// as stored (a table inside a window reads its tree from before the
// resync), for the consumers' catch-up, which the landing resets.
func (m *Mirror) storedTreeAt(ctx context.Context, table string, lsn wal.LSN) (*Tree, error) {
	return m.treeAt(ctx, table, lsn, false, false)
}

// StoredTreeAt is TreeAt for checking a consumer against the mirror: the
// tree as stored, also inside a resync window, where it is the table's
// rows from before the resync (its changes held, never published), which
// is what a consumer such as the in-memory HEAD holds there until the
// landing resets it. It is not what PostgreSQL had at lsn: a reader
// answering for a version uses TreeAt (or asks Readable first).
func (m *Mirror) StoredTreeAt(ctx context.Context, table string, lsn wal.LSN) (*Tree, error) {
	return m.storedTreeAt(ctx, table, lsn)
}

// RowsAt is TreeAt for a reader that only reads rows (Tree.Lookup,
// Tree.Rows, Tree.Count): while the commits Open replayed from the log
// are being flushed into the trees (Recovered not closed yet), a version
// among them is the last group's tree plus those commits' edits held in
// memory (at most the group Open replayed), with no tree rewritten and
// no wait for that flush (issue 21 item 11: after a restart at 10M rows
// the flush takes seconds, a point get one path of the base tree). The
// Tree's Root is then the base tree, not the version's; Pending says so.
// Otherwise it is TreeAt.
func (m *Mirror) RowsAt(ctx context.Context, table string, lsn wal.LSN) (*Tree, error) {
	return m.treeAt(ctx, table, lsn, true, true)
}

func (m *Mirror) treeAt(ctx context.Context, table string, lsn wal.LSN, rowsOnly, windows bool) (*Tree, error) {
	m.mu.Lock()
	t := m.tables[table]
	var rel *wal.Relation
	var codec *rowenc.KeyCodec
	if t != nil {
		rel, codec = t.rec.Rel, t.codec
	}
	m.mu.Unlock()
	if t == nil {
		return nil, fmt.Errorf("tree of %s at %s: %w", table, lsn, ErrUnknownTable)
	}
	if err := m.visible(lsn); err != nil {
		return nil, fmt.Errorf("tree of %s at %s: %w", table, lsn, err)
	}
	lazy := false
	if lsn > m.recoverFrom && rowsOnly {
		select {
		case <-m.recovered:
		default:
			lazy = true // their edits are read over the base tree
		}
	}
	if lsn > m.recoverFrom && !lazy {
		// The commits replayed at Open are being flushed into the trees:
		// replaying them here too would do that work twice, on the same
		// CPUs.
		select {
		case <-m.recovered:
		case <-ctx.Done():
			return nil, fmt.Errorf("tree of %s at %s: waiting for the commits replayed at open: %w", table, lsn, ctx.Err())
		}
	}
	var base prolly.Root
	var v *Version
	var gEnd wal.LSN
	var ent *cachedTree
	var shared *pendingRows // a lazy read's edits, shared with readers of the same version
	set := newEditSet()
	err := m.bdb.View(func(txn *badger.Txn) error {
		var err error
		if v, err = versionAt(txn, lsn); err != nil {
			return err
		}
		if v, err = m.retained(lsn, v); err != nil {
			return err
		}
		g, err := latestGroup(txn, lsn)
		if err != nil {
			return err
		}
		if g == nil {
			return ErrNoVersion
		}
		gr, ok := g.Roots[table]
		if !ok {
			return &NotCopiedYetError{Table: table, Version: lsn}
		}
		base, gEnd = gr.Root, g.End
		if r, err := relationAt(txn, table, g.End); err != nil {
			return err
		} else if r != nil {
			if codec, err = codecAt(r, rel, codec); err != nil {
				return err
			}
			rel = r
		}
		from := g.End
		// A tree materialised earlier on the same group base is extended
		// instead of replaying the group's log from its start.
		if lazy {
			// Not materialised: every edit after the group is kept,
			// once per version however many read it.
			var vEnd wal.LSN
			if v != nil {
				vEnd = v.EndLSN
			}
			if shared = m.pendings.lookup(table, g.End, base, vEnd); shared != nil {
				return nil
			}
		} else if ent = m.trees.lookup(table, g.End, base, lsn); ent != nil {
			from = ent.upTo
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: logPrefix()})
		defer it.Close()
		for it.Seek(logKey(from + 1)); it.Valid(); it.Next() {
			end, err := lsnOfKey(it.Item().Key())
			if err != nil {
				return err
			}
			if end > lsn {
				break
			}
			err = it.Item().Value(func(b []byte) error {
				_, tables, err := decodeLog(end, slices.Clone(b), true)
				if err != nil {
					return err
				}
				for _, lt := range tables {
					if lt.change.Table != table {
						continue
					}
					if lt.change.Truncated {
						set.truncate()
					}
					for _, e := range lt.edits {
						set.put(string(e.key), edit{val: e.val, del: e.del})
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tree of %s at %s: %w", table, lsn, err)
	}
	var vEnd wal.LSN
	if v != nil {
		vEnd = v.EndLSN
	}
	// Inside a resync window the table has no state of its own at v
	// (landing.go): refused, never the old tree or the copy.
	if err := m.Readable(table, vEnd); err != nil && windows {
		return nil, fmt.Errorf("tree of %s at %s: %w", table, lsn, err)
	}
	if lazy {
		tr := &Tree{Table: table, Root: base, Relation: rel, Codec: codec, eng: m.eng, pending: shared}
		if v != nil {
			tr.Version = *v
		}
		if shared == nil && (set.truncated || len(set.m) > 0) {
			tr.pending = newPendingRows(set)
			m.pendings.store(table, gEnd, base, tr.Version.EndLSN, tr.pending)
		}
		return tr, nil
	}
	eng, root, ov := m.eng, base, (*overlay)(nil)
	if ent != nil {
		eng, root, ov = ent.eng, ent.root, ent.ov
	}
	if set.truncated || len(set.m) > 0 {
		if ov == nil {
			spec, rh := Spec(m.opts.RowHash)
			ov = newOverlay(m.ns)
			if eng, err = prolly.NewEngine(ov, spec, rh); err != nil {
				return nil, fmt.Errorf("tree of %s at %s: %w", table, lsn, err)
			}
		}
		if root, err = set.apply(ctx, eng, root); err != nil {
			return nil, fmt.Errorf("tree of %s at %s: replay: %w", table, lsn, err)
		}
	}
	tr := &Tree{Table: table, Root: root, Relation: rel, Codec: codec, eng: eng}
	if v != nil {
		tr.Version = *v
		if ov != nil && v.EndLSN > gEnd {
			m.trees.store(table, &cachedTree{group: gEnd, base: base, upTo: v.EndLSN, root: root, eng: eng, ov: ov})
		}
	}
	return tr, nil
}

// relationAt returns the Relation of table's trees in the group ending at
// end: the one its latest copy at or before it was made with (nil when no
// copy recorded one).
func relationAt(txn *badger.Txn, table string, end wal.LSN) (*wal.Relation, error) {
	it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: relPrefix(table)})
	defer it.Close()
	it.Seek(relKey(table, end))
	if !it.Valid() {
		return nil, nil
	}
	var rel *wal.Relation
	err := it.Item().Value(func(b []byte) (err error) {
		rel, err = decodeRel(slices.Clone(b))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("relation of %s at %s: %w", table, end, err)
	}
	return rel, nil
}

// treeCache keeps, per table, the last tree materialised inside a group,
// so that reads at successive versions of one group (typically HEAD, as
// commits arrive) replay only the log records after it.
type treeCache struct {
	mu sync.Mutex
	m  map[string]*cachedTree
}

type cachedTree struct {
	group wal.LSN     // the group record's end LSN
	base  prolly.Root // its root for the table
	upTo  wal.LSN     // the last commit replayed onto base
	root  prolly.Root
	eng   *prolly.Engine
	ov    *overlay
}

// maxOverlayBytes bounds the nodes a cached tree's overlay accumulates.
const maxOverlayBytes = 64 << 20

func (c *treeCache) lookup(table string, group wal.LSN, base prolly.Root, lsn wal.LSN) *cachedTree {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[table]
	if e == nil || e.group != group || e.base != base || e.upTo > lsn || e.ov.size() > maxOverlayBytes {
		return nil
	}
	return e
}

func (c *treeCache) store(table string, e *cachedTree) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*cachedTree{}
	}
	if old := c.m[table]; old != nil && old.group == e.group && old.base == e.base && old.upTo > e.upTo {
		return
	}
	c.m[table] = e
}

// Get returns table's row under the primary key pk (column texts) as of
// the latest commit with end LSN <= lsn, as vrow1 bytes.
func (m *Mirror) Get(ctx context.Context, table string, pk []string, lsn wal.LSN) ([]byte, bool, error) {
	tr, err := m.TreeAt(ctx, table, lsn)
	if err != nil {
		return nil, false, err
	}
	return tr.Get(ctx, pk...)
}

// overlay is a NodeStore that reads through to a base store and keeps its
// own writes in memory: materialised versions never reach the disk.
type overlay struct {
	base  prolly.NodeStore
	mu    sync.RWMutex
	mem   map[prolly.Hash]*prolly.Node
	bytes int
}

func (o *overlay) size() int {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.bytes
}

func newOverlay(base prolly.NodeStore) *overlay {
	return &overlay{base: base, mem: map[prolly.Hash]*prolly.Node{}}
}

func (o *overlay) Get(ctx context.Context, h prolly.Hash) (*prolly.Node, error) {
	o.mu.RLock()
	n, ok := o.mem[h]
	o.mu.RUnlock()
	if ok {
		return n, nil
	}
	return o.base.Get(ctx, h)
}

func (o *overlay) GetMany(ctx context.Context, hs []prolly.Hash) ([]*prolly.Node, error) {
	return getManyThrough(ctx, hs, o.lookup, o.base)
}

func (o *overlay) lookup(h prolly.Hash) (*prolly.Node, bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	n, ok := o.mem[h]
	return n, ok
}

// getManyThrough returns the nodes at hs: those mem holds, the rest read
// from base in one GetMany.
func getManyThrough(ctx context.Context, hs []prolly.Hash, mem func(prolly.Hash) (*prolly.Node, bool), base prolly.NodeStore) ([]*prolly.Node, error) {
	out := make([]*prolly.Node, len(hs))
	var miss []prolly.Hash
	var at []int
	for i, h := range hs {
		if n, ok := mem(h); ok {
			out[i] = n
		} else {
			miss = append(miss, h)
			at = append(at, i)
		}
	}
	if len(miss) > 0 {
		ns, err := base.GetMany(ctx, miss)
		if err != nil {
			return nil, err
		}
		for j, n := range ns {
			out[at[j]] = n
		}
	}
	return out, nil
}

func (o *overlay) Put(_ context.Context, h prolly.Hash, _ []byte, n *prolly.Node) error {
	o.mu.Lock()
	if _, ok := o.mem[h]; !ok {
		o.mem[h] = n
		o.bytes += len(n.Bytes())
	}
	o.mu.Unlock()
	return nil
}

func (o *overlay) Flush(context.Context) error { return nil }

// statsCounters count the writer's work for metrics and benchmarks.
type statsCounters struct {
	commits, groups, groupRows, spills, syncs, syncNanos atomic.Int64
	emptyCommits                                         atomic.Int64
	bytesLog, bytesCatalog                               atomic.Int64
	treeChecks                                           atomic.Int64
}

// Stats are cumulative counters of the writer since Open.
type Stats struct {
	Commits int64 // commits applied
	// EmptyCommits counts transactions that changed no followed row and
	// so made no version (verify's catch-up marker among them).
	EmptyCommits int64
	Groups       int64 // group records written (flushes, spilled commits, copies)
	GroupRows    int64 // rows applied to trees by group flushes
	Spills       int64 // transactions spilled to scratch trees
	Syncs        int64 // fsyncs
	SyncNanos    int64 // time spent in them
	// LogBytes and CatalogBytes are the bytes of log, group and table
	// records handed to Badger (keys included for the log).
	LogBytes, CatalogBytes int64
	// NodeBytes is what the node store wrote (compressed), shared with
	// other users of the same node store.
	NodeBytes int64
	// TreeChecks counts the trees Options.StrictChecks checked.
	TreeChecks int64
}

// Stats returns the writer's counters.
func (m *Mirror) Stats() Stats {
	return Stats{
		Commits: m.stats.commits.Load(), EmptyCommits: m.stats.emptyCommits.Load(), Groups: m.stats.groups.Load(), GroupRows: m.stats.groupRows.Load(),
		Spills: m.stats.spills.Load(), Syncs: m.stats.syncs.Load(), SyncNanos: m.stats.syncNanos.Load(),
		LogBytes: m.stats.bytesLog.Load(), CatalogBytes: m.stats.bytesCatalog.Load(),
		NodeBytes: m.ns.Stats().BytesStored, TreeChecks: m.stats.treeChecks.Load(),
	}
}

// NotCopiedYetError refuses a read of Table at Version: the mirror
// follows the table, but only from a later version (it was added to the
// followed tables, or created and followed, after Version), so it holds no
// state of it there. It wraps ErrUnknownTable (callers that treat a table
// unknown at a version alike keep doing so) and carries SQLSTATE 55000
// for the SQL port: the table may well have existed on the server then,
// so "relation does not exist" (42P01) would be a wrong answer.
type NotCopiedYetError struct {
	Table   string
	Version wal.LSN
}

func (e *NotCopiedYetError) Error() string {
	return fmt.Sprintf("%v at %s: sidecar has no history of table %s at version %s (it was first copied at a later version)", ErrUnknownTable, e.Version, e.Table, e.Version)
}

// Unwrap makes errors.Is(err, ErrUnknownTable) hold.
func (e *NotCopiedYetError) Unwrap() error { return ErrUnknownTable }

// SQLState is object_not_in_prerequisite_state, as for a resync window.
func (e *NotCopiedYetError) SQLState() string { return "55000" }
