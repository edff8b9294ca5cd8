// Package store is the byte-level persistence of the sidecar: one Badger
// database per data directory (DB), and on it a content-addressed,
// compressed, verified store of Prolly nodes with a decoded-node cache
// (NodeStore). *NodeStore[*prolly.Node] satisfies prolly.NodeStore; this
// package never imports prolly (the node type is a type parameter and a
// Codec decodes it).
//
// # Keys
//
// Every component keeps its keys in the one Badger keyspace under its own
// first byte, registered below (Prefix*). Nodes are PrefixNode + the 20-byte
// address; nothing else lives under 'n', so a key-only iteration over that
// prefix is the sweep phase of a mark-and-sweep GC (NodeStore.Sweep).
//
// # Values
//
// A node value is one tag byte (a Compression: 1 none, 2 s2, 3 zstd; 0 is
// never written) and the payload. The reader follows the tag, so the codec
// new nodes are written with can change without a migration; a node that
// does not shrink is stored raw.
//
// # Writes
//
// Put makes a node visible at once (cache and pending map) and buffers it.
// When Options.PendingBytes (16 MiB) accumulate, the batch is written in the
// background by one goroutine while Puts continue into the next; a third
// batch waits, so buffered bytes stay under 2×PendingBytes. A batch is
// compressed on every core into 1 MiB arenas and written with one Badger
// WriteBatch in address order. The address a caller gives is trusted (the
// engine hashed those bytes itself; hashing them again was ~12% of a
// build's CPU): a wrong one is caught as corruption on the first read from
// Badger. Options.VerifyPuts checks it before writing instead (tests). Flush writes what is buffered and waits;
// DB.Sync fsyncs (SyncWrites is off: the mirror syncs once per commit
// group). Every Put is written even if the node is already stored, see GC.
//
// # Reads
//
// Get: cache, then pending Puts, then Badger. A value read from Badger is
// decompressed, hashed and compared with its key before Codec.Decode sees it;
// any mismatch, unknown tag or undecodable payload is a *CorruptError naming
// the address (errors.Is(err, ErrCorrupt)), never data. GetMany serves what
// it can from memory and reads the rest in address order with up to
// Options.ReadConcurrency workers, in the order asked.
//
// The cache is a sharded CLOCK (hits take a shard read lock and set a bit;
// new entries start unreferenced so a scan does not flush hot internal
// nodes) bounded by Options.CacheBytes (256 MiB) counted with Codec.Size
// plus 96 bytes an entry.
//
// # GC
//
// Mark-and-sweep, online: NodeStore.BeginSweep (every Put from then on is
// recorded); Flush; v := db.Version(); mark from retained roots; then
// NodeStore.Sweep(ctx, v, live) deletes unmarked nodes last written at or
// before v and not Put since BeginSweep. A node re-referenced during the
// mark was Put again (Put never skips a node "already stored") and is
// recorded; deletes are committed in chunks under the store's lock after
// dropping recorded addresses, so a Put after a chunk is written after its
// delete. Nodes live in the value log, so their space returns through
// value-log GC: DB.RunValueLogGCOnline never blocks (deletes count once
// Badger's compactions saw them); DB.RunValueLogGC first flushes and
// compacts the LSM so they count at once, blocking reads and writes for up
// to seconds (offline only). Writers retry while Badger blocks writes
// (RetryBlocked).
//
// # Choices and their figures
//
// s2 is the node codec by default (zstd stores 9-32 % fewer bytes but costs
// several times the encode and decode time of s2, a large share of the
// cold-read budget; it stays selectable and always readable). Nodes live in
// Badger's value log (faster writes, a small LSM, faster cold reads), with
// Badger's block compression and block cache off (nodes are compressed
// already; the page cache holds the value log). Bulk loads write with
// PutUncached. Read workers default to 2×GOMAXPROCS. The measurements
// behind each choice, and the costs that remain (value-log GC, the kernel's
// zero-fill of the mapped value log), are in
// bench/results/store-design-figures-2026-11.md.
package store

// Key prefixes: the registry of the one Badger keyspace. Every key starts
// with one of these bytes; a package writes only under its own.
const (
	// PrefixNode: 'n' + 20-byte address → tag byte + compressed node
	// (store). Immutable once written.
	PrefixNode byte = 'n'
	// PrefixCatalog: versions per table, LSN → roots (snapshot).
	PrefixCatalog byte = 'c'
	// PrefixRef: tags and branches, name → root (snapshot).
	PrefixRef byte = 'r'
	// PrefixSpool: per-commit change log between persisted roots (mirror).
	PrefixSpool byte = 's'
	// PrefixHeap: heap pages written at checkpoints (heap).
	PrefixHeap byte = 'h'
	// PrefixIndex: radix index checkpoints (radixindex).
	PrefixIndex byte = 'x'
	// PrefixMeta: store-wide metadata: format version, durable LSN (mirror).
	PrefixMeta byte = 'm'
	// PrefixUpload: the remote uploader's own state, never uploaded or
	// restored: 'u' 'i' → the identity of this Badger's version space.
	PrefixUpload byte = 'u'
	// PrefixScratch: keys store writes and drops at once (value-log GC's
	// memtable flush); never read.
	PrefixScratch byte = '~'
)
