package radixindex

import (
	"bytes"
	"fmt"
)

// Put stores id under key, returning the row id it replaced, if any. It
// panics if id exceeds MaxRowID (a caller bug: row ids are the heap's).
func (t *Tree) Put(key []byte, id uint64) (old uint64, replaced bool) {
	if id > MaxRowID {
		panic(fmt.Sprintf("radixindex: row id %#x exceeds MaxRowID", id))
	}
	if len(key) > MaxKeyLen {
		panic(fmt.Sprintf("radixindex: a key of %d bytes exceeds MaxKeyLen", len(key)))
	}
	// The descent only reads; each write takes its node for writing
	// (slab.mut) right before it, so a Put copies, after a freeze, only
	// the chunks of the nodes it changes. r hangs from parent's child on
	// byte b, or is the root when parent is 0.
	var parent ref
	var b byte
	r := t.root
	depth := 0
	for {
		if r == 0 {
			*t.slotMut(parent, b) = leafRef(id)
			t.n++
			return 0, false
		}
		if r.isLeaf() {
			lk := t.writerKey(r.rowID(), depth)
			if bytes.Equal(lk, key) {
				*t.slotMut(parent, b) = leafRef(id)
				return r.rowID(), true
			}
			// Writers compare every path byte, so lk and key agree on
			// key[:depth]; the new node holds the rest of what they share.
			l := depth
			for l < len(lk) && l < len(key) && lk[l] == key[l] {
				l++
			}
			nr := t.newNode4(key[depth:l])
			t.place(nr, lk, l, r)
			t.place(nr, key, l, leafRef(id))
			*t.slotMut(parent, b) = nr
			t.n++
			return 0, false
		}
		h := t.hdr(r)
		if h.prefixLen > 0 {
			full := t.fullPrefix(r, h, depth)
			p := 0
			for p < len(full) && depth+p < len(key) && full[p] == key[depth+p] {
				p++
			}
			if p < len(full) {
				// The key leaves r's compressed path at p: a node4 takes
				// the shared part and branches between r and the new leaf.
				nr := t.newNode4(full[:p])
				fb := full[p]
				rest := full[p+1:]
				h = t.hdrMut(r) // full may be the old chunk's bytes: equal, and not written
				h.prefixLen = uint32(len(rest))
				copy(h.prefix[:], rest) // may overlap full: copy is a memmove
				clear(h.prefix[min(len(rest), maxPrefix):])
				t.add4(nr, fb, r.withPlen(h.prefixLen))
				t.place(nr, key, depth+p, leafRef(id))
				*t.slotMut(parent, b) = nr
				t.n++
				return 0, false
			}
			depth += len(full)
		}
		if depth == len(key) {
			h = t.hdrMut(r)
			if h.hasEnd {
				old := h.end
				h.end = id
				return old, true
			}
			h.hasEnd, h.end = true, id
			t.n++
			return 0, false
		}
		c := t.child(r, key[depth])
		if c == nil {
			nr := t.addChild(r, key[depth], leafRef(id))
			if nr != r {
				*t.slotMut(parent, b) = nr
			}
			t.n++
			return 0, false
		}
		parent, b = r, key[depth]
		r = *c
		depth++
	}
}

// Delete removes key, returning the row id it held. Nodes shrink to the
// smallest kind that fits (with some hysteresis), and a node left with one
// way through is merged into its child.
func (t *Tree) Delete(key []byte) (uint64, bool) {
	// As in Put, the descent only reads: r hangs from parent's child on
	// byte b (the root when parent is 0), parent from grand's on gb.
	var parent, grand ref
	var b, gb byte
	r := t.root
	depth := 0
	for {
		if r == 0 {
			return 0, false
		}
		if r.isLeaf() {
			if !bytes.Equal(t.writerKey(r.rowID(), 0), key) {
				return 0, false
			}
			if parent == 0 {
				t.root = 0
			} else if nr := t.removeChild(parent, b); nr != parent {
				*t.slotMut(grand, gb) = nr
			}
			t.n--
			return r.rowID(), true
		}
		h := t.hdr(r)
		if p := int(h.prefixLen); p > 0 {
			stored := min(p, maxPrefix)
			if depth+p > len(key) || !bytes.Equal(h.prefix[:stored], key[depth:depth+stored]) {
				return 0, false
			}
			depth += p
		}
		if depth == len(key) {
			if !h.hasEnd || !bytes.Equal(t.writerKey(h.end, 0), key) {
				return 0, false
			}
			id := h.end
			h = t.hdrMut(r)
			h.hasEnd, h.end = false, 0
			t.n--
			if nr := t.collapse(r); nr != r {
				*t.slotMut(parent, b) = nr
			}
			return id, true
		}
		c := t.child(r, key[depth])
		if c == nil {
			return 0, false
		}
		grand, gb = parent, b
		parent, b = r, key[depth]
		r = *c
		depth++
	}
}

// touch takes inner node r for writing (slab.mut): pointers into r taken
// after it may be written until the batch ends.
func (t *Tree) touch(r ref) {
	switch r.kind() {
	case kind4:
		t.n4.mut(r.index())
	case kind16:
		t.n16.mut(r.index())
	case kind48:
		t.n48.mut(r.index())
	case kind256:
		t.n256.mut(r.index())
	default:
		panic(fmt.Sprintf("radixindex: write to a non-node ref %#x", uint64(r)))
	}
}

// hdrMut is hdr for writing.
func (t *Tree) hdrMut(r ref) *header {
	t.touch(r)
	return t.hdr(r)
}

// slotMut returns, for writing, the slot holding parent's child on byte
// b, or the root's when parent is 0.
func (t *Tree) slotMut(parent ref, b byte) *ref {
	if parent == 0 {
		return &t.root
	}
	t.touch(parent)
	s := t.child(parent, b)
	if s == nil {
		panic(fmt.Sprintf("radixindex: node %#x has no child on %#x", uint64(parent), b))
	}
	return s
}

// writerKey reads a row's key into the writer's scratch buffer; minLen is
// how long the key must at least be (the depth reached), or the key
// function and the tree disagree.
func (t *Tree) writerKey(id uint64, minLen int) []byte {
	k := t.keyInto(&t.wbuf, id)
	if len(k) < minLen {
		panic(fmt.Sprintf("radixindex: key of row %d has %d bytes, the tree says at least %d: the key function disagrees with the tree", id, len(k), minLen))
	}
	return k
}

// fullPrefix returns r's whole compressed path, reading it from a leaf's
// key when it is longer than the stored bytes.
func (t *Tree) fullPrefix(r ref, h *header, depth int) []byte {
	p := int(h.prefixLen)
	if p <= maxPrefix {
		return h.prefix[:p]
	}
	k := t.writerKey(t.minLeaf(r), depth+p)
	return k[depth : depth+p]
}

func setPrefix(h *header, p []byte) {
	h.prefixLen = uint32(len(p))
	copy(h.prefix[:], p)
}

func (t *Tree) newNode4(prefix []byte) ref {
	i := t.n4.alloc()
	setPrefix(&t.n4.at(i).h, prefix)
	return nodeRef(kind4, i).withPlen(uint32(len(prefix)))
}

// place puts a leaf for key into the fresh node nr, which branches at
// depth: in the end slot if key ends there.
func (t *Tree) place(nr ref, key []byte, depth int, leaf ref) {
	if depth == len(key) {
		h := t.hdr(nr)
		h.hasEnd, h.end = true, leaf.rowID()
		return
	}
	t.add4(nr, key[depth], leaf)
}

// add4 inserts a child into a node4 that has room.
func (t *Tree) add4(r ref, b byte, c ref) {
	n := t.n4.mut(r.index())
	insertSorted(n.keys[:], n.child[:], &n.h.n, b, c)
}

// insertSorted adds b's entry to the sorted arrays of a node4 or node16
// holding *n entries, which has room.
func insertSorted(keys []byte, child []ref, n *uint16, b byte, c ref) {
	i := int(*n)
	for i > 0 && keys[i-1] > b {
		keys[i], child[i] = keys[i-1], child[i-1]
		i--
	}
	keys[i], child[i] = b, c
	*n++
}

func (t *Tree) free(r ref) {
	switch r.kind() {
	case kind4:
		t.n4.release(r.index())
	case kind16:
		t.n16.release(r.index())
	case kind48:
		t.n48.release(r.index())
	case kind256:
		t.n256.release(r.index())
	}
}

// addChild adds child c on byte b (absent) to r and returns r's ref, which
// changes when r grows into the next kind.
func (t *Tree) addChild(r ref, b byte, c ref) ref {
	switch r.kind() {
	case kind4:
		if t.n4.at(r.index()).h.n < 4 {
			t.add4(r, b, c)
			return r
		}
		i := t.n16.alloc()
		n, o := t.n16.at(i), t.n4.at(r.index())
		n.h = o.h
		copy(n.keys[:], o.keys[:])
		copy(n.child[:], o.child[:])
		t.n4.release(r.index())
		r = nodeRef(kind16, i).withPlen(n.h.prefixLen)
		fallthrough
	case kind16:
		n := t.n16.at(r.index())
		if n.h.n < 16 {
			n = t.n16.mut(r.index())
			insertSorted(n.keys[:], n.child[:], &n.h.n, b, c)
			return r
		}
		i := t.n48.alloc()
		m := t.n48.at(i)
		m.h = n.h
		for k := 0; k < 16; k++ {
			m.index[n.keys[k]] = uint8(k + 1)
			m.child[k] = n.child[k]
		}
		t.n16.release(r.index())
		r = nodeRef(kind48, i).withPlen(n.h.prefixLen)
		fallthrough
	case kind48:
		n := t.n48.at(r.index())
		if n.h.n < 48 {
			n = t.n48.mut(r.index())
			s := 0
			for n.child[s] != 0 {
				s++
			}
			n.child[s] = c
			n.index[b] = uint8(s + 1)
			n.h.n++
			return r
		}
		i := t.n256.alloc()
		m := t.n256.at(i)
		m.h = n.h
		for k := 0; k < 256; k++ {
			if s := n.index[k]; s != 0 {
				m.child[k] = n.child[s-1]
			}
		}
		t.n48.release(r.index())
		r = nodeRef(kind256, i).withPlen(n.h.prefixLen)
		fallthrough
	case kind256:
		n := t.n256.mut(r.index())
		n.child[b] = c
		n.h.n++
		return r
	}
	panic("radixindex: addChild on a non-node")
}

// Shrink thresholds: a node moves to the next smaller kind when its
// children fit there with room to spare, so a key added and removed at a
// boundary does not copy the node every time.
const (
	shrink16  = 3
	shrink48  = 12
	shrink256 = 37
)

// removeChild removes r's child on byte b and returns r's new ref: r
// shrunk, or merged into its last way through.
func (t *Tree) removeChild(r ref, b byte) ref {
	t.touch(r)
	switch r.kind() {
	case kind4:
		n := t.n4.at(r.index())
		removeSorted(n.keys[:], n.child[:], &n.h.n, b)
		return t.collapse(r)
	case kind16:
		n := t.n16.at(r.index())
		removeSorted(n.keys[:], n.child[:], &n.h.n, b)
		if n.h.n > shrink16 {
			return t.collapse(r)
		}
		i := t.n4.alloc()
		m := t.n4.at(i)
		m.h = n.h
		copy(m.keys[:], n.keys[:n.h.n])
		copy(m.child[:], n.child[:n.h.n])
		t.n16.release(r.index())
		return t.collapse(nodeRef(kind4, i).withPlen(m.h.prefixLen))
	case kind48:
		n := t.n48.at(r.index())
		s := n.index[b] - 1
		n.index[b] = 0
		n.child[s] = 0
		n.h.n--
		if n.h.n > shrink48 {
			return t.collapse(r)
		}
		i := t.n16.alloc()
		m := t.n16.at(i)
		m.h = n.h
		k := 0
		for c := 0; c < 256; c++ {
			if s := n.index[c]; s != 0 {
				m.keys[k], m.child[k] = byte(c), n.child[s-1]
				k++
			}
		}
		t.n48.release(r.index())
		return t.collapse(nodeRef(kind16, i).withPlen(m.h.prefixLen))
	case kind256:
		n := t.n256.at(r.index())
		n.child[b] = 0
		n.h.n--
		if n.h.n > shrink256 {
			return t.collapse(r)
		}
		i := t.n48.alloc()
		m := t.n48.at(i)
		m.h = n.h
		k := 0
		for c := 0; c < 256; c++ {
			if n.child[c] != 0 {
				m.index[c] = uint8(k + 1)
				m.child[k] = n.child[c]
				k++
			}
		}
		t.n256.release(r.index())
		return t.collapse(nodeRef(kind48, i).withPlen(m.h.prefixLen))
	}
	panic("radixindex: removeChild on a non-node")
}

// removeSorted removes byte b's entry from the sorted arrays of a node4 or
// node16 holding *n entries.
func removeSorted(keys []byte, child []ref, n *uint16, b byte) {
	k := 0
	for keys[k] != b {
		k++
	}
	copy(keys[k:*n], keys[k+1:*n])
	copy(child[k:*n], child[k+1:*n])
	*n--
	keys[*n], child[*n] = 0, 0
}

// collapse replaces a node left with fewer than two entries by what is
// left: the end slot's leaf, or the only child with r's path prepended.
// Only node4 can get there (bigger kinds shrink first), except the end
// slot's removal, which can leave any kind with one child.
func (t *Tree) collapse(r ref) ref {
	h := t.hdr(r)
	if h.entries() >= 2 {
		return r
	}
	if h.n == 0 {
		t.free(r)
		return leafRef(h.end)
	}
	b, c := t.onlyChild(r)
	if !c.isLeaf() {
		ch := t.hdrMut(c)
		var p [maxPrefix]byte
		k := copy(p[:], h.prefix[:min(int(h.prefixLen), maxPrefix)])
		if k < maxPrefix {
			p[k] = b
			copy(p[k+1:], ch.prefix[:min(int(ch.prefixLen), maxPrefix)])
		}
		ch.prefixLen += h.prefixLen + 1
		ch.prefix = p
		c = c.withPlen(ch.prefixLen)
	}
	t.free(r)
	return c
}

func (t *Tree) onlyChild(r ref) (byte, ref) {
	p, c, ok := t.nextEntry(r, posEnd)
	if !ok {
		panic("radixindex: no child")
	}
	switch r.kind() {
	case kind4:
		return t.n4.at(r.index()).keys[p], c
	case kind16:
		return t.n16.at(r.index()).keys[p], c
	}
	return byte(p), c
}
