package head

import (
	"slices"
	"unsafe"

	"github.com/sidecar-dev/sidecar/heap"
)

// keyStore keeps the tree key of every live row id of one table. The radix
// index stores no keys (a leaf is a row id) and reads them back through
// its KeyFunc; the heap stores rows, and the key of a keyless (REPLICA
// IDENTITY FULL) row carries an occurrence number that no column holds, so
// keys are kept here, per heap page, in one append-only arena each.
//
// Concurrency: written only by the model's writer while it holds the
// table's index write lock, read by readers under the read lock; so reads
// never overlap writes. Bytes handed out are never overwritten: set appends,
// and a compaction builds a new arena (old slices stay valid for the GC).
type keyStore struct {
	pages []*keyPage
	bytes int // arena bytes in use, garbage included
	// epoch counts freezes: a page of an older epoch may be shared with
	// a frozen view (freeze), so the writer copies it before changing it.
	epoch uint64
	// mapped is the read-only mappings of the key files the store was
	// restored from (mapKeyFile; nil: none), page i's in
	// mapped[i/mappedPer]: slices of them are the files' pages, not
	// memory of the store's own (mappedBytes).
	mapped    [][]byte
	mappedPer int
	// room is how many keys a fresh fixed page's buffer first has room
	// for (0: keyPageSlots). A copy build, which fills every page, sets
	// it to the heap's rows a page: grown from keyPageSlots by doubling,
	// each page's keys were copied three times (2 % of a 10M-row copy's
	// CPU, copy-2026-12-07-s23 in bench/results).
	room int
}

// frozenKeys is the key store as it was at a freeze, for a checkpoint to
// encode off the writer's lock.
type frozenKeys struct {
	pages []*keyPage
}

// freeze returns a view of the store as it is now, which later writes do
// not change: the page list is copied, the pages are shared, and the
// writer copies a shared page's slot bookkeeping (not its key bytes,
// which are never overwritten) the first time it changes it after the
// freeze (writable). The caller holds the index's write or read lock.
func (s *keyStore) freeze() frozenKeys {
	s.epoch++
	return frozenKeys{pages: slices.Clone(s.pages)}
}

// writable returns page pid for a change: p itself, or a copy of it in
// its place when p may be shared with a frozen view.
func (s *keyStore) writable(pid int, p *keyPage) *keyPage {
	if p.epoch == s.epoch {
		return p
	}
	c := *p
	c.epoch = s.epoch
	c.live, c.start, c.end = slices.Clone(p.live), slices.Clone(p.start), slices.Clone(p.end)
	if p.epoch == mappedEpoch {
		// A view of a mapped key part: its key bytes are copied too, so
		// that no changed page is a view of the part and the next
		// checkpoint, which rewrites the part, can give the mapping back
		// (Table.releaseImages). An insert or update would move them by
		// its append anyway (the view has no spare capacity); a page
		// changed only by deletes kept them in the mapping until exit.
		c.buf = slices.Clone(p.buf)
	}
	// The copy appends into buf's spare capacity, past every byte the
	// frozen view's slice of it covers: shared safely.
	s.pages[pid] = &c
	return &c
}

// keyPage holds the keys of one heap page, in one of two layouts.
//
// Fixed (width > 0): every key stored on the page so far has width bytes,
// slot i's at buf[i*width:(i+1)*width], present when its bit in live is
// set. A table whose key has a fixed-size encoding (bigint, int, uuid, …)
// keeps its pages in this layout: no offsets, width bytes a row (9 for a
// bigint key instead of 9 + 8 bytes of offsets).
//
// Variable (width == 0): slot i's key is buf[start[i]:end[i]]. A fixed
// page turns variable when a key of another length arrives, or when a
// slot whose bytes may have been handed out is written again (the store
// never overwrites bytes it handed out).
type keyPage struct {
	width      int
	live       []uint64 // fixed layout: the slots holding a key
	start, end []uint32 // variable layout
	buf        []byte
	garbage    int    // bytes of buf no slot names
	epoch      uint64 // the store's epoch when this page was made or copied
}

// keyPageSlots is how many keys a fixed page's buffer first has room
// for (a heap page holds 1,024 rows by default; the buffer doubles from
// there).
const keyPageSlots = 128

func (s *keyStore) page(id heap.RowID, grow bool) (*keyPage, int) {
	pid, slot := int(id.Page()), id.Slot()
	if pid >= len(s.pages) {
		if !grow {
			return nil, slot
		}
		s.pages = append(s.pages, make([]*keyPage, pid+1-len(s.pages))...)
	}
	p := s.pages[pid]
	if p == nil && grow {
		p = &keyPage{epoch: s.epoch}
		s.pages[pid] = p
	}
	return p, slot
}

// pageToWrite is page for a change (writable).
func (s *keyStore) pageToWrite(id heap.RowID, grow bool) (*keyPage, int) {
	p, slot := s.page(id, grow)
	if p == nil {
		return nil, slot
	}
	return s.writable(int(id.Page()), p), slot
}

// key returns the key stored for id (nil when none).
func (s *keyStore) key(id heap.RowID) []byte {
	p, slot := s.page(id, false)
	if p == nil {
		return nil
	}
	return p.key(slot)
}

// key returns slot's key (nil when none).
func (p *keyPage) key(slot int) []byte {
	if p.width > 0 {
		if !p.isLive(slot) {
			return nil
		}
		o := slot * p.width
		return p.buf[o : o+p.width : o+p.width]
	}
	if slot >= len(p.start) || p.start[slot] == p.end[slot] {
		return nil
	}
	return p.buf[p.start[slot]:p.end[slot]:p.end[slot]]
}

// slots is one past the highest slot the page has room for.
func (p *keyPage) slots() int {
	if p.width > 0 {
		return len(p.buf) / p.width
	}
	return len(p.start)
}

func (p *keyPage) isLive(slot int) bool {
	return slot/64 < len(p.live) && p.live[slot/64]&(1<<(slot%64)) != 0
}

// set stores key for id, replacing what id had.
func (s *keyStore) set(id heap.RowID, key []byte) {
	p, slot := s.pageToWrite(id, true)
	if p.width == 0 && p.start == nil && len(p.buf) == 0 && len(key) > 0 {
		p.width = len(key) // a fresh page starts fixed
	}
	if p.width > 0 {
		if len(key) == p.width && slot*p.width >= len(p.buf) {
			// Past the bytes ever written: nothing of slot's was handed out.
			if p.buf == nil {
				// Room for keyPageSlots keys at once: a page's keys grown
				// from one by append took ten copies per 1,024-row page
				// (2 % of a 10M-row copy's CPU).
				room := s.room
				if room <= 0 {
					room = keyPageSlots
				}
				p.buf = make([]byte, 0, p.width*max(slot+1, room))
				if p.live == nil {
					p.live = make([]uint64, 0, (max(slot+1, room)+63)/64)
				}
			}
			if pad := slot*p.width - len(p.buf); pad > 0 {
				p.buf = append(p.buf, make([]byte, pad)...)
				p.garbage += pad
			}
			p.buf = append(p.buf, key...)
			for slot/64 >= len(p.live) {
				p.live = append(p.live, 0)
			}
			p.live[slot/64] |= 1 << (slot % 64)
			s.bytes += len(key)
			return
		}
		p.toVariable()
	}
	if slot >= len(p.start) {
		n := slot + 1
		p.start = append(p.start, make([]uint32, n-len(p.start))...)
		p.end = append(p.end, make([]uint32, n-len(p.end))...)
	}
	p.garbage += int(p.end[slot] - p.start[slot])
	if p.garbage > 4096 && p.garbage > len(p.buf)/2 {
		s.bytes -= len(p.buf)
		p.compact(slot)
		s.bytes += len(p.buf)
	}
	p.start[slot] = uint32(len(p.buf))
	p.buf = append(p.buf, key...)
	p.end[slot] = uint32(len(p.buf))
	s.bytes += len(key)
}

// toVariable turns a fixed page into the variable layout, keeping buf
// (and so every slice handed out) as it is.
func (p *keyPage) toVariable() {
	n := p.slots()
	p.start, p.end = make([]uint32, n), make([]uint32, n)
	for i := range n {
		if p.isLive(i) {
			p.start[i], p.end[i] = uint32(i*p.width), uint32((i+1)*p.width)
		}
	}
	p.width, p.live = 0, nil
}

// drop forgets id's key.
func (s *keyStore) drop(id heap.RowID) {
	p, slot := s.pageToWrite(id, false)
	if p == nil {
		return
	}
	if p.width > 0 {
		if p.isLive(slot) {
			p.live[slot/64] &^= 1 << (slot % 64)
			p.garbage += p.width
		}
		return
	}
	if slot >= len(p.start) {
		return
	}
	p.garbage += int(p.end[slot] - p.start[slot])
	p.start[slot], p.end[slot] = 0, 0
}

// compact copies the live keys of the page, but skip's, into a new arena
// (the variable layout only).
func (p *keyPage) compact(skip int) {
	live := 0
	for i := range p.start {
		if i != skip {
			live += int(p.end[i] - p.start[i])
		}
	}
	nb := make([]byte, 0, live+live/4+64)
	for i := range p.start {
		if i == skip || p.end[i] == p.start[i] {
			p.start[i], p.end[i] = uint32(len(nb)), uint32(len(nb))
			continue
		}
		s := uint32(len(nb))
		nb = append(nb, p.buf[p.start[i]:p.end[i]]...)
		p.start[i], p.end[i] = s, uint32(len(nb))
	}
	p.start[skip], p.end[skip] = 0, 0
	p.buf, p.garbage = nb, 0
}

// mappedBytes is the part of memoryBytes that is views of the mapped key
// files (file-backed, clean: the kernel's to evict and read back).
func (s *keyStore) mappedBytes() int {
	n := 0
	for i, p := range s.pages {
		if p == nil || len(s.mapped) == 0 || i/s.mappedPer >= len(s.mapped) {
			continue
		}
		n += p.bytesIn(s.mapped[i/s.mappedPer])
	}
	return n
}

// bytesIn is the bytes of the page's slices that are views of b.
func (p *keyPage) bytesIn(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	lo := uintptr(unsafe.Pointer(&b[0]))
	hi := lo + uintptr(len(b))
	in := func(q unsafe.Pointer, n int) int {
		if n > 0 && uintptr(q) >= lo && uintptr(q) < hi {
			return n
		}
		return 0
	}
	n := 0
	if cap(p.buf) > 0 {
		n += in(unsafe.Pointer(unsafe.SliceData(p.buf)), cap(p.buf))
	}
	if cap(p.live) > 0 {
		n += in(unsafe.Pointer(unsafe.SliceData(p.live)), 8*cap(p.live))
	}
	if cap(p.start) > 0 {
		n += in(unsafe.Pointer(unsafe.SliceData(p.start)), 4*cap(p.start))
	}
	if cap(p.end) > 0 {
		n += in(unsafe.Pointer(unsafe.SliceData(p.end)), 4*cap(p.end))
	}
	return n
}

// viewOf reports whether any of the page's slices is a view of b.
func (p *keyPage) viewOf(b []byte) bool { return p.bytesIn(b) > 0 }

// memoryBytes is the store's footprint: arenas and slot offsets.
func (s *keyStore) memoryBytes() int {
	n := 0
	for _, p := range s.pages {
		if p != nil {
			n += cap(p.buf) + 4*(cap(p.start)+cap(p.end)) + 8*cap(p.live)
		}
	}
	return n
}
