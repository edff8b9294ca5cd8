package exec

// groupTab is the hash index of a rowMap: open addressing with linear
// probing over two flat arrays (each slot a row's hash and its index
// plus one; 0 is an empty slot), grown to twice its size past half
// full. It replaces a Go map of hash → []int, which cost a map entry
// and a slice per group (TPC-H Q18 groups 150,000 orders at SF 0.1):
// here a group costs 12 bytes of the arrays and nothing is allocated
// per group. Rows of one hash are met along the probe sequence in the
// order they were added; nothing is ever removed.
type groupTab struct {
	hashes []uint64
	idx    []int32
	mask   uint64
	n      int
}

// groupTabMin is the slots of a table's first allocation.
const groupTabMin = 16

// probe starts the walk over the rows whose hash is hv.
func (t *groupTab) probe(hv uint64) groupProbe {
	return groupProbe{t: t, pos: hv & t.mask, hv: hv}
}

// groupProbe walks the rows of one hash (next gives them in turn).
type groupProbe struct {
	t   *groupTab
	pos uint64
	hv  uint64
}

// next is the next row whose hash is the probe's, -1 past the last.
func (p *groupProbe) next() int {
	t := p.t
	if t.idx == nil {
		return -1
	}
	for {
		e := t.idx[p.pos]
		if e == 0 {
			return -1
		}
		h := t.hashes[p.pos]
		p.pos = (p.pos + 1) & t.mask
		if h == p.hv {
			return int(e - 1)
		}
	}
}

// add indexes row r under hash hv.
func (t *groupTab) add(hv uint64, r int) {
	if 2*(t.n+1) > len(t.idx) {
		t.grow()
	}
	t.put(hv, int32(r+1))
	t.n++
}

// put stores entry e (a row plus one) in hv's first free slot.
func (t *groupTab) put(hv uint64, e int32) {
	pos := hv & t.mask
	for t.idx[pos] != 0 {
		pos = (pos + 1) & t.mask
	}
	t.hashes[pos], t.idx[pos] = hv, e
}

// grow doubles the slots (groupTabMin first) and re-places the rows in
// the order they were added, so rows of one hash keep that order.
func (t *groupTab) grow() {
	size := max(groupTabMin, 2*len(t.idx))
	old, oldIdx := t.hashes, t.idx
	t.hashes, t.idx, t.mask = make([]uint64, size), make([]int32, size), uint64(size-1)
	order := make([]uint64, t.n) // each row's hash, by row
	for s, e := range oldIdx {
		if e != 0 {
			order[e-1] = old[s]
		}
	}
	for r, hv := range order {
		t.put(hv, int32(r+1))
	}
}
