package heap

import (
	"slices"
	"sync"
	"sync/atomic"
)

// A statement that scans one table several times (TPC-H's Q21 reads
// lineitem three times: the outer scan, EXISTS and NOT EXISTS) decoded
// every cold page once per scan: each scan's ColReader decodes the pages
// for itself alone (colread.go), and the page file's cache keeps only
// whole pages read by point lookups (a scan's pages would push those
// out). A ScanCache is the statement's own: the pages one of its scans
// decoded, kept for its other scans of the same table, within a byte
// bound charged to the statement's working memory. It is attached to the
// heap snapshot the statement's scans share (ShareScans) and dropped
// when the last of those scans ends (EndScan) or the snapshot is
// released, whichever comes first.
//
// The bound is kept by refusing pages past it, not by evicting older
// ones: the scans read the pages in the same order, and a cache that
// evicted its oldest pages for the newest would hold, when the next scan
// starts, exactly the pages it reads last — every page of it a miss
// (the sequential flooding of an LRU). Refusing keeps the table's first
// pages, which the next scan hits. Entries are dropped together once no
// scan that could read them is left.
//
// A page is kept with the columns the scans read so far: a scan reading
// a column an entry lacks decodes that column alone and the entry grows
// to hold it (the decoded page is copied, its segments shared: a page a
// reader holds never changes).

// Charger is the working-memory account a ScanCache charges its pages to
// (membudget.Account): Grow refuses past the account's pool.
type Charger interface {
	Grow(n int64) error
	Shrink(n int64)
}

// ScanCache is the cold pages a statement's scans of one heap snapshot
// decoded. It is safe for concurrent use (a parallel scan's workers).
type ScanCache struct {
	limit  int64
	charge Charger // nil: not charged

	mu      sync.Mutex
	pages   map[*page]scanEntry // by the cold page (its identity)
	bytes   int64
	scans   int // scans that may still read it
	dropped bool

	hits, misses, refused atomic.Int64
}

// scanEntry is one cold page decoded for the columns has marks.
type scanEntry struct {
	p     *page
	has   []bool
	bytes int64
}

// ScanCacheStats counts a ScanCache's reads: pages served from it
// (Hits), decoded by a scan (Misses), not kept for lack of room
// (Refused), and the bytes it holds.
type ScanCacheStats struct {
	Hits, Misses, Refused int64
	Bytes                 int64
	Pages                 int
}

// Stats reports the cache's counters.
func (c *ScanCache) Stats() ScanCacheStats {
	c.mu.Lock()
	st := ScanCacheStats{Bytes: c.bytes, Pages: len(c.pages)}
	c.mu.Unlock()
	st.Hits, st.Misses, st.Refused = c.hits.Load(), c.misses.Load(), c.refused.Load()
	return st
}

// ShareScans attaches to the snapshot a ScanCache for scans of its pages
// (scans: how many scans of the statement will read them; limit: the
// bytes it may keep; charge: the statement's account, nil for none) and
// returns it; the snapshot's ColReaders read through it. A snapshot that
// has one keeps it: later calls return it unchanged. Fewer than two
// scans or no room: nothing is attached (nil).
func (s *Snapshot) ShareScans(scans int, limit int64, charge Charger) *ScanCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scans != nil {
		return s.scans
	}
	if scans < 2 || limit <= 0 || s.released {
		return nil
	}
	s.scans = &ScanCache{limit: limit, charge: charge, pages: map[*page]scanEntry{}, scans: scans}
	return s.scans
}

// ScanCache is the snapshot's ScanCache (nil: none).
func (s *Snapshot) ScanCache() *ScanCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scans
}

// EndScan tells the cache one of its scans has ended; after the last it
// drops its pages and keeps no more. Safe on a nil cache.
func (c *ScanCache) EndScan() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.scans--
	last := c.scans <= 0
	c.mu.Unlock()
	if last {
		c.drop()
	}
}

// drop empties the cache for good, giving its bytes back.
func (c *ScanCache) drop() {
	c.mu.Lock()
	n := c.bytes
	c.pages, c.bytes, c.dropped = nil, 0, true
	c.mu.Unlock()
	if c.charge != nil {
		c.charge.Shrink(n)
	}
}

// get returns the cache's entry for cold page p (p nil: none) and the
// columns of want it lacks (nil: the entry serves want).
func (c *ScanCache) get(p *page, want []bool) (scanEntry, []bool) {
	c.mu.Lock()
	e := c.pages[p]
	c.mu.Unlock()
	if e.p == nil {
		c.misses.Add(1)
		return e, want
	}
	var missing []bool
	for i, w := range want {
		if w && !e.has[i] {
			if missing == nil {
				missing = make([]bool, len(want))
			}
			missing[i] = true
		}
	}
	if missing == nil {
		c.hits.Add(1)
		return e, nil
	}
	c.misses.Add(1)
	return e, missing
}

// put returns cold page p decoded for the columns of e (the entry get
// returned) and those dec marks, decoded in q (what get said was
// missing): q itself when there was no entry, else e's page with q's
// columns added. The result becomes p's entry when the entry is still e
// and the bound leaves room for it (charged to the account).
func (c *ScanCache) put(p *page, e scanEntry, q *page, dec []bool) *page {
	out, has := q, slices.Clone(dec)
	if e.p != nil {
		m := *e.p
		m.cols = slices.Clone(e.p.cols)
		for i := range dec {
			if dec[i] {
				m.cols[i] = q.cols[i]
			}
			has[i] = dec[i] || e.has[i]
		}
		out = &m
	}
	bytes := out.memBytes()
	grow := bytes - e.bytes
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropped || c.pages[p].p != e.p {
		return out // dropped, or another scan's worker changed the entry meanwhile
	}
	if c.bytes+grow > c.limit {
		c.refused.Add(1)
		return out
	}
	if c.charge != nil && grow > 0 {
		if err := c.charge.Grow(grow); err != nil {
			c.refused.Add(1)
			return out
		}
	}
	c.bytes += grow
	c.pages[p] = scanEntry{p: out, has: has, bytes: bytes}
	return out
}
