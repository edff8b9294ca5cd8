package heap

import (
	"github.com/sidecar-dev/sidecar/internal/prefault"
	"math/big"
	"math/bits"
	"slices"
)

// RowID names a row for as long as it lives in its slot: page<<16 | slot.
// Updates keep it unless the row no longer fits its page (then Apply
// returns the new id); incremental compaction never changes it; only full
// compaction renumbers (and returns the remapping).
type RowID uint64

const slotBits = 16

// MakeRowID returns the row id of slot in page.
func MakeRowID(page uint32, slot int) RowID { return RowID(page)<<slotBits | RowID(slot) }

// Page returns the row id's page number.
func (r RowID) Page() uint32 { return uint32(r >> slotBits) }

// Slot returns the row id's slot in its page.
func (r RowID) Slot() int { return int(r & (1<<slotBits - 1)) }

// colSeg holds one column of one page: PAX, one typed segment per column.
// Which slices exist depends on the kind (see Kind): ints for the integer
// kinds, flts for floats, ints+scale for numeric, off/ln/data for text and
// for the exceptions of the typed kinds (exc marks those slots). The
// fixed-width slices have the page's full slot capacity.
//
// INVARIANT: a segment whose epoch is not the writer's current batch is
// shared with published versions, and the writer copies it before writing
// (mutable), with two exceptions, both for places no published version
// reads: data is append-only (bytes past the length a version saw are not
// referenced by it; rewriting data, in compaction, allocates a new slice),
// and the per-slot arrays may be written without a copy at slots at or
// past the page's published n (slot counts never shrink within a page, so
// no older version reads them). Bitmaps share words between slots, so
// they are always copied first (bmEpoch).
type colSeg struct {
	epoch   uint64 // batch that owns every slice below (but data)
	bmEpoch uint64 // batch that owns nulls and exc
	nulls   []uint64
	ints    []int64
	flts    []float64
	scale   []uint8
	exc     []uint64 // nil until a slot of the page holds an exception
	nexc    int
	off     []uint32
	ln      []uint32
	data    []byte
}

// page is one PAX page: up to cap slots, each live (a row), dead (deleted,
// not yet reclaimed: its row id is not reused until compaction frees it)
// or free.
type page struct {
	id    uint32
	epoch uint64 // batch that made this copy: only that batch may mutate it
	n     int    // slots in use: every slot ≥ n is free; never decreases
	pubN  int    // n when this copy was made: slots ≥ pubN no published version reads
	live  []uint64
	dead  []uint64
	nlive int
	ndead int
	cols  []colSeg
	stats []ColStats
	// varUsed is the length of all varlen data (live, dead and overwritten
	// bytes); garbage the part no live slot references.
	varUsed int
	garbage int
	// cold, when set, is the page's compressed image and cols is nil: the
	// page was made cold by the memory bound (cold.go). Everything else
	// above stays valid.
	cold []byte
	// disk, when set, is the page's record in a PageFile (Config.Pages):
	// a cold page whose compressed image is on disk, not in cold.
	disk *diskRef
	// ck, when set, is the page's image in the checkpoint it was restored
	// from (Config.RestoreCold): a cold page whose compressed image is
	// read from the PageStore until Warm decodes it or moves it to the
	// page file (restorecold.go).
	ck *ckptRef
	// memCache is memBytes()+1 of a page no batch may mutate any more
	// (an older epoch's), 0 until the writer's decodedBytes computes it.
	// Only the writer reads or writes it (never readers: they may share
	// the page), and clone resets it.
	memCache int64
}

// isCold reports whether p is cold: its values compressed, in memory or
// on disk, and cols nil.
func (p *page) isCold() bool { return p.cold != nil || p.disk != nil || p.ck != nil }

func words(n int) int { return (n + 63) / 64 }

func bit(b []uint64, i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func setBit(b []uint64, i int)   { b[i>>6] |= 1 << (uint(i) & 63) }
func clrBit(b []uint64, i int)   { b[i>>6] &^= 1 << (uint(i) & 63) }

// newPage returns an empty page owned by epoch.
func newPage(id uint32, s *Schema, capSlots int, epoch uint64) *page {
	return newPageCols(id, s, capSlots, epoch, nil)
}

func newSeg(k Kind, capSlots int, epoch uint64) colSeg {
	g := colSeg{epoch: epoch, nulls: make([]uint64, words(capSlots))}
	switch {
	case k == KindText:
		g.off = make([]uint32, capSlots)
		g.ln = make([]uint32, capSlots)
	case k == KindNumeric:
		g.ints = make([]int64, capSlots)
		g.scale = make([]uint8, capSlots)
	case k.IsInt():
		g.ints = make([]int64, capSlots)
	case k.IsFloat():
		g.flts = make([]float64, capSlots)
	}
	// A full page's 8-byte values span pages of fresh memory: mapped in
	// one call, not a fault a page (internal/prefault).
	prefault.Slice(g.ints)
	prefault.Slice(g.flts)
	return g
}

// clone returns a copy of p for batch epoch: the page header, bitmaps and
// stats are copied, the column segments shared until mutable copies them.
func (p *page) clone(epoch uint64) *page {
	q := *p
	q.epoch = epoch
	q.memCache = 0
	q.pubN = p.n
	q.live = slices.Clone(p.live)
	q.dead = slices.Clone(p.dead)
	q.cols = slices.Clone(p.cols)
	q.stats = make([]ColStats, len(p.stats))
	for i := range p.stats {
		q.stats[i] = p.stats[i].clone()
	}
	return &q
}

// mutable makes column c of p (owned by epoch) writable at every slot.
func (p *page) mutable(c int, epoch uint64) *colSeg { return p.mutableAt(c, epoch, 0) }

// mutableAt makes column c of p writable at slot: past the published
// slot count only the bitmaps need copying (see the colSeg invariant).
func (p *page) mutableAt(c int, epoch uint64, slot int) *colSeg {
	g := &p.cols[c]
	if g.epoch == epoch {
		return g
	}
	if g.bmEpoch != epoch {
		g.bmEpoch = epoch
		g.nulls = slices.Clone(g.nulls)
		if g.exc != nil {
			g.exc = slices.Clone(g.exc)
		}
	}
	if slot >= p.pubN {
		return g
	}
	g.epoch = epoch
	if g.ints != nil {
		g.ints = slices.Clone(g.ints)
	}
	if g.flts != nil {
		g.flts = slices.Clone(g.flts)
	}
	if g.scale != nil {
		g.scale = slices.Clone(g.scale)
	}
	if g.off != nil {
		g.off = slices.Clone(g.off)
		g.ln = slices.Clone(g.ln)
	}
	// data: append-only, see the invariant on colSeg.
	return g
}

// freeSlot returns a free slot, or -1 when the page is full.
func (p *page) freeSlot(capSlots int) int {
	if p.n-p.nlive-p.ndead > 0 {
		for w := 0; w < words(p.n); w++ {
			used := p.live[w] | p.dead[w]
			if used != ^uint64(0) {
				i := w*64 + bits.TrailingZeros64(^used)
				if i < p.n {
					return i
				}
			}
		}
	}
	if p.n < capSlots {
		return p.n
	}
	return -1
}

// cell is one parsed column of a row being applied.
type cell struct {
	null bool
	text []byte // the canonical text (a sub-slice of the applied row)
	v    typed
}

// needsVarlen reports whether the cell's text goes to the varlen segment.
func (c *cell) needsVarlen(k Kind) bool {
	return !c.null && (k == KindText || c.v.exc)
}

// storeVarlen appends text to the segment's data and points slot at it.
func (p *page) storeVarlen(g *colSeg, slot int, text []byte, capSlots int) {
	if g.off == nil {
		g.off = make([]uint32, capSlots)
		g.ln = make([]uint32, capSlots)
	}
	g.off[slot] = uint32(len(g.data))
	g.ln[slot] = uint32(len(text))
	g.data = append(g.data, text...)
	p.varUsed += len(text)
}

// setExc sets or clears slot's exception bit.
func setExc(g *colSeg, slot int, on bool, capSlots int) {
	if on {
		if g.exc == nil {
			g.exc = make([]uint64, words(capSlots))
		}
		if !bit(g.exc, slot) {
			setBit(g.exc, slot)
			g.nexc++
		}
		return
	}
	if g.exc != nil && bit(g.exc, slot) {
		clrBit(g.exc, slot)
		g.nexc--
	}
}

// varBytes returns the varlen bytes the slot's value of column c holds
// (0 for none).
func (p *page) varBytes(k Kind, c, slot int) int {
	g := &p.cols[c]
	if bit(g.nulls, slot) {
		return 0
	}
	if k == KindText || (g.exc != nil && bit(g.exc, slot)) {
		return int(g.ln[slot])
	}
	return 0
}

// text returns the slot's varlen bytes of column c.
func (g *colSeg) text(slot int) []byte {
	o := g.off[slot]
	return g.data[o : o+g.ln[slot] : o+g.ln[slot]]
}

// load reads slot's value of column c back into a cell (text only for
// varlen-held values).
func (p *page) load(k Kind, c, slot int, out *cell) {
	g := &p.cols[c]
	*out = cell{}
	if bit(g.nulls, slot) {
		out.null = true
		return
	}
	switch {
	case k == KindText:
		out.text = g.text(slot)
		return
	case k.IsFloat():
		out.v.f = g.flts[slot]
	default:
		out.v.i = g.ints[slot]
		if g.scale != nil {
			out.v.scale = g.scale[slot]
		}
	}
	if g.exc != nil && bit(g.exc, slot) {
		out.v.exc = true
		out.text = g.text(slot)
	}
}

// write stores cell x as slot's value of column c (the column already
// mutable).
func (p *page) write(k Kind, g *colSeg, slot int, x *cell, capSlots int) {
	if x.null {
		setBit(g.nulls, slot)
		setExc(g, slot, false, capSlots)
		return
	}
	clrBit(g.nulls, slot)
	switch {
	case k == KindText:
		p.storeVarlen(g, slot, x.text, capSlots)
		return
	case k.IsFloat():
		g.flts[slot] = x.v.f
	default:
		g.ints[slot] = x.v.i
		if g.scale != nil {
			g.scale[slot] = x.v.scale
		}
	}
	setExc(g, slot, x.v.exc, capSlots)
	if x.v.exc {
		p.storeVarlen(g, slot, x.text, capSlots)
	}
}

// same reports whether x equals the slot's current value of column c, so
// an update can leave the column (and its segment) untouched.
func (p *page) same(k Kind, c, slot int, x *cell) bool {
	g := &p.cols[c]
	null := bit(g.nulls, slot)
	if null || x.null {
		return null == x.null
	}
	if k == KindText {
		return string(g.text(slot)) == string(x.text)
	}
	exc := g.exc != nil && bit(g.exc, slot)
	if exc != x.v.exc {
		return false
	}
	if exc {
		return string(g.text(slot)) == string(x.text)
	}
	switch {
	case k.IsFloat():
		a, b := g.flts[slot], x.v.f
		return a == b && (a != 0 || (1/a > 0) == (1/b > 0)) // -0 prints differently
	case k == KindNumeric:
		return g.ints[slot] == x.v.i && g.scale[slot] == x.v.scale
	default:
		return g.ints[slot] == x.v.i
	}
}

// appendText appends the canonical text of slot's value of column c to dst
// (the caller handles NULL).
func (p *page) appendText(dst []byte, k Kind, c, slot int) []byte {
	g := &p.cols[c]
	if k == KindText || (g.exc != nil && bit(g.exc, slot)) {
		return append(dst, g.text(slot)...)
	}
	var f float64
	var i int64
	var sc uint8
	if g.flts != nil {
		f = g.flts[slot]
	} else {
		i = g.ints[slot]
		if g.scale != nil {
			sc = g.scale[slot]
		}
	}
	return appendTyped(dst, k, i, f, sc)
}

// recomputeStats recomputes every column's summary from the live values.
func (p *page) recomputeStats(s *Schema) {
	var x cell
	for c, col := range s.Columns {
		st := ColStats{}
		tmp := new(big.Int)
		for w := 0; w < words(p.n); w++ {
			m := p.live[w]
			for m != 0 {
				slot := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				p.load(col.Kind, c, slot, &x)
				st.addValue(col.Kind, x.null, &x.v, x.text, tmp)
			}
		}
		p.stats[c] = st
	}
}

// refreshMinMax recomputes min/max of the stale columns only.
func (p *page) refreshMinMax(s *Schema) {
	for c, col := range s.Columns {
		st := &p.stats[c]
		if !st.stale {
			continue
		}
		st.stale = false
		g := &p.cols[c]
		first := true
		var x cell
		for w := 0; w < words(p.n); w++ {
			m := p.live[w] &^ g.nulls[w]
			for m != 0 {
				slot := w*64 + bits.TrailingZeros64(m)
				m &= m - 1
				switch {
				case col.Kind == KindText:
					st.extendB(g.text(slot), first, 1)
				case col.Kind == KindNumeric:
					p.load(col.Kind, c, slot, &x)
					n := numericOf(&x.v, x.text)
					st.extendN(&n, first, 1)
				case col.Kind.IsFloat():
					st.extendF(g.flts[slot], first, 1)
				default:
					st.extendI(g.ints[slot], first, 1)
				}
				first = false
			}
		}
	}
}

// vacuum is incremental compaction: dead slots become free (their row ids
// reusable) and varlen garbage is dropped by rewriting the data of the
// columns that hold any. Live rows keep their slots; the slot count is not
// trimmed (see colSeg). The page must be owned by epoch.
func (p *page) vacuum(s *Schema, epoch uint64) {
	for w := range p.dead {
		p.dead[w] = 0
	}
	p.ndead = 0
	if p.garbage > 0 {
		used := 0
		for c, col := range s.Columns {
			if p.cols[c].off == nil {
				continue
			}
			g := p.mutable(c, epoch)
			size := 0
			for w := 0; w < words(p.n); w++ {
				m := p.live[w]
				for m != 0 {
					slot := w*64 + bits.TrailingZeros64(m)
					m &= m - 1
					size += p.varBytes(col.Kind, c, slot)
				}
			}
			data := make([]byte, 0, size)
			for slot := 0; slot < p.n; slot++ {
				if !bit(p.live, slot) || p.varBytes(col.Kind, c, slot) == 0 {
					g.off[slot], g.ln[slot] = uint32(len(data)), 0
					continue
				}
				t := g.text(slot)
				g.off[slot] = uint32(len(data))
				data = append(data, t...)
			}
			g.data = data
			used += len(data)
		}
		p.varUsed = used
		p.garbage = 0
	}
}

func popcount(w uint64) int { return bits.OnesCount64(w) }
