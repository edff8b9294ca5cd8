package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/klauspost/compress/zstd"
)

// Defaults for Options fields left zero. doc.go explains the choices.
const (
	DefaultCacheBytes     = 256 << 20
	DefaultPendingBytes   = 16 << 20
	DefaultValueThreshold = 1 << 10
	DefaultMemTableSize   = 16 << 20
	DefaultNumMemtables   = 3
	DefaultVlogFileSize   = 128 << 20
)

// lockName is the file in Dir that Open locks (see lock.go: exclusive for
// the writer, shared for a reader while it opens Badger). Badger locks Dir
// itself; ours also gives a second writer ErrLocked with the holder's pid
// instead of Badger's untyped error string.
const lockName = "sidecar.lock"

// Options configures Open. The zero value of every field but Dir (or
// InMemory) selects the default.
type Options struct {
	// Dir is the data directory; it is created if missing. One DB per Dir.
	Dir string
	// InMemory keeps everything in RAM (tests, benchmarks); Dir is ignored.
	InMemory bool
	// CacheBytes bounds each NodeStore's decoded-node cache, counted with
	// Codec.Size. Zero selects DefaultCacheBytes; negative disables caching.
	CacheBytes int64
	// PendingBytes is how many bytes of Put nodes a NodeStore buffers before
	// it writes them in the background. Zero selects DefaultPendingBytes.
	PendingBytes int64
	// ReadConcurrency bounds the workers of one GetMany. Zero selects
	// 2×GOMAXPROCS (reads mix page-cache copies and decompression).
	ReadConcurrency int
	// Compression is the codec new nodes are written with; values carry
	// their own tag, so changing it never breaks reading. Zero selects s2.
	Compression Compression
	// ZstdLevel is used when Compression is CompressionZstd. Zero selects
	// zstd.SpeedDefault.
	ZstdLevel zstd.EncoderLevel
	// ValueThreshold is Badger's: values at least this long go to the value
	// log. Zero selects DefaultValueThreshold (nodes in the value log; see
	// RunValueLogGC). Values above 1 MiB are clamped to Badger's maximum.
	ValueThreshold int64
	// MemTableSize and NumMemtables bound Badger's write buffers
	// (MemTableSize × NumMemtables of RAM at worst). Zero selects the
	// defaults above.
	MemTableSize int64
	NumMemtables int
	// ValueLogFileSize is the size at which Badger starts a new value-log
	// file; value-log GC rewrites whole files, so smaller files reclaim
	// space in smaller steps. Zero selects DefaultVlogFileSize.
	ValueLogFileSize int64
	// ReadOnly opens an existing directory for reading only, under a
	// shared lock: for commands run while no daemon runs. Writes fail
	// (Badger's ErrReadOnlyTxn), Close writes nothing, and a writer that
	// starts meanwhile waits (ReaderWait) instead of failing.
	ReadOnly bool
	// ReaderWait bounds how long a writer's Open waits for ReadOnly
	// openers to close the directory. Zero selects DefaultReaderWait.
	ReaderWait time.Duration
	// Logger receives Badger's messages (see LevelBadgerDebug). Nil discards
	// them.
	Logger *slog.Logger
	// VerifyPuts makes every NodeStore hash the bytes of each Put node
	// before writing it and fail the batch if they do not hash to the
	// address given. Off by default: the only writer (prolly's engine)
	// computes the address from the very bytes it hands over, so a second
	// SHA-256 per node was a quarter of the build's CPU for nothing. Reads
	// from Badger are always verified; tests and debugging turn this on.
	VerifyPuts bool
	// MinFree is the headroom, in bytes, the data directory's file system
	// must have for a write to start (CheckSpace, store/diskspace.go):
	// below it writes fail with ErrDiskFull instead of Badger dying of
	// SIGBUS in a mapped file. 0 checks nothing (tests, tools); the daemon
	// passes storage.min_free.
	MinFree uint64
	// Syncer makes acknowledged writes durable (DB.Sync calls it): nil
	// selects Badger's own fsync of the value log and memtable WAL. A
	// test gives one that also records the durable image, to lose what
	// was written after it at a simulated power cut (internal/testkit/powercut).
	Syncer Syncer
	// BadgerTune, if set, adjusts Badger's options last: for experiments
	// and the benchmarks that justify the defaults. Not for production
	// configuration.
	BadgerTune func(badger.Options) badger.Options
}

func (o Options) withDefaults() Options {
	if o.CacheBytes == 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.PendingBytes <= 0 {
		o.PendingBytes = DefaultPendingBytes
	}
	if o.ReadConcurrency <= 0 {
		o.ReadConcurrency = 2 * runtime.GOMAXPROCS(0)
	}
	if o.ValueThreshold <= 0 {
		o.ValueThreshold = DefaultValueThreshold
	}
	if o.ValueThreshold > 1<<20 {
		o.ValueThreshold = 1 << 20
	}
	if o.MemTableSize <= 0 {
		o.MemTableSize = DefaultMemTableSize
	}
	if o.NumMemtables <= 0 {
		o.NumMemtables = DefaultNumMemtables
	}
	if o.ValueLogFileSize <= 0 {
		o.ValueLogFileSize = DefaultVlogFileSize
	}
	if o.ReaderWait <= 0 {
		o.ReaderWait = DefaultReaderWait
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Syncer == nil {
		o.Syncer = BadgerSync{}
	}
	return o
}

// badgerOptions translates Options into Badger's, tuned for a store of
// immutable, already-compressed ~4 KiB values written in large batches by a
// single writer.
func (o Options) badgerOptions() badger.Options {
	dir := o.Dir
	if o.InMemory {
		dir = ""
	}
	bo := badger.DefaultOptions(dir).
		WithInMemory(o.InMemory).
		WithReadOnly(o.ReadOnly).
		WithLogger(badgerLogger{l: o.Logger.With("component", "badger")}).
		// The mirror syncs once per commit group through DB.Sync.
		WithSyncWrites(false).
		// Versions live in the Prolly tree; Badger keeps one per key.
		WithNumVersionsToKeep(1).
		// One writer, no read-modify-write transactions.
		WithDetectConflicts(false).
		// Nodes are compressed before Put; compressing SST blocks again
		// costs CPU on every read for nothing, and without compression the
		// block cache only duplicates the OS page cache (Badger's advice).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0).
		WithValueThreshold(o.ValueThreshold).
		WithValueLogFileSize(o.ValueLogFileSize).
		WithMemTableSize(o.MemTableSize).
		WithNumMemtables(o.NumMemtables).
		// Two cores: two compactors (Badger's minimum) leave room for apply.
		WithNumCompactors(2)
	if o.ValueThreshold <= 4<<10 {
		// Nodes in the value log: the LSM holds only keys and value
		// pointers (tens of bytes a node), so compacting every L0 table at
		// once is cheap, and it is what records deleted nodes as value-log
		// garbage (see RunValueLogGC). With nodes inline, keep Badger's
		// defaults: compaction then rewrites node bytes.
		bo = bo.WithNumLevelZeroTables(1).WithNumLevelZeroTablesStall(4)
	}
	if o.InMemory {
		// No value log in memory: every value must fit in the LSM.
		bo = bo.WithValueThreshold(1 << 20)
	}
	if o.BadgerTune != nil {
		bo = o.BadgerTune(bo)
	}
	return bo
}

// DB is one Badger database per data directory, shared by every component
// that persists state: node stores here, catalog, refs and spool elsewhere,
// each under its own key prefix (see doc.go). Safe for concurrent use.
type DB struct {
	bdb   *badger.DB
	opts  Options
	codec *valueCodec
	lock  *os.File // nil when InMemory
	mem   memSources
}

// Open opens (creating if needed) the store in opts.Dir. A directory held by
// another writer fails with an error wrapping ErrLocked; readers present
// (Options.ReadOnly) are waited for. With ReadOnly, Open creates and writes
// nothing: a missing directory fails with ErrNoDir, one held by a writer
// with ErrLocked, one its writer did not close with ErrNeedsRecovery (see
// lock.go). The caller must Close the DB.
func Open(opts Options) (*DB, error) {
	if !opts.InMemory && opts.Dir == "" {
		return nil, errors.New("open store: Dir is empty and InMemory is false")
	}
	if opts.InMemory && opts.ReadOnly {
		return nil, errors.New("open store: ReadOnly needs a directory")
	}
	opts = opts.withDefaults()
	codec, err := newValueCodec(opts.Compression, opts.ZstdLevel)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	db := &DB{opts: opts, codec: codec}
	if opts.ReadOnly {
		return db.openReader()
	}
	if !opts.InMemory {
		if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
			codec.close()
			return nil, fmt.Errorf("open store: create data dir: %w", err)
		}
		if err := makePrivate(opts.Dir, opts.Logger); err != nil {
			codec.close()
			return nil, fmt.Errorf("open store: %w", err)
		}
		// Opening for writing writes (Badger's memtable and value-log
		// files): refuse on a full disk, before Badger maps anything.
		if err := db.CheckSpace(); err != nil {
			codec.close()
			return nil, fmt.Errorf("open store: %w", err)
		}
		if db.lock, err = writerLock(opts.Dir, min(lockRetry, opts.ReaderWait)); err != nil {
			codec.close()
			return nil, fmt.Errorf("open store %s: %w", opts.Dir, err)
		}
		if err := waitReaders(opts.Dir, opts.ReaderWait, opts.Logger); err != nil {
			codec.close()
			db.unlock()
			return nil, fmt.Errorf("open store %s: %w", opts.Dir, err)
		}
		if err := removeEmptyVlogs(opts.Dir); err != nil {
			codec.close()
			db.unlock()
			return nil, fmt.Errorf("open store %s: %w", opts.Dir, err)
		}
	}
	db.bdb, err = badger.Open(opts.badgerOptions())
	if err != nil {
		codec.close()
		db.unlock()
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			// Another program holds Badger's own lock but not ours.
			return nil, fmt.Errorf("open store %s: %w: %v", opts.Dir, ErrLocked, err)
		}
		return nil, fmt.Errorf("open store %s: %w", opts.Dir, err)
	}
	return db, nil
}

// openReader opens Badger read-only under a shared lock (lock.go).
func (db *DB) openReader() (*DB, error) {
	dir := db.opts.Dir
	lock, err := readerLock(dir)
	if err != nil {
		db.codec.close()
		return nil, fmt.Errorf("open store %s read-only: %w", dir, err)
	}
	// Held until Badger holds its own shared lock: a writer starting now
	// waits for it.
	defer lock.Close()
	if err := checkClosed(dir); err != nil {
		db.codec.close()
		return nil, fmt.Errorf("open store %s read-only: %w", dir, err)
	}
	db.bdb, err = badger.Open(db.opts.badgerOptions())
	if err != nil {
		db.codec.close()
		switch {
		case errors.Is(err, badger.ErrTruncateNeeded) || strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error()):
			// Badger wraps it as text (y.Wrapf), so errors.Is misses it.
			return nil, fmt.Errorf("open store %s read-only: %w (%v)", dir, ErrNeedsRecovery, err)
		case strings.Contains(err.Error(), "Cannot acquire directory lock"):
			return nil, fmt.Errorf("open store %s read-only: %w: %v", dir, ErrLocked, err)
		}
		return nil, fmt.Errorf("open store %s read-only: %w", dir, err)
	}
	return db, nil
}

// checkClosed fails with ErrNeedsRecovery if dir holds a memtable
// write-ahead log (*.mem): Badger deletes them at Close, and a read-only
// Badger refuses one it cannot replay without truncating it, which is
// every one (they are preallocated). Checked before Badger opens, since a
// failed badger.Open leaves its goroutines running.
func checkClosed(dir string) error {
	mems, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil {
		return err
	}
	if len(mems) > 0 {
		return fmt.Errorf("%w (%s is a write-ahead log still to replay)", ErrNeedsRecovery, filepath.Base(mems[0]))
	}
	return nil
}

// removeEmptyVlogs deletes value-log and memtable-log files of length 0.
// Badger creates a new value-log file on every Open and at every rotation,
// and a new memtable log (.mem) with every memtable; a crash between its
// O_CREATE and the ftruncate that sizes it leaves an empty file, and Badger
// v4.9.6 then refuses to open the directory ("Open existing file: ...
// Create a new file", or "while opening memtables ... while opening fid: N
// ... Create a new file": logFile.open returns z.NewFile as an error). An
// empty file has no header and no entry, so nothing refers to it. The
// caller holds the directory lock.
func removeEmptyVlogs(dir string) error {
	for _, pattern := range []string{"*.vlog", "*.mem"} {
		paths, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return err
		}
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				return fmt.Errorf("log file %s: %w", p, err)
			}
			if fi.Size() == 0 {
				if err := os.Remove(p); err != nil {
					return fmt.Errorf("remove empty log file %s: %w", p, err)
				}
			}
		}
	}
	return nil
}

func (db *DB) unlock() {
	if db.lock != nil {
		// Closing the file releases the flock. The pid file stays: its
		// content only matters while the lock is held.
		db.lock.Close()
		db.lock = nil
	}
}

// Close flushes Badger's memtables, closes the database and releases the
// directory. NodeStores must be flushed first; their unflushed Puts are lost.
func (db *DB) Close() error {
	err := db.bdb.Close()
	db.codec.close()
	db.unlock()
	if err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// ReadOnly reports whether the DB was opened with Options.ReadOnly.
func (db *DB) ReadOnly() bool { return db.opts.ReadOnly }

// Badger returns the underlying database, for packages that keep their own
// keys under the prefixes registered in doc.go. They must not write keys
// under PrefixNode. Conflict detection is off (one writer), so concurrent
// read-modify-write transactions are not checked against each other.
func (db *DB) Badger() *badger.DB { return db.bdb }

// Syncer is the seam between the DB's writes and their durability. Badger
// is opened without synchronous writes, so everything written since the
// last Sync lives in the page cache (mapped value-log and memtable-WAL
// files) and is what a power cut loses; Sync is the only point after
// which a write may be reported durable. A kill -9 keeps the page cache,
// so only an implementation that drops what came after the last Sync
// lets a crash test catch a missing or misplaced Sync.
type Syncer interface {
	// Sync makes every write bdb acknowledged so far durable. dir is the
	// DB's directory.
	Sync(bdb *badger.DB, dir string) error
}

// BadgerSync is the production Syncer: Badger's DB.Sync (fsync of the
// value log and of the active memtable's WAL).
type BadgerSync struct{}

// Sync implements Syncer.
func (BadgerSync) Sync(bdb *badger.DB, _ string) error { return bdb.Sync() }

// Sync makes every write acknowledged so far durable through
// Options.Syncer (BadgerSync by default). Writes are not synced
// individually; the mirror calls Sync once per commit group before it
// reports a flush LSN.
func (db *DB) Sync() error {
	if db.opts.InMemory || db.opts.ReadOnly {
		return nil
	}
	if err := db.opts.Syncer.Sync(db.bdb, db.opts.Dir); err != nil {
		return fmt.Errorf("sync store: %w", err)
	}
	return nil
}

// RetryBlocked runs fn, and runs it again while it fails because Badger
// refuses writes (badger.ErrBlockedWrites: RunValueLogGC is flushing the
// memtables, for tens of milliseconds), for up to 30 s. fn must be
// idempotent (a retried write sets the same keys again). Every writer of
// a DB that may be collected online goes through it.
func RetryBlocked(ctx context.Context, fn func() error) error {
	backoff := 5 * time.Millisecond
	deadline := time.Now().Add(blockedWriteTimeout)
	for {
		err := fn()
		if err == nil || !errors.Is(err, badger.ErrBlockedWrites) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (while Badger blocked writes: %w)", ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 200*time.Millisecond)
	}
}

// gcFlushKey is written and dropped by compactForGC; it is never read.
var gcFlushKey = []byte{PrefixScratch, 'g', 'c'}

// compactForGC pushes recent deletes through the LSM. Badger learns which
// value-log bytes are garbage only when a compaction drops a deleted or
// overwritten key, so right after a sweep nothing is collectable until the
// memtable holding the deletes has been flushed and compacted. Badger has
// no "flush now" call; DropPrefix flushes every memtable before dropping,
// so dropping a prefix that holds one scratch key does it. Flatten then
// compacts the flushed tables into the level below. Writes pause for the
// duration of the memtable flush.
func (db *DB) compactForGC() error {
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(gcFlushKey, nil) }); err != nil {
		return fmt.Errorf("value log gc: %w", err)
	}
	if err := db.bdb.DropPrefix(gcFlushKey); err != nil {
		return fmt.Errorf("value log gc: flush memtables: %w", err)
	}
	if err := db.bdb.Flatten(1); err != nil {
		return fmt.Errorf("value log gc: compact: %w", err)
	}
	return nil
}

// RunValueLogGC rewrites value-log files of which at least discardRatio
// (0 < r < 1; 0.5 is Badger's advice) is garbage, repeating until none
// qualifies or ctx is done, and returns how many files it rewrote. It first
// flushes and compacts the LSM so that deletes made just before (a sweep)
// are already counted as garbage.
//
// While the memtables are flushed Badger refuses writes: a transaction
// committed through Badger() in that window fails with
// badger.ErrBlockedWrites (NodeStore writes wait and retry). Run it from the
// single writer between commits, or retry on that error. Nodes
// live in the value log (Options.ValueThreshold), so deleted nodes only
// give their space back through this; run it after a node sweep and
// periodically (e.g. every few minutes) from the owner of the DB.
func (db *DB) RunValueLogGC(ctx context.Context, discardRatio float64) (int, error) {
	if db.opts.InMemory {
		return 0, nil
	}
	if err := db.compactForGC(); err != nil {
		return 0, err
	}
	return db.RunValueLogGCOnline(ctx, discardRatio)
}

// RunValueLogGCOnline is RunValueLogGC without flushing and compacting
// the LSM first: it never blocks reads or writes, but deletes still in
// the memtables do not count yet (their space returns at a later run,
// once Badger's own compactions saw them). For a running daemon.
func (db *DB) RunValueLogGCOnline(ctx context.Context, discardRatio float64) (int, error) {
	if db.opts.InMemory {
		return 0, nil
	}
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		err := db.bdb.RunValueLogGC(discardRatio)
		switch {
		case err == nil:
			n++
		case errors.Is(err, badger.ErrNoRewrite):
			return n, nil
		default:
			return n, fmt.Errorf("value log gc after %d rewrites: %w", n, err)
		}
	}
}
