package radixindex

import (
	"bytes"
	"fmt"
	"sync"
)

// KeyFunc appends the full key of the row with the given id to dst and
// returns the extended slice; it may instead return a slice of its own
// storage, which the tree only reads, and not after the next write.
//
// The tree stores no keys: a leaf is the row id, and the key is read back
// through KeyFunc to check a lookup, to split a leaf, to compare compressed
// paths longer than the stored eight bytes, and for Iterator.Key. It must
// be safe for concurrent use by readers, and it must return the key the
// row id was inserted with for as long as the id is in the tree (the heap
// changes a row's key only as a delete and an insert).
type KeyFunc func(dst []byte, rowID uint64) []byte

// Tree is an adaptive radix tree from byte-string keys to row ids.
//
// A Tree is not synchronised: its read methods (Get, Len, Min, Max,
// MemoryBytes, Verify, WriteCheckpoint and iterators) may run concurrently
// with each other, and a write (Put, Delete, Rebuild, Compact) needs
// exclusive access. Index wraps a Tree
// with the one-writer, many-readers protocol of the mirror.
type Tree struct {
	keyOf KeyFunc
	root  ref
	n     int

	n4   slab[node4]
	n16  slab[node16]
	n48  slab[node48]
	n256 slab[node256]

	wbuf  []byte    // the writer's key scratch
	rbufs sync.Pool // readers' key scratch (*[]byte), for Get
}

// Full chunks of about 16 KiB per kind (node4 64 B, node16 168 B, node48
// 664 B, node256 2,072 B): the writer's first change to a chunk after a
// freeze copies the whole chunk, so the chunk bounds what one change costs
// then (four pages to first-touch) and how much of an index a few
// scattered changes copy, while the chunk lists a freeze copies stay
// short (≈ 10,000 entries at 10M keys). BenchmarkFreezeStall at 3M keys
// and 2,000 scattered changes after a freeze: 64 KiB chunks copied 25.8
// MB (the whole index), 16 KiB ones 19.6 MB, for the same CPU.
const (
	chunkBits4   = 8
	chunkBits16  = 7
	chunkBits48  = 5
	chunkBits256 = 3
)

// New returns an empty tree reading keys through keyOf.
func New(keyOf KeyFunc) *Tree {
	return &Tree{
		keyOf: keyOf,
		n4:    newSlab[node4](chunkBits4),
		n16:   newSlab[node16](chunkBits16),
		n48:   newSlab[node48](chunkBits48),
		n256:  newSlab[node256](chunkBits256),
	}
}

// Len returns the number of keys.
func (t *Tree) Len() int { return t.n }

// MemoryBytes returns the bytes the tree's node slabs hold, free slots
// included (Compact drops those); it is the index's whole footprint apart
// from a few words.
func (t *Tree) MemoryBytes() int {
	return t.n4.bytes(size4) + t.n16.bytes(size16) + t.n48.bytes(size48) + t.n256.bytes(size256)
}

func (t *Tree) hdr(r ref) *header {
	switch r.kind() {
	case kind4:
		return &t.n4.at(r.index()).h
	case kind16:
		return &t.n16.at(r.index()).h
	case kind48:
		return &t.n48.at(r.index()).h
	case kind256:
		return &t.n256.at(r.index()).h
	}
	panic(fmt.Sprintf("radixindex: header of a non-node ref %#x", uint64(r)))
}

// child returns the slot of r's child on byte b, or nil.
func (t *Tree) child(r ref, b byte) *ref {
	switch r.kind() {
	case kind4:
		n := t.n4.at(r.index())
		for i := 0; i < int(n.h.n); i++ {
			if n.keys[i] == b {
				return &n.child[i]
			}
		}
	case kind16:
		n := t.n16.at(r.index())
		for i := 0; i < int(n.h.n); i++ {
			if k := n.keys[i]; k >= b {
				if k == b {
					return &n.child[i]
				}
				return nil
			}
		}
	case kind48:
		n := t.n48.at(r.index())
		if s := n.index[b]; s != 0 {
			return &n.child[s-1]
		}
	case kind256:
		n := t.n256.at(r.index())
		if n.child[b] != 0 {
			return &n.child[b]
		}
	}
	return nil
}

// readKey reads a row's key into a pooled buffer; put it back with done.
func (t *Tree) readKey(id uint64) ([]byte, *[]byte) {
	bp, _ := t.rbufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	return t.keyInto(bp, id), bp
}

// keyInto reads a row's key with *buf as the destination. A KeyFunc may
// return a slice of its own storage, so the result is never kept as the
// buffer: the buffer grows on its own to the longest key seen.
func (t *Tree) keyInto(buf *[]byte, id uint64) []byte {
	k := t.keyOf((*buf)[:0], id)
	if cap(*buf) < len(k) {
		*buf = make([]byte, 0, max(len(k), 2*cap(*buf)))
	}
	return k
}

// Get returns the row id stored under key.
func (t *Tree) Get(key []byte) (uint64, bool) {
	r := t.root
	depth := 0
	for r != 0 {
		if r.isLeaf() {
			return t.verify(r.rowID(), key)
		}
		// Optimistic: the path's bytes are not compared here. A key that
		// is in the tree follows exactly these branch bytes, and whatever
		// leaf a different key reaches fails the check against the row.
		depth += r.plen()
		if depth >= len(key) {
			if depth > len(key) {
				return 0, false
			}
			h := t.hdr(r)
			if !h.hasEnd {
				return 0, false
			}
			return t.verify(h.end, key)
		}
		c := t.child(r, key[depth])
		if c == nil {
			return 0, false
		}
		r = *c
		depth++
	}
	return 0, false
}

func (t *Tree) verify(id uint64, key []byte) (uint64, bool) {
	k, bp := t.readKey(id)
	ok := bytes.Equal(k, key)
	t.rbufs.Put(bp)
	return id, ok
}

// Min returns the row id of the smallest key.
func (t *Tree) Min() (uint64, bool) {
	if t.root == 0 {
		return 0, false
	}
	return t.minLeaf(t.root), true
}

// Max returns the row id of the largest key.
func (t *Tree) Max() (uint64, bool) {
	r := t.root
	if r == 0 {
		return 0, false
	}
	for !r.isLeaf() {
		_, c, ok := t.prevEntry(r, posAfter)
		if !ok {
			panic("radixindex: empty inner node")
		}
		r = c
	}
	return r.rowID(), true
}

// minLeaf returns the row id of the smallest key under r.
func (t *Tree) minLeaf(r ref) uint64 {
	for !r.isLeaf() {
		_, c, ok := t.nextEntry(r, posBefore)
		if !ok {
			panic("radixindex: empty inner node")
		}
		r = c
	}
	return r.rowID()
}

// Entry positions inside a node, for iteration: posEnd is the end slot,
// which sorts before every child; children are at 0.. (the index in a
// node4/node16, the byte in a node48/node256).
const (
	posBefore = -2
	posEnd    = -1
	posAfter  = 256
)

// nextEntry returns the first entry of r after position pos.
func (t *Tree) nextEntry(r ref, pos int) (int, ref, bool) {
	h := t.hdr(r)
	if pos < posEnd && h.hasEnd {
		return posEnd, leafRef(h.end), true
	}
	switch r.kind() {
	case kind4:
		n := t.n4.at(r.index())
		if i := max(pos+1, 0); i < int(n.h.n) {
			return i, n.child[i], true
		}
	case kind16:
		n := t.n16.at(r.index())
		if i := max(pos+1, 0); i < int(n.h.n) {
			return i, n.child[i], true
		}
	case kind48:
		n := t.n48.at(r.index())
		for b := max(pos+1, 0); b < 256; b++ {
			if s := n.index[b]; s != 0 {
				return b, n.child[s-1], true
			}
		}
	case kind256:
		n := t.n256.at(r.index())
		for b := max(pos+1, 0); b < 256; b++ {
			if c := n.child[b]; c != 0 {
				return b, c, true
			}
		}
	}
	return 0, 0, false
}

// step returns the entry after fwdPos (forward) or before backPos.
func (t *Tree) step(r ref, fwdPos, backPos int, forward bool) (int, ref, bool) {
	if forward {
		return t.nextEntry(r, fwdPos)
	}
	return t.prevEntry(r, backPos)
}

// prevEntry returns the last entry of r before position pos.
func (t *Tree) prevEntry(r ref, pos int) (int, ref, bool) {
	switch r.kind() {
	case kind4:
		n := t.n4.at(r.index())
		if i := min(pos, int(n.h.n)) - 1; i >= 0 {
			return i, n.child[i], true
		}
	case kind16:
		n := t.n16.at(r.index())
		if i := min(pos, int(n.h.n)) - 1; i >= 0 {
			return i, n.child[i], true
		}
	case kind48:
		n := t.n48.at(r.index())
		for b := min(pos, 256) - 1; b >= 0; b-- {
			if s := n.index[b]; s != 0 {
				return b, n.child[s-1], true
			}
		}
	case kind256:
		n := t.n256.at(r.index())
		for b := min(pos, 256) - 1; b >= 0; b-- {
			if c := n.child[b]; c != 0 {
				return b, c, true
			}
		}
	}
	if h := t.hdr(r); pos > posEnd && h.hasEnd {
		return posEnd, leafRef(h.end), true
	}
	return 0, 0, false
}

// seekEntry returns the first child entry of r whose byte is ≥ b, and
// whether its byte is b.
func (t *Tree) seekEntry(r ref, b byte) (int, ref, bool, bool) {
	switch r.kind() {
	case kind4:
		n := t.n4.at(r.index())
		for i := 0; i < int(n.h.n); i++ {
			if n.keys[i] >= b {
				return i, n.child[i], n.keys[i] == b, true
			}
		}
	case kind16:
		n := t.n16.at(r.index())
		for i := 0; i < int(n.h.n); i++ {
			if n.keys[i] >= b {
				return i, n.child[i], n.keys[i] == b, true
			}
		}
	case kind48, kind256:
		p, c, ok := t.nextEntry(r, int(b)-1)
		if ok && p >= 0 {
			return p, c, p == int(b), true
		}
		if ok { // the end slot cannot follow b-1 ≥ -1; unreachable
			panic("radixindex: end slot after a byte")
		}
	}
	return 0, 0, false, false
}
