package radixindex

import (
	"github.com/sidecar-dev/sidecar/internal/prefault"
	"math/bits"
	"slices"
	"unsafe"
)

// A ref names a child: zero is "no child", a leaf carries its row id inline
// (the paper's combined pointer/value slot), an inner node is a kind, the
// length of the node's compressed path and an index into that kind's slab.
// The kind sits in the top three bits, so a row id has 61 bits (MaxRowID).
//
// INVARIANT (checked by Verify): an inner node's ref carries the node's
// header.prefixLen in bits 32–60. A lookup then finds the branch byte of a
// node without reading its header, so it touches one cache line per node256
// instead of two; it skips the path bytes and checks the key at the leaf.
type ref uint64

const (
	kindShift   = 61
	payloadMask = MaxRowID

	kindNone = 0
	kindLeaf = 1
	kind4    = 2
	kind16   = 3
	kind48   = 4
	kind256  = 5
)

// MaxRowID is the largest row id the index can hold: the top three bits of
// a slot are its kind tag.
const MaxRowID = 1<<61 - 1

// MaxKeyLen is the longest key the index takes (a compressed path's length
// rides in 29 bits of a ref); PostgreSQL cannot index keys anywhere near
// this long.
const MaxKeyLen = 1 << 20

func leafRef(id uint64) ref            { return ref(kindLeaf<<kindShift | id) }
func (r ref) kind() uint8              { return uint8(r >> kindShift) }
func (r ref) isLeaf() bool             { return r>>kindShift == kindLeaf }
func (r ref) rowID() uint64            { return uint64(r) & payloadMask }
func (r ref) index() uint32            { return uint32(r) }
func nodeRef(kind uint8, i uint32) ref { return ref(uint64(kind)<<kindShift | uint64(i)) }

const (
	plenShift = 32
	plenMask  = 1<<(kindShift-plenShift) - 1
)

// plen returns the path length an inner node's ref carries.
func (r ref) plen() int { return int(r>>plenShift) & plenMask }

// withPlen returns r carrying path length p.
func (r ref) withPlen(p uint32) ref {
	return r&^(plenMask<<plenShift) | ref(p)<<plenShift
}

// maxPrefix is how many bytes of a compressed path a node stores (the
// paper's hybrid scheme): a longer path is skipped on lookup and checked at
// the leaf, and a writer that needs its bytes reads them from a leaf's key.
const maxPrefix = 8

// header is the part every inner node shares. A node's path starts where
// its parent's branch byte ends; prefixLen bytes of it are compressed into
// the node (the first maxPrefix of them stored), then the node branches on
// the next byte. A key that ends exactly at the branch point (a key that is
// a prefix of other keys) lives in the end slot: hasEnd, end.
type header struct {
	prefixLen uint32
	n         uint16 // children, not counting the end slot
	hasEnd    bool
	_         uint8
	prefix    [maxPrefix]byte
	end       uint64 // row id of the key ending here, if hasEnd
}

// entries counts children plus the end slot; every inner node has at
// least two (INVARIANT, checked by Verify): path compression and lazy
// expansion leave no node with a single way through.
func (h *header) entries() int {
	e := int(h.n)
	if h.hasEnd {
		e++
	}
	return e
}

// node4 and node16 keep sorted branch bytes beside their children.
type node4 struct {
	h     header
	keys  [4]byte
	child [4]ref
}

type node16 struct {
	h     header
	keys  [16]byte
	child [16]ref
}

// node48 maps a byte to a child slot through index (slot+1, 0 = none).
type node48 struct {
	h     header
	index [256]uint8
	child [48]ref
}

type node256 struct {
	h     header
	child [256]ref
}

// Node sizes, for MemoryBytes and the report.
const (
	size4   = int(unsafe.Sizeof(node4{}))
	size16  = int(unsafe.Sizeof(node16{}))
	size48  = int(unsafe.Sizeof(node48{}))
	size256 = int(unsafe.Sizeof(node256{}))
)

// slab is a pointer-free array of nodes of one kind, so the garbage
// collector never scans the index. It is split into chunks that are never
// resized once allocated: chunk c holds 1<<c nodes for c < maxBits, and
// every later chunk 1<<maxBits, so a small tree stays small and a large
// one wastes at most one chunk. Freed slots are reused by the next
// allocation of the kind.
//
// Chunks are also the unit of copy-on-write (Index.Freeze): a frozen view
// shares the chunks the slab has at the freeze, and the writer copies a
// chunk the first time it changes it after the freeze (mut), so a freeze
// costs one pointer copy per chunk and the writer copies only what it
// touches. A chunk is the writer's own when own[c] == epoch; a freeze
// moves epoch on, which makes every chunk shared. A pointer into a chunk
// therefore stays valid for reading until the writer's next change, and
// for writing only when it was taken after mut (or alloc) in the same
// batch.
type slab[T any] struct {
	chunks  [][]T
	own     []uint64 // per chunk: the epoch it was allocated or copied in
	epoch   uint64   // freezes of this slab so far
	n       uint32   // slots handed out (high-water mark)
	free    []uint32
	maxBits uint8
	copied  int // bytes of chunks mut copied, ever
}

func newSlab[T any](maxBits uint8) slab[T] { return slab[T]{maxBits: maxBits} }

// locate returns the chunk and the offset of slot i.
func (s *slab[T]) locate(i uint32) (int, uint32) {
	g := uint32(1)<<s.maxBits - 1 // slots in the geometric chunks
	if i < g {
		c := bits.Len32(i+1) - 1
		return c, i + 1 - uint32(1)<<c
	}
	i -= g
	return int(s.maxBits) + int(i>>s.maxBits), i & (uint32(1)<<s.maxBits - 1)
}

// at returns slot i for reading.
func (s *slab[T]) at(i uint32) *T {
	c, off := s.locate(i)
	return &s.chunks[c][off]
}

// mut returns slot i for writing: its chunk is copied first if a frozen
// view may share it. Only the writer calls it.
func (s *slab[T]) mut(i uint32) *T {
	c, off := s.locate(i)
	if s.own[c] != s.epoch {
		cp := make([]T, len(s.chunks[c]))
		copy(cp, s.chunks[c])
		s.chunks[c] = cp
		s.own[c] = s.epoch
		s.copied += len(cp) * int(unsafe.Sizeof(cp[0]))
	}
	return &s.chunks[c][off]
}

// alloc returns a zeroed slot, writable (mut).
func (s *slab[T]) alloc() uint32 {
	if k := len(s.free); k > 0 {
		i := s.free[k-1]
		s.free = s.free[:k-1]
		var zero T
		*s.mut(i) = zero
		return i
	}
	i := s.n
	c, _ := s.locate(i)
	if c == len(s.chunks) {
		size := 1 << min(c, int(s.maxBits))
		ch := make([]T, size)
		// Filled slot by slot: mapped in one call, not a fault a page
		// (internal/prefault).
		prefault.Slice(ch)
		s.chunks = append(s.chunks, ch)
		s.own = append(s.own, s.epoch)
	}
	s.n++
	// A fresh slot of the last chunk is past every frozen view's nodes,
	// but the chunk may be shared: take it, so that every pointer the
	// writer holds is into a chunk it owns, which no later mut moves.
	s.mut(i)
	return i
}

func (s *slab[T]) release(i uint32) { s.free = append(s.free, i) }

// freeze makes every chunk shared and returns a read-only view of the
// slab as it is: the chunk list and the free list are copied (the image
// of a checkpoint carries the free slots), the chunks are not. The view
// is never written.
func (s *slab[T]) freeze() slab[T] {
	s.epoch++
	// own is copied for the mapped marks (Frozen.ImagePage): a mapped
	// chunk of the view is one no change has touched since the restore.
	return slab[T]{chunks: slices.Clone(s.chunks), own: slices.Clone(s.own), n: s.n, maxBits: s.maxBits, free: slices.Clone(s.free)}
}

// unshare makes every chunk the writer's again, once no frozen view of
// the slab is left (Frozen.Release).
func (s *slab[T]) unshare() {
	for c := range s.own {
		if s.own[c] != mappedEpoch {
			s.own[c] = s.epoch
		}
	}
}

// mappedEpoch marks a chunk that is a read-only file mapping (MapImage):
// it is never the writer's own, so mut copies it into memory of its own
// before the first change, whatever the freezes.
const mappedEpoch = ^uint64(0)

// mappedBytes is the bytes of the slab's chunks that are file mappings.
func (s *slab[T]) mappedBytes(size int) int {
	total := 0
	for c, e := range s.own {
		if e == mappedEpoch {
			total += cap(s.chunks[c]) * size
		}
	}
	return total
}

// live is the number of slots in use.
func (s *slab[T]) live() int { return int(s.n) - len(s.free) }

// bytes is the memory the slab holds, chunks and free list.
func (s *slab[T]) bytes(size int) int {
	total := cap(s.chunks)*24 + cap(s.own)*8 + cap(s.free)*4
	for _, c := range s.chunks {
		total += cap(c) * size
	}
	return total
}
