package heap

import "slices"

// pageTable maps page numbers to the pages of one version, in chunks of
// ptSize, so that a batch copies only the chunks of the pages it touches
// (one 2 KiB chunk per 256 pages, plus the chunk list) rather than the
// whole table: the per-batch cost of a one-row transaction does not grow
// with the table.
type pageTable struct {
	chunks []*ptChunk
	n      int
}

const (
	ptShift = 8
	ptSize  = 1 << ptShift
)

// ptChunk is shared between versions until a batch writes it.
type ptChunk struct {
	epoch uint64 // batch that owns it
	// decoded is 1 + the decoded bytes of the chunk's pages that are not
	// cold, once a later batch saw the chunk (0: not summed yet). A
	// chunk no batch owns any more never changes (set copies it first),
	// so the bound's checks (cold.go) sum it once instead of walking its
	// pages at every check. Writer only, like the pages' memCache.
	decoded int64
	p       [ptSize]*page
}

// settled returns the decoded bytes of chunk c's pages that are not cold,
// for the writer of batch epoch, which must not own c: c is summed the
// first time and the sum kept (c cannot change any more).
func (c *ptChunk) settled(h *Heap, epoch uint64) int64 {
	if c.decoded > 0 {
		return c.decoded - 1
	}
	var n int64
	for _, p := range c.p {
		if p != nil && !p.isCold() {
			n += decodedBytes(p, epoch)
		}
	}
	h.boundWalked += ptSize
	c.decoded = n + 1
	return n
}

// chunkPages is how many pages chunk ci of t holds.
func (t *pageTable) chunkPages(ci int) int {
	return min(t.n-ci<<ptShift, ptSize)
}

func (t *pageTable) len() int { return t.n }

func (t *pageTable) at(i int) *page { return t.chunks[i>>ptShift].p[i&(ptSize-1)] }

// clone returns a table sharing every chunk with t.
func (t *pageTable) clone() pageTable {
	return pageTable{chunks: slices.Clone(t.chunks), n: t.n}
}

// set stores p as page i for batch epoch, copying the chunk first if it
// is shared.
func (t *pageTable) set(i int, p *page, epoch uint64) {
	c := t.chunks[i>>ptShift]
	if c.epoch != epoch {
		cp := *c
		cp.epoch, cp.decoded = epoch, 0
		c = &cp
		t.chunks[i>>ptShift] = c
	}
	c.p[i&(ptSize-1)] = p
}

// push appends p as page t.len().
func (t *pageTable) push(p *page, epoch uint64) {
	if t.n>>ptShift == len(t.chunks) {
		t.chunks = append(t.chunks, &ptChunk{epoch: epoch})
	}
	t.n++
	t.set(t.n-1, p, epoch)
}
