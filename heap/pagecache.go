package heap

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// PageCache keeps decoded cold pages read from a PageFile, within a byte
// bound, by the 2Q policy (Johnson and Shasha, 1994): a page read for the
// first time enters a FIFO (A1in, a quarter of the bound); pages pushed
// out of it are remembered by key only (A1out); a page read again while
// remembered is hot and enters an LRU (Am, the rest of the bound). A full
// scan reads each page once per run of its rows, so its pages pass
// through A1in and never displace the hot pages point lookups keep in Am:
// the scan-resistance PostgreSQL's ring buffers and CLOCK-Pro aim at.
// Hits in A1in do not promote (a scan reads one page many times in a row).
//
// Entries are keyed by record seq (unique within the file) and hold the
// page decoded for readers (its summaries shared with the cold page).
// A record freed by its heap is dropped from the cache.
type PageCache struct {
	limit int64

	mu     sync.Mutex
	in     *list.List // A1in, FIFO, front = newest
	am     *list.List // Am, LRU, front = most recent
	out    *list.List // A1out, keys only, front = newest
	byKey  map[uint64]*list.Element
	ghosts map[uint64]*list.Element
	inB    int64
	amB    int64

	hits, misses, evictions, promotions atomic.Int64
}

type cacheEntry struct {
	seq   uint64
	p     *page
	bytes int64
	hot   bool // in Am
}

// NewPageCache returns a cache of limit bytes (0: pages are not kept).
func NewPageCache(limit int64) *PageCache {
	return &PageCache{limit: max(limit, 0), in: list.New(), am: list.New(), out: list.New(),
		byKey: map[uint64]*list.Element{}, ghosts: map[uint64]*list.Element{}}
}

// PageCacheStats is the cache's state and counters.
type PageCacheStats struct {
	Limit, Bytes, HotBytes  int64
	Pages, HotPages, Ghosts int
	Hits, Misses, Evictions int64
	Promotions              int64
}

// Stats reports the cache's state.
func (c *PageCache) Stats() PageCacheStats {
	c.mu.Lock()
	st := PageCacheStats{Limit: c.limit, Bytes: c.inB + c.amB, HotBytes: c.amB,
		Pages: c.in.Len() + c.am.Len(), HotPages: c.am.Len(), Ghosts: c.out.Len()}
	c.mu.Unlock()
	st.Hits, st.Misses, st.Evictions, st.Promotions = c.hits.Load(), c.misses.Load(), c.evictions.Load(), c.promotions.Load()
	return st
}

// get returns the decoded page of record seq, if cached.
func (c *PageCache) get(seq uint64) *page {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[seq]
	if !ok {
		c.misses.Add(1)
		return nil
	}
	c.hits.Add(1)
	ce := e.Value.(*cacheEntry)
	if ce.hot {
		c.am.MoveToFront(e)
	}
	return ce.p
}

// put adds the decoded page of record seq (after a miss).
func (c *PageCache) put(seq uint64, p *page) {
	bytes := p.memBytes()
	if c.limit == 0 || bytes > c.limit/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[seq]; ok {
		return // another reader put it meanwhile
	}
	ce := &cacheEntry{seq: seq, p: p, bytes: bytes}
	if g, ok := c.ghosts[seq]; ok {
		// Read again since it left A1in: hot.
		c.out.Remove(g)
		delete(c.ghosts, seq)
		ce.hot = true
		c.byKey[seq] = c.am.PushFront(ce)
		c.amB += bytes
		c.promotions.Add(1)
	} else {
		c.byKey[seq] = c.in.PushFront(ce)
		c.inB += bytes
	}
	c.shrink()
}

// shrink evicts until the cache is within its limit: from A1in while it
// holds more than its quarter (remembering the keys), else from Am's
// least recent end.
func (c *PageCache) shrink() {
	for c.inB+c.amB > c.limit {
		if c.inB > c.limit/4 || c.am.Len() == 0 {
			e := c.in.Back()
			if e == nil {
				return
			}
			ce := c.in.Remove(e).(*cacheEntry)
			delete(c.byKey, ce.seq)
			c.inB -= ce.bytes
			c.evictions.Add(1)
			c.ghosts[ce.seq] = c.out.PushFront(ce.seq)
			// A1out remembers as many keys as the cache holds pages, at
			// least 64.
			for c.out.Len() > max(64, 2*(c.in.Len()+c.am.Len())) {
				delete(c.ghosts, c.out.Remove(c.out.Back()).(uint64))
			}
			continue
		}
		e := c.am.Back()
		ce := c.am.Remove(e).(*cacheEntry)
		delete(c.byKey, ce.seq)
		c.amB -= ce.bytes
		c.evictions.Add(1)
	}
}

// drop forgets record seq (freed by its heap).
func (c *PageCache) drop(seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g, ok := c.ghosts[seq]; ok {
		c.out.Remove(g)
		delete(c.ghosts, seq)
	}
	e, ok := c.byKey[seq]
	if !ok {
		return
	}
	delete(c.byKey, seq)
	ce := e.Value.(*cacheEntry)
	if ce.hot {
		c.am.Remove(e)
		c.amB -= ce.bytes
	} else {
		c.in.Remove(e)
		c.inB -= ce.bytes
	}
}
