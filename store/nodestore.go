package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/singleflight"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/invariants"
)

// Codec decodes node bytes into the caller's node type and measures decoded
// nodes for the cache bound. prolly supplies one for *prolly.Node; store
// never sees the node format.
type Codec[N any] interface {
	// Decode returns the node encoded by data. It may keep data: every
	// slice passed to Decode is freshly allocated and never reused.
	Decode(data []byte) (N, error)
	// Size returns the bytes n keeps alive (its encoding plus decoded
	// structures), for the cache's memory bound.
	Size(n N) int
}

// NodeStore is a content-addressed store of Prolly nodes in a DB: nodes are
// kept compressed under PrefixNode+address, handed back decoded through a
// byte-bounded cache, and verified against their address on every read from
// disk. Put buffers; Flush writes. Safe for concurrent use.
//
// *NodeStore[*prolly.Node] satisfies prolly.NodeStore.
type NodeStore[N any] struct {
	db    *DB
	codec Codec[N]
	cache *nodeCache[N] // nil when caching is disabled

	// mu guards the write side. Puts land in cur; when cur reaches
	// Options.PendingBytes it becomes inflight and one goroutine writes it
	// while Puts continue into a fresh cur. Both maps are searched by Get,
	// so a node is readable from its Put on.
	//
	// INVARIANT: at most one batch is in flight, and a batch leaves
	// inflight only after WriteBatch.Flush returned, so a node absent from
	// both maps is in Badger, was never Put, or was in a batch whose write
	// failed (then err is set and every later Put and Flush returns it).
	mu       sync.RWMutex
	cur      *batch[N]
	inflight *batch[N]
	err      error // first background write error; sticky
	writers  sync.WaitGroup
	// swept is non-nil from BeginSweep to the end of Sweep: the address
	// of every Put meanwhile, which Sweep never deletes.
	swept map[addr.Hash]struct{}

	loads singleflight.Group // cold Gets in progress, by address

	pendingHits, reads, readBytes, corrupt atomic.Int64
	puts, written, rawBytes, storedBytes   atomic.Int64
	batches                                atomic.Int64

	untrack func() // ends the DB's memory accounting of this store (Close)

	// arenas are write's spent encoding arenas, written again by the next
	// batch (arenaFree).
	arenas arenaFree
}

type pendingNode[N any] struct {
	data []byte
	n    N
	// decoded: n is data's decoded form. A node put by its bytes alone
	// (PutUncachedBytes) is decoded only if it is read while buffered.
	decoded bool
}

// node returns p's decoded form, decoding its bytes if it was put without
// one (PutUncachedBytes).
func (s *NodeStore[N]) node(h addr.Hash, p pendingNode[N]) (N, error) {
	if p.decoded {
		return p.n, nil
	}
	n, err := s.codec.Decode(p.data)
	if err != nil {
		var zero N
		return zero, fmt.Errorf("decode buffered node %s: %w", h, err)
	}
	return n, nil
}

type batch[N any] struct {
	nodes map[addr.Hash]pendingNode[N]
	bytes int64
	done  chan struct{} // closed when the batch is written (or failed)
}

func newBatch[N any]() *batch[N] {
	return &batch[N]{nodes: make(map[addr.Hash]pendingNode[N]), done: make(chan struct{})}
}

// NewNodeStore returns a node store over db that decodes with codec, with a
// cache of Options.CacheBytes.
func NewNodeStore[N any](db *DB, codec Codec[N]) *NodeStore[N] {
	s := &NodeStore[N]{
		db:    db,
		codec: codec,
		cache: newNodeCache(db.opts.CacheBytes, codec.Size),
		cur:   newBatch[N](),
	}
	trackNodeStore(db, s)
	return s
}

// nodeKey returns the Badger key of the node at h.
func nodeKey(h addr.Hash) []byte {
	k := make([]byte, 1+addr.Size)
	k[0] = PrefixNode
	copy(k[1:], h[:])
	return k
}

// Get returns the node at h: from the cache, from buffered Puts, or from
// Badger (verified and decoded). A missing node is an error wrapping
// addr.ErrNotFound; bytes that do not hash to h are a *CorruptError.
func (s *NodeStore[N]) Get(ctx context.Context, h addr.Hash) (N, error) {
	if s.cache != nil {
		if n, ok := s.cache.get(h); ok {
			return n, nil
		}
	}
	if p, ok := s.pending(h); ok {
		return s.node(h, p)
	}
	var zero N
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("get node %s: %w", h, err)
	}
	// Concurrent misses on one address (readers starting on a cold root)
	// share a single read, verification and decode.
	v, err, _ := s.loads.Do(string(h[:]), func() (any, error) {
		var n N
		err := s.db.bdb.View(func(txn *badger.Txn) error {
			var err error
			n, err = s.load(txn, h)
			return err
		})
		return n, err
	})
	if err != nil {
		return zero, err
	}
	return v.(N), nil
}

// Has reports whether the node at h is stored or buffered, without reading
// or verifying its bytes (a later Get may still find it corrupt).
func (s *NodeStore[N]) Has(ctx context.Context, h addr.Hash) (bool, error) {
	if s.cache != nil {
		if _, ok := s.cache.get(h); ok {
			return true, nil
		}
	}
	if _, ok := s.pending(h); ok {
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("has node %s: %w", h, err)
	}
	err := s.db.bdb.View(func(txn *badger.Txn) error {
		_, err := txn.Get(nodeKey(h))
		return err
	})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, badger.ErrKeyNotFound):
		return false, nil
	default:
		return false, fmt.Errorf("has node %s: %w", h, err)
	}
}

// pending looks h up in the buffered Puts.
func (s *NodeStore[N]) pending(h addr.Hash) (pendingNode[N], bool) {
	s.mu.RLock()
	p, ok := s.cur.nodes[h]
	if !ok && s.inflight != nil {
		p, ok = s.inflight.nodes[h]
	}
	s.mu.RUnlock()
	if ok {
		s.pendingHits.Add(1)
	}
	return p, ok
}

// load reads, verifies, decodes and caches the node at h.
func (s *NodeStore[N]) load(txn *badger.Txn, h addr.Hash) (N, error) {
	var zero N
	item, err := txn.Get(nodeKey(h))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return zero, fmt.Errorf("get node %s: %w", h, addr.ErrNotFound)
	}
	if err != nil {
		return zero, fmt.Errorf("get node %s: %w", h, err)
	}
	var data []byte
	var decErr error
	err = item.Value(func(v []byte) error {
		s.readBytes.Add(int64(len(v)))
		data, decErr = s.db.codec.decode(v)
		return nil
	})
	s.reads.Add(1)
	if err != nil {
		return zero, fmt.Errorf("read node %s: %w", h, err)
	}
	if decErr != nil {
		s.corrupt.Add(1)
		return zero, &CorruptError{Hash: h, Reason: "stored value does not decode", Err: decErr}
	}
	if got := addr.Of(data); got != h {
		s.corrupt.Add(1)
		return zero, &CorruptError{Hash: h, Reason: fmt.Sprintf("%d stored bytes hash to %s", len(data), got)}
	}
	n, err := s.codec.Decode(data)
	if err != nil {
		return zero, fmt.Errorf("decode node %s: %w", h, err)
	}
	if s.cache != nil {
		s.cache.add(h, n)
	}
	return n, nil
}

// minPerWorker is the fewest cold reads worth a goroutine of GetMany.
const minPerWorker = 4

// GetMany returns the nodes at hs in the order of hs. Cached and buffered
// nodes are served at once; the rest are read from Badger in address order
// by up to Options.ReadConcurrency workers. The first failure (missing or
// corrupt node, cancelled ctx) is returned and the other reads stop.
func (s *NodeStore[N]) GetMany(ctx context.Context, hs []addr.Hash) ([]N, error) {
	out := make([]N, len(hs))
	var miss []int
	for i, h := range hs {
		if s.cache != nil {
			if n, ok := s.cache.get(h); ok {
				out[i] = n
				continue
			}
		}
		miss = append(miss, i)
	}
	if len(miss) == 0 {
		return out, nil
	}
	// Buffered Puts, under one lock.
	var bytesOnly []int
	var bytesOnlyNodes []pendingNode[N]
	s.mu.RLock()
	j := 0
	for _, i := range miss {
		p, ok := s.cur.nodes[hs[i]]
		if !ok && s.inflight != nil {
			p, ok = s.inflight.nodes[hs[i]]
		}
		if ok {
			if p.decoded {
				out[i] = p.n
			} else {
				bytesOnly = append(bytesOnly, i)
				bytesOnlyNodes = append(bytesOnlyNodes, p)
			}
			s.pendingHits.Add(1)
			continue
		}
		miss[j] = i
		j++
	}
	s.mu.RUnlock()
	// Buffered nodes put by their bytes alone are decoded outside the lock.
	for k, i := range bytesOnly {
		n, err := s.node(hs[i], bytesOnlyNodes[k])
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	miss = miss[:j]
	if len(miss) == 0 {
		return out, nil
	}
	// Address order keeps each worker's LSM lookups local; duplicates are
	// read once and copied.
	slices.SortFunc(miss, func(a, b int) int { return compareHash(hs[a], hs[b]) })
	uniq := miss[:0:0]
	for k, i := range miss {
		if k == 0 || hs[i] != hs[miss[k-1]] {
			uniq = append(uniq, i)
		}
	}
	workers := min(s.db.opts.ReadConcurrency, (len(uniq)+minPerWorker-1)/minPerWorker)
	var next atomic.Int64
	// work reads uniq[next...] in one read transaction until done or ctx ends.
	work := func(ctx context.Context) error {
		return s.db.bdb.View(func(txn *badger.Txn) error {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(uniq) {
					return nil
				}
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("get many: %w", err)
				}
				i := uniq[k]
				n, err := s.load(txn, hs[i])
				if err != nil {
					return err
				}
				out[i] = n
			}
		})
	}
	if workers <= 1 {
		if err := work(ctx); err != nil {
			return nil, err
		}
	} else {
		g, gctx := errgroup.WithContext(ctx)
		for range workers {
			g.Go(func() error { return work(gctx) })
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	if len(uniq) < len(miss) {
		for k := 1; k < len(miss); k++ {
			if hs[miss[k]] == hs[miss[k-1]] {
				out[miss[k]] = out[miss[k-1]]
			}
		}
	}
	return out, nil
}

func compareHash(a, b addr.Hash) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Put stores the node n whose encoding is data and whose address is h. It
// is buffered: visible to Get at once, written to Badger in the background
// once Options.PendingBytes accumulate, and by Flush. Put keeps data; the
// caller must not modify it afterwards.
//
// Every Put is written, even of a node already stored: a rewrite gives the
// key a fresh Badger version, which is what lets a concurrent mark-and-sweep
// keep nodes re-referenced while it runs (see doc.go, "GC").
//
// When two batches are already buffered Put waits for the older one to be
// written; if ctx ends first it returns ctx's error, and the node stays
// buffered (it will be written by the next batch or Flush).
//
// The caller vouches that data hashes to h: the store trusts it (every
// read from Badger is verified, so a wrong address is caught as corruption
// on its first read). With Options.VerifyPuts the check happens when the
// batch is written; a mismatch then fails that write (and every later Put
// and Flush) with an error naming both addresses, and nothing of the batch
// is stored.
func (s *NodeStore[N]) Put(ctx context.Context, h addr.Hash, data []byte, n N) error {
	return s.put(ctx, h, data, n, true)
}

// PutUncached is Put without adding n to the decoded-node cache: the node
// is readable from its buffered copy until written, then from Badger. Bulk
// loads use it for nodes unlikely to be read soon (a build's leaves), so
// that they do not hold the cache's memory, and evict what is hot, while
// the build's own memory should stay small.
func (s *NodeStore[N]) PutUncached(ctx context.Context, h addr.Hash, data []byte, n N) error {
	return s.put(ctx, h, data, n, false)
}

// PutUncachedBytes is PutUncached without the decoded node: data is
// decoded only if the node is read before it is written (Get, GetMany),
// which a bulk build's leaves seldom are. It spares the builder decoding
// every leaf it encodes (prolly.UncachedBytesPutter): at 10M rows the
// copy's tree build spent ~0.7 s of CPU parsing and indexing leaves that
// nobody read (copy-2026-12-08-s27.md). data must be freshly allocated
// and never modified (Codec.Decode may keep it).
func (s *NodeStore[N]) PutUncachedBytes(ctx context.Context, h addr.Hash, data []byte) error {
	var zero N
	return s.putNode(ctx, h, pendingNode[N]{data: data, n: zero}, false)
}

func (s *NodeStore[N]) put(ctx context.Context, h addr.Hash, data []byte, n N, cache bool) error {
	return s.putNode(ctx, h, pendingNode[N]{data: data, n: n, decoded: true}, cache)
}

func (s *NodeStore[N]) putNode(ctx context.Context, h addr.Hash, p pendingNode[N], cache bool) error {
	data, n := p.data, p.n
	s.puts.Add(1)
	if cache && s.cache != nil {
		s.cache.add(h, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.swept != nil {
		s.swept[h] = struct{}{}
	}
	if _, ok := s.cur.nodes[h]; ok {
		return nil
	}
	s.cur.nodes[h] = p
	s.cur.bytes += int64(len(data))
	for s.cur.bytes >= s.db.opts.PendingBytes {
		if s.inflight == nil {
			s.startWrite(context.WithoutCancel(ctx))
			return nil
		}
		// Back-pressure: one batch in flight at a time bounds pending
		// memory to about 2×PendingBytes.
		if err := s.waitInflight(ctx); err != nil {
			return fmt.Errorf("put node %s: %w", h, err)
		}
		if s.err != nil {
			return s.err
		}
	}
	return nil
}

// waitInflight releases mu until the in-flight batch is done or ctx ends.
// The caller holds mu; it holds it again on return.
func (s *NodeStore[N]) waitInflight(ctx context.Context) error {
	b := s.inflight
	s.mu.Unlock()
	defer s.mu.Lock()
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startWrite moves cur to inflight and writes it in a goroutine. The caller
// holds mu and has checked that nothing is in flight. The goroutine is owned
// by the store: Flush waits for it.
func (s *NodeStore[N]) startWrite(ctx context.Context) {
	b := s.cur
	s.cur = newBatch[N]()
	invariants.Check(s.inflight == nil, "node store: a second batch put in flight")
	s.inflight = b
	s.writers.Add(1)
	go func() {
		defer s.writers.Done()
		s.finish(ctx, b, s.write(ctx, b))
	}()
}

// finish retires the in-flight batch b. A write stopped by its context
// (a cancelled Flush) is requeued into cur: rewriting nodes is harmless, and
// the Puts already returned nil. Any other error is recorded and sticks.
func (s *NodeStore[N]) finish(ctx context.Context, b *batch[N], err error) {
	s.mu.Lock()
	switch {
	case err == nil:
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		for h, p := range b.nodes {
			if _, ok := s.cur.nodes[h]; !ok {
				s.cur.nodes[h] = p
				s.cur.bytes += int64(len(p.data))
			}
		}
	case s.err == nil:
		s.err = err
	}
	s.inflight = nil
	close(b.done)
	s.mu.Unlock()
}

// Flush writes every earlier Put into Badger and returns when they are
// readable from it. Flush does not fsync: call DB.Sync for durability
// across a crash (once per commit group, for every component at once).
// A Flush cancelled through ctx leaves its nodes buffered for the next one.
func (s *NodeStore[N]) Flush(ctx context.Context) error {
	s.mu.Lock()
	for s.inflight != nil {
		if err := s.waitInflight(ctx); err != nil {
			s.mu.Unlock()
			return fmt.Errorf("flush nodes: %w", err)
		}
	}
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		return err
	}
	if len(s.cur.nodes) == 0 {
		s.mu.Unlock()
		return nil
	}
	b := s.cur
	s.cur = newBatch[N]()
	invariants.Check(s.inflight == nil, "node store: a second batch put in flight")
	s.inflight = b
	s.mu.Unlock()
	err := s.write(ctx, b)
	s.finish(ctx, b, err)
	return err
}

// arenaBytes is the size of the buffers write encodes values into.
const arenaBytes = 1 << 20

type encodedNode struct {
	key, val []byte
}

// write compresses (on every core; verifies too with Options.VerifyPuts)
// and writes one batch.
func (s *NodeStore[N]) write(ctx context.Context, b *batch[N]) error {
	hs := make([]addr.Hash, 0, len(b.nodes))
	for h := range b.nodes {
		hs = append(hs, h)
	}
	// Address order: a batch's writes (and any error) are deterministic,
	// and Badger's skiplist inserts walk warm paths.
	slices.SortFunc(hs, compareHash)
	enc := make([]encodedNode, len(hs))
	workers := min(runtime.GOMAXPROCS(0), (len(hs)+minPerWorker-1)/minPerWorker)
	var g errgroup.Group
	var next atomic.Int64
	// used are each worker's arenas, free again once Badger has the batch.
	used := make([][][]byte, workers)
	for w := range workers {
		g.Go(func() error {
			// Values and keys are carved from per-worker arenas: two
			// allocations a MiB instead of two a node, and no slack
			// beyond each value's compressed size.
			var arena []byte
			for {
				k := int(next.Add(1) - 1)
				if k >= len(hs) {
					if arena != nil {
						used[w] = append(used[w], arena)
					}
					return nil
				}
				h := hs[k]
				data := b.nodes[h].data
				if s.db.opts.VerifyPuts {
					if got := addr.Of(data); got != h {
						return fmt.Errorf("put node %s: its %d bytes hash to %s", h, len(data), got)
					}
				}
				need := 1 + addr.Size + maxEncodedLen(len(data))
				if cap(arena)-len(arena) < need {
					if arena != nil {
						used[w] = append(used[w], arena)
					}
					arena = s.arenas.get(need)
				}
				off := len(arena)
				arena = append(arena, PrefixNode)
				arena = append(arena, h[:]...)
				arena = s.db.codec.encode(arena, data)
				enc[k] = encodedNode{
					key: arena[off : off+1+addr.Size : off+1+addr.Size],
					val: arena[off+1+addr.Size : len(arena) : len(arena)],
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("write nodes: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write nodes: %w", err)
	}
	// A batch is idempotent: rewritten while Badger refuses writes.
	var stored int64
	if err := RetryBlocked(ctx, func() (err error) {
		stored, err = s.writeBatch(enc)
		return err
	}); err != nil {
		return fmt.Errorf("write %d nodes: %w", len(enc), err)
	}
	// WriteBatch.Flush returned: Badger copied every key and value.
	clear(enc)
	for _, as := range used {
		for _, a := range as {
			s.arenas.put(a)
		}
	}
	s.written.Add(int64(len(enc)))
	s.rawBytes.Add(b.bytes)
	s.storedBytes.Add(stored)
	s.batches.Add(1)
	return nil
}

// Close flushes buffered Puts and waits for the store's write goroutine.
// The DB stays open; closing it is its owner's job.
func (s *NodeStore[N]) Close(ctx context.Context) error {
	err := s.Flush(ctx)
	s.writers.Wait()
	s.untrack()
	return err
}

// blockedWriteTimeout bounds how long a batch waits for Badger to accept
// writes again.
const blockedWriteTimeout = 30 * time.Second

// writeBatch writes encoded nodes with one Badger WriteBatch (transactions
// split and committed as they fill, all awaited by Flush).
func (s *NodeStore[N]) writeBatch(enc []encodedNode) (int64, error) {
	if err := s.db.CheckSpace(); err != nil {
		return 0, err
	}
	wb := s.db.bdb.NewWriteBatch()
	defer wb.Cancel()
	var stored int64
	for _, e := range enc {
		if err := wb.Set(e.key, e.val); err != nil {
			return 0, err
		}
		stored += int64(len(e.val))
	}
	if err := wb.Flush(); err != nil {
		return 0, err
	}
	return stored, nil
}

// ClearCache drops every cached node, so that benchmarks can measure cold
// reads. Buffered Puts stay readable.
func (s *NodeStore[N]) ClearCache() {
	if s.cache != nil {
		s.cache.clear()
	}
}

// Stats are cumulative counters and current occupancy of a NodeStore.
type Stats struct {
	CacheHits      int64 // Get/GetMany addresses served by the cache
	CacheMisses    int64 // addresses the cache did not hold
	CacheEvictions int64
	CacheBytes     int64 // bytes cached now (Codec.Size + per-entry overhead)
	CacheEntries   int64
	CacheCapacity  int64 // the bound on CacheBytes

	PendingHits  int64 // addresses served from buffered Puts
	PendingNodes int64 // Puts not yet written
	PendingBytes int64
	// ArenaBytes are the encoding arenas kept for the next batch's
	// write (arenaFree: at most arenaKeep MiB).
	ArenaBytes int64

	Reads     int64 // values read from Badger
	ReadBytes int64 // stored (compressed) bytes read
	Corrupt   int64 // reads that failed verification

	Puts         int64 // Put calls
	NodesWritten int64 // nodes written to Badger (Puts minus duplicates in a batch)
	BytesRaw     int64 // node bytes written, before compression
	BytesStored  int64 // value bytes written (tag + compressed)
	Batches      int64 // write batches
}

// Stats returns a snapshot of the store's counters.
func (s *NodeStore[N]) Stats() Stats {
	st := Stats{
		PendingHits:  s.pendingHits.Load(),
		Reads:        s.reads.Load(),
		ReadBytes:    s.readBytes.Load(),
		Corrupt:      s.corrupt.Load(),
		Puts:         s.puts.Load(),
		NodesWritten: s.written.Load(),
		BytesRaw:     s.rawBytes.Load(),
		BytesStored:  s.storedBytes.Load(),
		Batches:      s.batches.Load(),
	}
	if s.cache != nil {
		cs := s.cache.stats()
		st.CacheHits, st.CacheMisses, st.CacheEvictions = cs.hits, cs.misses, cs.evictions
		st.CacheBytes, st.CacheEntries, st.CacheCapacity = cs.bytes, cs.entries, cs.cap
	}
	st.ArenaBytes = int64(s.arenas.kept()) * arenaBytes
	s.mu.RLock()
	st.PendingNodes = int64(len(s.cur.nodes))
	st.PendingBytes = s.cur.bytes
	if s.inflight != nil {
		st.PendingNodes += int64(len(s.inflight.nodes))
		st.PendingBytes += s.inflight.bytes
	}
	s.mu.RUnlock()
	return st
}
