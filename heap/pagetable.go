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
	p     [ptSize]*page
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
		cp.epoch = epoch
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
