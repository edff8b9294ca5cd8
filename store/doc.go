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
// # Measurements
//
// On this project's 2-vCPU VM, shared with other builds, so noisy: ranges
// are runs at load ≈4 and ≈12.
//
// Compression of ~3.9 KiB leaves of 68 entries (24-byte keys: random 16-byte
// prefix + big-endian counter; 27-byte values; u16/u32 offsets), one core,
// BenchmarkCompression. Ratio = raw/stored; speeds in MB/s of raw bytes:
//
//	values        codec          ratio  encode      decode
//	random-ish    s2             1.49   3500-4500   7000-12000
//	random-ish    s2 better      1.48   1500-2600   9000-12000
//	random-ish    zstd fastest   1.60    206-247    3500-3700
//	random-ish    zstd default   1.64    208-218    2600-3200
//	text (PG)     s2             1.81    950-1200   3800-4800
//	text (PG)     s2 better      1.83    760-770    4800-5400
//	text (PG)     zstd fastest   2.47    218-219     490-734
//	text (PG)     zstd default   2.66    116-195     460-711
//	text (PG)     zstd better    2.67     95-159     373-694
//
// s2 is the default: zstd stores 9 % (random-ish) to 32 % (text) fewer bytes
// but costs 18-33 µs to encode a node instead of 1-4, and on text 6-8 µs to
// decode one instead of ~1 (a sixth of the 50 µs cold-read budget). Through
// the whole write path (BenchmarkPutFlush, 20k nodes, Flush+Sync) s2 wrote
// 300 MB/s against zstd's 155 (load 4). zstd remains selectable per DB and
// readable always, e.g. for archived history.
//
// Badger layout (BenchmarkPutFlush 78 MiB/op; BenchmarkGetCold 20k nodes,
// node cache off, DB reopened; TestHeavyLoad 150k nodes = 556 MiB raw, the
// leaves of a 10M-row table):
//
//	layout                        write MB/s  cold Get   150k-node load: CPU (incl. generating
//	                              load 4/12   mean       and hashing, ~1 s), anon RSS, cold Get p50/p99
//	vlog (ValueThreshold 1 KiB)   300 / 90    8-25 µs    3.0-3.2 s, 618-714 MiB, 7 / 62 µs
//	lsm  (threshold 1 MiB)        244 / 68    15-36 µs   5.0-6.2 s, 1170-1264 MiB, 13 / 82 µs
//	lsm + Badger snappy blocks    278 / 63    32-66 µs
//
// Nodes go to the value log: faster writes (no compaction rewriting node
// bytes), a tiny LSM (keys and pointers), faster cold reads. Badger's block
// compression is off (nodes are compressed already; it cost 3-4× on cold
// Get) and so its block cache (it only duplicates the page cache). The cost
// is value-log GC: after deleting half of the 150k nodes, RunValueLogGC
// rewrote 3 files in 2.3 s and the directory went from 390 to 198 MiB.
//
// Gets (BenchmarkGetWarm, BenchmarkGetCold, BenchmarkGetMany): warm 83-118
// ns (a shard read lock and a map lookup); cold 8-13 µs (Badger lookup ~3
// µs, SHA-256 of 4 KiB ~2 µs, s2 ~1 µs, allocation); GetMany of 100 cold
// nodes 6.5-18 µs a node (two cores give little parallelism).
//
// Memory: the store's own share is CacheBytes + ≤2×PendingBytes + Badger's
// memtables (3×16 MiB) + arenas of the batch in flight. Writing 150k nodes
// (TestHeavyLoad, harness included) peaked at 998-1093 MiB VmHWM with the
// 256 MiB cache full: anonymous 618-714 MiB (Go heap in use 408-551 MiB)
// plus 404 MiB of Badger's memory-mapped value log (page cache, reclaimable,
// but counted by RSS, and growing with the data written). With CacheBytes
// 64 MiB the peak was 620 MiB (anonymous 230 MiB). Bulk loads therefore
// write what they will not read soon with PutUncached (prolly's Builder
// does, for leaves): a 10M-row build through `sidecar bench prolly` then
// peaked at 738 MiB (164 MiB anonymous, 572 MiB of mapped value log)
// instead of 1.19 GiB.
//
// Kernel time of writes: Badger writes the value log by copying into a
// shared mapping of a sparse, pre-truncated file, so each new page is first
// read-faulted as a hole and zero-filled by the kernel, then overwritten
// (perf: __pi_memset under filemap_fault, from Badger's writeRequests).
// Measured as the difference of perf profiles with and without batches,
// that is ~1.7 ms per MiB written (load ≈15): ~85 ms of the 116-172 ms of
// kernel time (getrusage) in a random 10k-row batch at 10M rows, which
// writes ~49 MiB and costs ~470-600 ms CPU in all. Faults on fresh Go heap
// are not it: with GODEBUG=madvdontneed=0 the batch's minor faults fell
// from 4-7.6k to ~850 and its kernel time did not move. Writing with
// pwrite instead (a Badger change, or a node log of our own) would avoid
// the zero-fill: 48 MiB copied into a fresh mapping of a sparse file cost
// 17-24 ms of kernel time, pwrite of the same bytes 7-11 ms.
//
// Read concurrency (GetMany of 8 and 400 cold nodes, 20k-node store, the
// three settings interleaved in one process, load ≈16): 1, 2 and 4 workers
// cost the same CPU per node within 3% (6.8-7.1 µs at 400, 8.9-10.1 µs at
// 8) and the same wall time at 400 (24-34 µs a node); at 8, four workers
// were ~20% slower than one or two. On a machine this loaded parallel
// workers bought nothing measurable; the default (2×GOMAXPROCS) is kept
// for a machine with an idle core, where it was chosen.
//
// Tried and rejected (cold Get, 60k nodes, CPU per Get, load ≈10): a 32 MiB
// Badger block cache (10.7-11.7 µs against 9.2-9.8: the LSM holds only keys
// and value pointers, and ristretto costs more than the mmapped block
// parse); storing nodes uncompressed (9.3 µs either way: decoding is mostly
// the copy out of the value log's mapping, which raw values need too).
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
	// PrefixScratch: keys store writes and drops at once (value-log GC's
	// memtable flush); never read.
	PrefixScratch byte = '~'
)
