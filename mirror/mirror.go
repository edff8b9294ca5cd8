package mirror

import (
	"context"
	"errors"
	"fmt"
	"github.com/sidecar-dev/sidecar/membudget"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// FormatVersion is the version of the mirror's records (keys and values
// under its prefixes). A data directory written under another version is
// refused by Open.
const FormatVersion = 1

// Defaults of Options.
//
// The group bounds trade bytes written for read and recovery time. A
// group flush rewrites every leaf its commits touched, so under
// single-row updates the bytes written per changed row fall as a group
// grows, until the touched leaves saturate at the table's leaf count.
// Measured on a 1M-row table of incompressible ~110-byte rows
// (TestSustainedLoad -mirror.load.hex; a group of N commits stands for
// N/4,800 s at the replication benchmark's 4.8k txn/s), bytes to Badger
// per changed row: 4,800 commits (1 s) 3.9 KB, 48,000 (10 s) 1.5-1.8 KB,
// 144,000 (30 s) 0.8-0.97 KB. The costs: a read of a version inside a
// group replays the group's log from its base (BenchmarkTreeAtInGroup,
// 100k rows, random version: 20 ms at 4,800 commits, 76 ms at 48,000,
// 119 ms at 144,000; reads at the head extend a cached tree, ~0.1 ms);
// Open after a crash replays up to one group (0.08 s, 0.42 s, 0.47 s);
// pending edits stay in memory up to GroupMaxBytes. Acknowledgement
// does not wait for groups (the commit log is synced on its own), so lag
// is unaffected. A 10M-row table has ten times the leaves: 30 s at that
// rate still rewrites most touched leaves for few rows each, so 1 KiB
// there needs longer groups than the read cost above makes a good
// default. The commit and row bounds sit above 30 s at 4.8k txn/s, so
// age decides there and they cap the replay at faster rates.
//
// The spill bounds were measured against larger chunks and kept: a
// 500k-row UPDATE of a 1M-row table (TestBigUpdate) applies in 1.6-1.8 s
// of CPU with 203-208 MiB peak heap at 100k rows / 8 MiB, and in
// 2.9-3.2 s with 606-609 MiB at 1M / 64 MiB (held unspilled, the whole
// transaction goes through the commit log and the group); a 5M-row
// transaction peaks at 510 MiB of heap at 100k / 8 MiB, 594 MiB at
// 250k / 32 MiB, 1,148 MiB at 1M / 64 MiB (TestHugeTransaction
// -mirror.big). Chunks of a key-ordered UPDATE touch disjoint leaves, so
// more passes do not rewrite the tree again.
const (
	DefaultGroupMaxRows    = 200_000
	DefaultGroupMaxCommits = 150_000
	DefaultGroupMaxBytes   = 64 << 20
	DefaultGroupMaxAge     = 30 * time.Second
	DefaultSpillRows       = 100_000
	DefaultSpillBytes      = 8 << 20
	DefaultCopyRunBytes    = 16 << 20
	DefaultCopyMemory      = 256 << 20
	DefaultSyncInterval    = 5 * time.Millisecond
)

// Options configure a Mirror.
type Options struct {
	// DB is the data directory's store; the Mirror does not close it. A
	// DB opened with store.Options.ReadOnly gives a read-only Mirror (see
	// Open).
	DB *store.DB
	// Nodes is the node store over DB; nil creates one. Pass the daemon's
	// when other components share it (one cache, one write pipeline).
	Nodes *store.NodeStore[*prolly.Node]
	// RowHash is the row hash summed into the trees' digests; it must be
	// the one verify computes in PostgreSQL (default rowhash.PGHash64).
	RowHash rowhash.ID
	// Tables, if set, limits the tables followed (canonical names, see pgident.Table.String); changes
	// to other tables are ignored with a debug log.
	Tables []string
	// CopiedAt, if set, gets every table's copy LSN at TableCopied, so a
	// Streamer sharing it drops the changes the copy already contains.
	CopiedAt *wal.CopiedAt
	// A group of commits is flushed into the trees when it holds
	// GroupMaxCommits commits, GroupMaxRows changed rows, GroupMaxBytes of
	// pending edits, or is GroupMaxAge old. The bounds also bound what a
	// read inside the group replays.
	GroupMaxCommits int
	GroupMaxRows    int
	GroupMaxBytes   int64
	GroupMaxAge     time.Duration
	// A transaction whose pending edits exceed SpillRows rows or
	// SpillBytes bytes is applied to scratch trees in chunks instead of
	// being held in memory, and becomes a group of its own at commit.
	SpillRows  int
	SpillBytes int64
	// SyncInterval is the shortest time between two fsyncs of the
	// commit log: commits arriving meanwhile share the next one. Each
	// fsync writes whole pages, so syncing every commit of a fast stream
	// multiplies the bytes written; the price is up to SyncInterval of
	// extra delay before a commit is acknowledged. Negative: no wait.
	SyncInterval time.Duration
	// CopyRunBytes bounds the rows a copy range buffers before sorting
	// them into a run file under TempDir (default the system's).
	CopyRunBytes int64
	// CopyMemory bounds the memory the initial copy's rows take before
	// they are in the tree: the ranges' buffers and the sorted runs kept
	// in memory (at most half of it; past that, runs go to files under
	// TempDir), and the merge's read buffers (default DefaultCopyMemory).
	// The daemon gives it its share of memory.ingest.
	CopyMemory int64
	TempDir    string
	Logger     *slog.Logger
	// OnGroupFlush, if set, is called with the duration of each group
	// flush (trees mutated, nodes flushed, group record queued), and
	// OnSync with the duration of each fsync that made commits durable:
	// the daemon feeds its latency histograms with them. They must not
	// block.
	OnGroupFlush func(time.Duration)
	OnSync       func(time.Duration)
	// StrictChecks runs prolly's Engine.Check (every structural invariant,
	// a rebuild from scratch) on each tree a group flush produced, before
	// its group record is queued; a failure fails the mirror. O(rows) per
	// flush: for the end-to-end and crash tests (bbolt's StrictMode).
	StrictChecks bool

	// testFlushDelay, in this package's tests, is the mirror's
	// testFlushDelay from the start: set before Open, so that a flush
	// Open itself starts (flushRecovered) reads it without a race.
	testFlushDelay time.Duration
	// testAfterWake, in this package's tests, runs in the writer each
	// time it moved the durable LSN, after it woke the subscriptions.
	testAfterWake func()
}

func (o *Options) defaults() {
	if o.RowHash == 0 {
		o.RowHash = rowhash.PGHash64
	}
	if o.GroupMaxCommits <= 0 {
		o.GroupMaxCommits = DefaultGroupMaxCommits
	}
	if o.GroupMaxRows <= 0 {
		o.GroupMaxRows = DefaultGroupMaxRows
	}
	if o.GroupMaxBytes <= 0 {
		o.GroupMaxBytes = DefaultGroupMaxBytes
	}
	if o.GroupMaxAge <= 0 {
		o.GroupMaxAge = DefaultGroupMaxAge
	}
	if o.SpillRows <= 0 {
		o.SpillRows = DefaultSpillRows
	}
	if o.SpillBytes <= 0 {
		o.SpillBytes = DefaultSpillBytes
	}
	if o.SyncInterval == 0 {
		o.SyncInterval = DefaultSyncInterval
	}
	if o.CopyRunBytes <= 0 {
		o.CopyRunBytes = DefaultCopyRunBytes
	}
	if o.CopyMemory <= 0 {
		o.CopyMemory = DefaultCopyMemory
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Spec returns the Prolly spec of a mirror whose trees sum the row hash id:
// the default chunking, with the row hash of the canonical vrow1 value.
func Spec(id rowhash.ID) (prolly.Spec, prolly.RowHash) {
	spec := prolly.DefaultSpec()
	spec.RowHash = id.String()
	return spec, prolly.RowHash{ID: id.String(), Fn: func(_, value []byte) uint64 { return id.Sum(value) }}
}

// Mirror is the sidecar's single writer: it implements wal.Sink
// and wal.CopySink, keeps every commit as a version, and serves
// reads at any version. Create it with Open; Close it.
type Mirror struct {
	opts   Options
	db     *store.DB
	bdb    *badger.DB
	ns     *store.NodeStore[*prolly.Node]
	ownsNS bool
	eng    *prolly.Engine
	log    *slog.Logger
	follow map[string]bool // nil: every table with a record
	// pending are tables followed while running that have no record yet
	// (followset.go: FollowNew), under mu: their changes are held.
	pending map[string]*table

	// ctx is cancelled by Close; background work runs under it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// mu guards the writer state below. Sink calls come from one
	// goroutine; TableCopied and the background flusher take it too.
	mu     sync.Mutex
	idle   *sync.Cond // signalled when txn becomes nil
	tables map[string]*table
	group  group
	txn    *txnState
	// streams: streamed transactions applied ahead of their commit (stream.go).
	streams streams
	head    Version // latest commit applied
	// lastEnd is the end LSN of the last commit taken, whether it became
	// a version or changed no row (commitEmpty): durable may be past the
	// head by such commits.
	lastEnd   wal.LSN
	lastGroup wal.LSN // end LSN of the latest group record
	resume    wal.LSN
	// reached is the highest LSN the stream reported every commit below
	// taken with none open (StreamReached: an idle stream's position).
	reached wal.LSN
	// lastTime is the latest commit time taken: a landing version's.
	lastTime time.Time
	// landing: copies built and waiting to land; windows: each table's
	// closed resync windows (landing.go). Both under mu.
	landing map[string]*heldCopy
	windows map[string][]resyncWindow
	meta    metaRecord
	err     error // sticky: a failed write leaves the state unknown
	// factsGen counts catalog-fact updates (catfacts.go).
	factsGen atomic.Uint64
	// gone are the tables dropped (or renamed away) in PostgreSQL, as the
	// daemon's poll last found them (gone.go); under goneMu.
	goneMu sync.Mutex
	gone   map[string]bool

	// written is the end LSN of the last commit written to Badger;
	// durable the last one synced. INVARIANT: durable <= written, and
	// durable only moves after a DB.Sync that began after the commit's
	// record was written (see writer.go).
	written  atomic.Uint64
	durable  atomic.Uint64
	readHead atomic.Pointer[Version] // latest commit readers can see

	// The write queue (writer.go); wqMu is never held while taking mu.
	wqMu      sync.Mutex
	wqCond    *sync.Cond
	wq        []*writeOp
	wqBytes   int
	wqClosed  bool
	wqAbandon bool
	writerWG  sync.WaitGroup

	copyMu sync.Mutex
	copies map[string]*tableCopy
	// copyPool is the copy's memory (Options.CopyMemory); copyRunsMem the
	// part of it held by runs kept in memory (under copyMu).
	copyPool    *membudget.Pool
	copyRunsMem int64
	// building: tables whose copy TableCopied is building, with the
	// copy's start (guarded by copyMu; see Busy).
	building map[string]time.Time
	// copyProg: each table's latest copy's rows and rows built into the
	// tree (CopyBuildProgress), kept past the copy (one per table).
	copyProg map[string]*copyProgress

	trees treeCache // materialised versions (read.go)
	// pendings: edits RowsAt reads over a base tree during recovery
	// (pending.go).
	pendings pendingCache

	// recovered is closed once the group Open replayed from the log is
	// applied to the trees and its group record written (flushRecovered),
	// or at once when there was nothing to replay. Reads after recoverFrom
	// (the last group record at Open) wait for it instead of replaying the
	// same commits onto the trees themselves.
	recovered   chan struct{}
	recoverFrom wal.LSN

	// flushing is the group being applied in the background (group.go),
	// guarded by mu; flushWG waits for its goroutine.
	flushing *flushState
	flushWG  sync.WaitGroup
	// testFlushDelay slows background flushes down, so tests see groups
	// in flight.
	testFlushDelay time.Duration
	testAfterWake  func() // Options.testAfterWake

	// Retention (retain.go): the stored record, readers GC waits for,
	// the roots a running GC must see, and copies building trees.
	retain   atomic.Pointer[retention]
	expireMu sync.Mutex
	readers  readers
	watch    *RootWatch // guarded by mu
	builds   builds     // copies building trees (gcbuild.go)
	// ordinal numbers the last commit applied (ordinal.go), guarded by
	// mu; noOrd: a data directory without the commit index.
	ordinal uint64
	noOrd   bool

	stats statsCounters
	subs  subscriptions // derived consumers (consumer.go)
	// resyncNote is signalled when a table enters resync_needed (notify.go).
	resyncNote notifier
}

// table is the in-memory state of one followed table.
type table struct {
	rec     tableRecord
	keyCols []int
	codec   *rowenc.KeyCodec
	// latest is the latest Relation the stream sent for the table, and
	// latestAt the commit LSN of the transaction it came in (0: not
	// known). A copy whose snapshot is past latestAt holds that
	// transaction: latest is no newer than the copy's own description.
	latest   *wal.Relation
	latestAt wal.LSN
	// full: REPLICA IDENTITY FULL, keyed by the whole row.
	full bool
}

func newTable(rec tableRecord) (*table, error) {
	t := &table{rec: rec}
	if err := t.setRelation(rec.Rel); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *table) setRelation(rel *wal.Relation) error {
	keys := rel.KeyColumns()
	if len(keys) == 0 {
		return fmt.Errorf("table %s has no replica identity columns (no primary key, REPLICA IDENTITY NOTHING?)", rel.QualifiedName())
	}
	if rel.Identity == wal.IdentityFull {
		// Every column is the identity, NULLs included: the key is the
		// whole row's vrow1 (rows form a set; see doc.go).
		t.rec.Rel, t.keyCols, t.codec, t.full = rel, keys, nil, true
		return nil
	}
	kinds := make([]rowenc.KeyKind, len(keys))
	for i, k := range keys {
		kinds[i] = rowenc.KindForOID(rel.Columns[k].TypeOID)
	}
	codec, err := rowenc.NewKeyCodec(kinds...)
	if err != nil {
		return fmt.Errorf("table %s key: %w", rel.QualifiedName(), err)
	}
	t.rec.Rel, t.keyCols, t.codec = rel, keys, codec
	return nil
}

// Open loads the mirror's state from opts.DB, creating it in an empty data
// directory. It refuses a directory written under another format, tree
// spec, row hash or row encoding. Commits logged since the last group
// record are replayed into the pending group (nothing acknowledged is
// lost); a table whose copy did not finish has no record and must be
// copied again. The caller must Close the Mirror (before closing DB).
//
// Over a read-only DB the Mirror only reads: it writes no meta record to
// an empty directory, starts no writer or background flusher, every Sink
// and copy call fails with ErrReadOnly, and Close flushes nothing (the
// replayed group stays in memory, as a read inside it needs).
func Open(ctx context.Context, opts Options) (*Mirror, error) {
	opts.defaults()
	if opts.DB == nil {
		return nil, errors.New("open mirror: no store (Options.DB)")
	}
	if !opts.RowHash.Valid() {
		return nil, fmt.Errorf("open mirror: invalid row hash %v", opts.RowHash)
	}
	spec, rh := Spec(opts.RowHash)
	m := &Mirror{
		opts:     opts,
		db:       opts.DB,
		bdb:      opts.DB.Badger(),
		ns:       opts.Nodes,
		log:      opts.Logger,
		tables:   map[string]*table{},
		copies:   map[string]*tableCopy{},
		copyPool: membudget.NewPool("memory.ingest (the copy's share)", opts.CopyMemory),
		building: map[string]time.Time{},
		copyProg: map[string]*copyProgress{},

		testFlushDelay: opts.testFlushDelay,
		testAfterWake:  opts.testAfterWake,
	}
	if m.ns == nil {
		m.ns = store.NewNodeStore[*prolly.Node](opts.DB, prolly.NodeCodec{})
		m.ownsNS = true
	}
	eng, err := prolly.NewEngine(m.ns, spec, rh)
	if err != nil {
		return nil, fmt.Errorf("open mirror: %w", err)
	}
	m.eng = eng
	if opts.Tables != nil {
		m.follow = map[string]bool{}
		for _, t := range opts.Tables {
			m.follow[t] = true
		}
	}
	m.idle = sync.NewCond(&m.mu)
	m.wqCond = sync.NewCond(&m.wqMu)
	m.group.reset()
	if err := m.load(ctx); err != nil {
		return nil, fmt.Errorf("open mirror: %w", err)
	}
	m.ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	m.recovered, m.recoverFrom = make(chan struct{}), m.lastGroup
	if m.readOnly() {
		m.wqClosed = true
		m.err = ErrReadOnly
		close(m.recovered) // nothing is flushed: reads replay the group
		return m, nil
	}
	m.writerWG.Add(1)
	go m.writer()
	m.wg.Add(1)
	go m.background()
	if m.group.commits == 0 {
		close(m.recovered)
	} else {
		m.wg.Add(1)
		go m.flushRecovered()
	}
	return m, nil
}

// Recovered is closed once the commits Open replayed from the log (those
// after the last group record: a crash's) are in the trees under a group
// record of their own, or at once when there were none. Until then the
// first read of a version among them waits for it rather than replaying
// them itself; the daemon starts the in-memory HEAD's restore after it,
// so that the two do not share the CPU (issue 21 item 11).
func (m *Mirror) Recovered() <-chan struct{} { return m.recovered }

// flushRecovered flushes the group Open replayed as soon as the mirror
// is open, instead of when it is GroupMaxAge old: every read of HEAD
// after a crash would otherwise replay those commits onto the trees (for
// a 10M-row table under load, seconds of CPU per table), and the first
// reads come right at the start. It then closes recovered.
func (m *Mirror) flushRecovered() {
	defer m.wg.Done()
	defer m.pendings.clear() // after recovered is closed: no RowsAt reads this way then
	defer close(m.recovered)
	start := time.Now()
	m.mu.Lock()
	commits, rows := m.group.commits, m.group.rows
	err := m.err
	if err == nil {
		err = m.startFlush()
	}
	fs := m.flushing
	m.mu.Unlock()
	if err != nil || fs == nil {
		return // a failed mirror (Err says why), or flushed already
	}
	<-fs.done
	m.mu.Lock()
	if m.flushing == fs { // else a commit's reapFlush finished it
		if err = m.finishFlush(); err != nil {
			m.failLocked(err)
		}
	}
	m.mu.Unlock()
	if err == nil {
		err = m.drain() // the group record readable by TreeAt
	}
	if err != nil {
		m.log.Warn("flushing the commits replayed at open failed", "err", err)
		return
	}
	m.log.Info("commits replayed at open flushed into the trees", "commits", commits, "rows", rows, "group", fs.g.last, "took", time.Since(start))
}

// ErrReadOnly is returned by every write of a Mirror over a read-only
// store (Err reports it too).
var ErrReadOnly = errors.New("mirror opened read-only (no daemon runs; a command that changes the mirror needs `sidecar run` or the data directory to itself)")

func (m *Mirror) readOnly() bool { return m.db.ReadOnly() }

// load reads meta, tables, the latest group and replays the log after it.
func (m *Mirror) load(ctx context.Context) error {
	want := metaRecord{Format: FormatVersion, Spec: m.eng.SpecID(), RowHash: m.opts.RowHash.String(), RowEnc: rowenc.Version}
	err := m.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(keyMeta)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			got, err := decodeMeta(v)
			if err != nil {
				return err
			}
			switch {
			case got.Format != want.Format:
				return fmt.Errorf("data directory holds mirror format %d, this build reads format %d; run a matching sidecar or start over with `sidecar run --resync` in an empty data_dir", got.Format, want.Format)
			case got.RowHash != want.RowHash:
				return fmt.Errorf("data directory's trees sum row hash %q, configured %q; configure %q or start over in an empty data_dir", got.RowHash, want.RowHash, got.RowHash)
			case got.Spec != want.Spec:
				return fmt.Errorf("data directory's trees use prolly spec %s, this build uses %s; start over with `sidecar run --resync` in an empty data_dir", got.Spec, want.Spec)
			case got.RowEnc != want.RowEnc:
				return fmt.Errorf("data directory stores rows as %q, this build writes %q", got.RowEnc, want.RowEnc)
			}
			m.meta = got
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("read meta: %w", err)
	}
	if m.meta.Format == 0 && m.readOnly() {
		m.meta = want
	} else if m.meta.Format == 0 {
		m.meta = want
		if err := m.update(func(txn *badger.Txn) error { return txn.Set(keyMeta, m.meta.encode()) }); err != nil {
			return fmt.Errorf("write meta: %w", err)
		}
	}

	var durable, resume wal.LSN
	var lastGroup *groupRecord
	err = m.bdb.View(func(txn *badger.Txn) error {
		for _, kv := range []struct {
			k []byte
			v *wal.LSN
		}{{keyDurable, &durable}, {keyResume, &resume}} {
			item, err := txn.Get(kv.k)
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := item.Value(func(v []byte) error {
				d := dec{b: v}
				*kv.v = wal.LSN(d.uvarint())
				return d.done("LSN")
			}); err != nil {
				return err
			}
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: tablePrefix()})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var rec *tableRecord
			if err := it.Item().Value(func(v []byte) (err error) {
				rec, err = decodeTable(v)
				return err
			}); err != nil {
				return err
			}
			t, err := newTable(*rec)
			if err != nil {
				return fmt.Errorf("load table %s: %w", rec.Name, err)
			}
			m.tables[rec.Name] = t
		}
		if r, err := loadRetention(txn); err != nil {
			return fmt.Errorf("retention: %w", err)
		} else if r != nil {
			m.retain.Store(r)
		}
		if err := m.loadWindows(txn); err != nil {
			return fmt.Errorf("resync windows: %w", err)
		}
		lastGroup, err = latestGroup(txn, ^wal.LSN(0))
		return err
	})
	if err != nil {
		return fmt.Errorf("load state: %w", err)
	}
	m.resume = resume
	if err := m.loadHeldCopies(ctx, max(durable, resume)); err != nil {
		return fmt.Errorf("held copies: %w", err)
	}
	if lastGroup != nil {
		m.lastGroup = lastGroup.End
		// INVARIANT: table records are written in the same Badger
		// transaction as the group record they agree with.
		for name, t := range m.tables {
			if gr, ok := lastGroup.Roots[name]; ok && gr.Root != t.rec.Root {
				return fmt.Errorf("table %s: record root %s differs from group %s root %s", name, t.rec.Root, lastGroup.End, gr.Root)
			}
		}
	}
	if err := m.replay(ctx); err != nil {
		return err
	}
	if err := m.resyncSetKeyedTables(ctx); err != nil {
		return err
	}
	if err := m.bdb.View(m.loadOrdinal); err != nil {
		return fmt.Errorf("load commit index: %w", err)
	}
	// The durable LSN is the last commit's, or past it by commits that
	// changed no row (commitEmpty); never below it.
	if durable < m.head.EndLSN {
		return fmt.Errorf("durable LSN %s is below the last logged commit %s", durable, m.head.EndLSN)
	}
	m.lastEnd = durable
	m.lastTime = m.head.CommitTime
	m.written.Store(uint64(durable))
	m.durable.Store(uint64(max(durable, resume)))
	head := m.head
	m.readHead.Store(&head)
	// durable is what the mirror holds: the last commit, or the copy's
	// consistent point when no commit was streamed since the copy (a log
	// line saying 0/0 then would read as if nothing were durable).
	// last_commit is the end LSN of the newest logged commit (0/0: none).
	m.log.Info("mirror opened", "tables", len(m.tables), "durable", max(durable, resume), "last_commit", durable, "group", m.lastGroup,
		"replayed_commits", m.group.commits, "replayed_rows", m.group.rows)
	return nil
}

// latestGroup returns the group record with the largest end LSN <= at, or
// nil.
func latestGroup(txn *badger.Txn, at wal.LSN) (*groupRecord, error) {
	it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: groupPrefix()})
	defer it.Close()
	it.Seek(groupKey(at))
	if !it.Valid() {
		return nil, nil
	}
	end, err := lsnOfKey(it.Item().Key())
	if err != nil {
		return nil, err
	}
	var g *groupRecord
	err = it.Item().Value(func(v []byte) (err error) {
		g, err = decodeGroup(end, v)
		return err
	})
	return g, err
}

// replay rebuilds the pending group from the log records after the last
// group record. It is idempotent: it only rebuilds memory.
func (m *Mirror) replay(ctx context.Context) error {
	return m.bdb.View(func(txn *badger.Txn) error {
		// The head version: the last log record.
		rit := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: logPrefix()})
		rit.Seek(logKey(^wal.LSN(0)))
		if rit.Valid() {
			end, err := lsnOfKey(rit.Item().Key())
			if err == nil {
				err = rit.Item().Value(func(v []byte) error {
					h, _, err := decodeLog(end, v, false)
					if err == nil {
						m.head = *h
					}
					return err
				})
			}
			if err != nil {
				rit.Close()
				return err
			}
		}
		rit.Close()
		it := txn.NewIterator(badger.IteratorOptions{Prefix: logPrefix()})
		defer it.Close()
		for it.Seek(logKey(m.lastGroup + 1)); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			end, err := lsnOfKey(it.Item().Key())
			if err != nil {
				return err
			}
			var v *Version
			var tables []logTable
			if err := it.Item().Value(func(b []byte) (err error) {
				v, tables, err = decodeLog(end, slices.Clone(b), true)
				return err
			}); err != nil {
				return err
			}
			if v.Spilled {
				return fmt.Errorf("log record %s: spilled commit after the last group record %s", end, m.lastGroup)
			}
			m.group.add(tables, end)
		}
		return nil
	})
}

// update runs fn in a Badger read-write transaction.
func (m *Mirror) update(fn func(txn *badger.Txn) error) error {
	return store.RetryBlocked(context.Background(), func() error {
		txn := m.bdb.NewTransaction(true)
		defer txn.Discard()
		if err := fn(txn); err != nil {
			return err
		}
		return txn.Commit()
	})
}

// background flushes groups that reached GroupMaxAge while the stream
// is idle. It is owned by the Mirror: Close stops it.
func (m *Mirror) background() {
	defer m.wg.Done()
	tick := time.NewTicker(max(m.opts.GroupMaxAge/4, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-tick.C:
			m.mu.Lock()
			if m.err == nil {
				err := m.reapFlush()
				if err == nil && m.flushing == nil && m.group.commits > 0 && time.Since(m.group.started) >= m.opts.GroupMaxAge {
					err = m.startFlush()
				}
				if err != nil {
					m.failLocked(err)
				}
			}
			m.mu.Unlock()
		}
	}
}

// Sync returns once every commit applied so far is durable (the writer
// does this on its own; Sync is for callers that need it now).
func (m *Mirror) Sync(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return m.drain()
}

func (m *Mirror) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failLocked(err)
}

func (m *Mirror) failLocked(err error) {
	if m.err == nil {
		m.err = err
		m.log.Error("mirror stopped applying", "err", err)
	}
}

// Err returns the error that stopped the mirror, if any: after a failed
// write the in-memory state is unknown, every later Sink call returns it,
// and the process should restart (recovery replays the log). A read-only
// Mirror refuses writes with ErrReadOnly but is not stopped: Err is nil
// while it is open.
func (m *Mirror) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == ErrReadOnly {
		return nil
	}
	return m.err
}

// Durable implements wal.Sink: the end LSN of the last commit
// synced to disk (or the resume LSN recorded before any commit).
func (m *Mirror) Durable() wal.LSN { return wal.LSN(m.durable.Load()) }

// SetResumeLSN records where streaming starts for a mirror that has no
// commit yet: the initial copy's consistent point. It fails if commits
// were applied already.
func (m *Mirror) SetResumeLSN(ctx context.Context, lsn wal.LSN) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.head.EndLSN != 0 {
		return fmt.Errorf("set resume LSN %s: the mirror already applied commits up to %s", lsn, m.head.EndLSN)
	}
	e := enc{}
	e.uvarint(uint64(lsn))
	op := &writeOp{sync: true}
	op.set(keyResume, e.b)
	if err := m.enqueueWait(op); err != nil {
		return fmt.Errorf("set resume LSN %s: %w", lsn, err)
	}
	m.resume = lsn
	m.durable.Store(max(m.durable.Load(), uint64(lsn)))
	m.subs.durableMoved() // consumers are current up to it (CaughtUp)
	return nil
}

// System returns the PostgreSQL system identity stored with the mirror
// (zero for a new mirror).
func (m *Mirror) System() wal.SystemIdentity {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.meta.System
}

// SetSystem stores the identity of the cluster the mirror follows; check
// it on every start with SystemIdentity.Check.
func (m *Mirror) SetSystem(ctx context.Context, sys wal.SystemIdentity) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	meta := m.meta
	meta.System = wal.SystemIdentity{SystemID: sys.SystemID, Timeline: sys.Timeline, DBName: sys.DBName}
	op := &writeOp{sync: true}
	op.set(keyMeta, meta.encode())
	if err := m.enqueueWait(op); err != nil {
		return fmt.Errorf("store system identity: %w", err)
	}
	m.meta = meta
	return nil
}

// Engine returns the engine over the durable node store: every root that
// Head and the table records name can be read with it. Roots returned by
// TreeAt come with their own engine.
func (m *Mirror) Engine() *prolly.Engine { return m.eng }

// Close flushes the pending group into the trees (so the next Open
// replays nothing), syncs, lets subscribed consumers take what is durable
// (until ctx ends), and stops the background goroutine. A
// transaction in progress is discarded: it was not acknowledged and will
// be sent again. The store stays open.
func (m *Mirror) Close(ctx context.Context) error {
	m.cancel()
	var err error
	if !m.readOnly() { // a read-only Mirror has nothing to flush or sync
		err = m.flushForClose(ctx)
	}
	if m.ownsNS {
		if cerr := m.ns.Close(ctx); cerr != nil && err == nil {
			err = cerr
		}
	}
	if serr := m.db.Sync(); serr != nil && err == nil {
		err = serr
	}
	m.mu.Lock()
	m.err = errors.Join(m.err, errClosed)
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("close mirror: %w", err)
	}
	return nil
}

// flushForClose stops the background goroutine, discards a transaction
// in progress, flushes the pending group and stops the writer once what
// is queued is written.
func (m *Mirror) flushForClose(ctx context.Context) error {
	m.wg.Wait()
	m.mu.Lock()
	if m.txn != nil {
		m.discardTxn(ctx)
	}
	err := m.err
	if err == nil {
		err = m.flushGroup(ctx)
	}
	m.mu.Unlock()
	m.flushWG.Wait()
	if err == nil {
		err = m.drain()
	}
	m.stopSubscriptions(ctx, err == nil)
	m.closeQueue(false)
	return err
}

// closeQueue stops the writer: after writing what is queued, or (abandon)
// dropping it.
func (m *Mirror) closeQueue(abandon bool) {
	m.wqMu.Lock()
	m.wqClosed = true
	m.wqAbandon = m.wqAbandon || abandon
	m.wqCond.Broadcast()
	m.wqMu.Unlock()
	m.writerWG.Wait()
}

var errClosed = errors.New("mirror closed")

// abandon stops the goroutines without flushing, writing what is queued
// or syncing: what a crash leaves behind (for tests).
func (m *Mirror) abandon() {
	m.cancel()
	m.wg.Wait()
	m.flushWG.Wait()
	m.closeQueue(true)
	m.mu.Lock()
	m.err = errClosed
	m.mu.Unlock()
}
