package store

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/invariants"
)

// nodeCache is a sharded CLOCK cache of decoded nodes bounded in bytes.
//
// CLOCK rather than LRU: a hit only sets a reference bit (an atomic store
// under the shard's read lock), so concurrent readers of hot internal nodes
// never serialise on a write lock or a list splice. Eviction sweeps a hand
// over the shard's slots, clearing bits and evicting unreferenced entries.
//
// INVARIANT: for each shard, used == Σ size of live slots, and used <= cap
// after every insert returns.
type nodeCache[N any] struct {
	shards []cacheShard[N]
	mask   uint64
	sizeOf func(N) int
}

type cacheSlot[N any] struct {
	h    addr.Hash
	n    N
	size int64
	live bool
	ref  atomic.Bool
}

type cacheShard[N any] struct {
	mu    sync.RWMutex
	index map[addr.Hash]int32
	slots []cacheSlot[N]
	free  []int32
	hand  int
	used  int64
	cap   int64
	// Counters live in the shard, not in the cache, so that readers on
	// different cores do not bounce one cache line on every hit.
	hits, misses, evictions atomic.Int64
	checks                  int      // inserts seen by checkAccounting (invariants builds)
	_                       [64]byte // keep neighbouring shards' locks off one cache line
}

// entryOverhead is charged per entry on top of Codec.Size: the slot, the
// index map entry and the address.
const entryOverhead = 96

// minShardBytes keeps shards large enough for many 4 KiB nodes each, so a
// small cache is not split into shards that each hold one node.
const minShardBytes = 1 << 20

// newNodeCache returns a cache of capBytes in total, or nil when capBytes is
// not positive (caching disabled).
func newNodeCache[N any](capBytes int64, sizeOf func(N) int) *nodeCache[N] {
	if capBytes <= 0 {
		return nil
	}
	n := 1
	for n < 64 && capBytes/int64(n*2) >= minShardBytes {
		n *= 2
	}
	c := &nodeCache[N]{shards: make([]cacheShard[N], n), mask: uint64(n - 1), sizeOf: sizeOf}
	for i := range c.shards {
		c.shards[i].index = make(map[addr.Hash]int32)
		c.shards[i].cap = capBytes / int64(n)
	}
	return c
}

func (c *nodeCache[N]) shard(h addr.Hash) *cacheShard[N] {
	// Addresses are SHA-256 prefixes: any 8 bytes are uniform.
	return &c.shards[binary.LittleEndian.Uint64(h[12:20])&c.mask]
}

// get returns the cached node at h.
func (c *nodeCache[N]) get(h addr.Hash) (N, bool) {
	s := c.shard(h)
	s.mu.RLock()
	i, ok := s.index[h]
	if !ok {
		s.mu.RUnlock()
		s.misses.Add(1)
		var zero N
		return zero, false
	}
	slot := &s.slots[i]
	if !slot.ref.Load() {
		slot.ref.Store(true)
	}
	n := slot.n
	s.mu.RUnlock()
	s.hits.Add(1)
	return n, true
}

// add caches n at h. A node larger than a shard is not cached.
func (c *nodeCache[N]) add(h addr.Hash, n N) {
	size := int64(c.sizeOf(n)) + entryOverhead
	s := c.shard(h)
	if size > s.cap {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, ok := s.index[h]; ok {
		// Same address, same content: keep the resident copy.
		s.slots[i].ref.Store(true)
		return
	}
	for s.used+size > s.cap {
		evictOne(s)
	}
	var i int32
	if k := len(s.free); k > 0 {
		i = s.free[k-1]
		s.free = s.free[:k-1]
	} else {
		s.slots = append(s.slots, cacheSlot[N]{})
		i = int32(len(s.slots) - 1)
	}
	slot := &s.slots[i]
	slot.h, slot.n, slot.size, slot.live = h, n, size, true
	// New entries start unreferenced: a node read once (a scan) is the
	// first to go, one read twice survives a sweep.
	slot.ref.Store(false)
	s.index[h] = i
	s.used += size
	if invariants.Enabled {
		s.checkAccounting()
	}
}

// checkAccounting asserts the INVARIANT of nodeCache (built with the
// invariants tag or -race only). It walks every slot of the shard, so it
// runs on a sample of inserts: every 64th, and every insert of a shard with
// few slots.
func (s *cacheShard[N]) checkAccounting() {
	s.checks++
	if len(s.slots) > 64 && s.checks%64 != 0 {
		return
	}
	var sum int64
	live := 0
	for i := range s.slots {
		if s.slots[i].live {
			sum += s.slots[i].size
			live++
		}
	}
	invariants.Check(sum == s.used, "cache shard used=%d but live slots hold %d", s.used, sum)
	invariants.Check(s.used <= s.cap, "cache shard used=%d above cap=%d", s.used, s.cap)
	invariants.Check(live == len(s.index), "cache shard has %d live slots but %d index entries", live, len(s.index))
	invariants.Check(live+len(s.free) == len(s.slots), "cache shard: %d live + %d free != %d slots", live, len(s.free), len(s.slots))
}

// evictOne advances the hand until it evicts one entry. The caller holds
// s.mu and guarantees s.used > 0, so a live slot exists and at most two
// sweeps (the first clearing reference bits) find a victim.
func evictOne[N any](s *cacheShard[N]) {
	for {
		if s.hand >= len(s.slots) {
			s.hand = 0
		}
		slot := &s.slots[s.hand]
		s.hand++
		if !slot.live {
			continue
		}
		if slot.ref.Load() {
			slot.ref.Store(false)
			continue
		}
		delete(s.index, slot.h)
		s.used -= slot.size
		var zero N
		slot.n, slot.live, slot.size = zero, false, 0
		s.free = append(s.free, int32(s.hand-1))
		s.evictions.Add(1)
		return
	}
}

// remove drops the entry at h, if cached.
func (c *nodeCache[N]) remove(h addr.Hash) {
	s := c.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.index[h]
	if !ok {
		return
	}
	slot := &s.slots[i]
	delete(s.index, h)
	s.used -= slot.size
	var zero N
	slot.n, slot.live, slot.size = zero, false, 0
	slot.ref.Store(false)
	s.free = append(s.free, i)
}

// clear drops every entry (benchmarks of cold reads).
func (c *nodeCache[N]) clear() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.index = make(map[addr.Hash]int32)
		s.slots, s.free, s.hand, s.used = nil, nil, 0, 0
		s.mu.Unlock()
	}
}

// cacheStats is a snapshot of the cache's counters and occupancy.
type cacheStats struct {
	hits, misses, evictions int64
	bytes, entries, cap     int64
}

func (c *nodeCache[N]) stats() cacheStats {
	var st cacheStats
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		st.bytes += s.used
		st.entries += int64(len(s.index))
		st.cap += s.cap
		s.mu.RUnlock()
		st.hits += s.hits.Load()
		st.misses += s.misses.Load()
		st.evictions += s.evictions.Load()
	}
	return st
}
