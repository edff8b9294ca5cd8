package radixindex

import (
	"bytes"
	"fmt"
)

// Iterator walks the keys of a tree in order, forward or backward,
// optionally only those that start with a prefix. It yields row ids; Key
// reads the current key through the tree's KeyFunc.
//
// An iterator holds positions inside the tree's nodes: any write to the
// tree invalidates it, and it must be positioned again (First, Last, Seek,
// SeekLE) after one. Index.Scan does that for a scan that lets writes in
// between its chunks.
type Iterator struct {
	t      *Tree
	prefix []byte
	stack  []frame
	cur    uint64
	valid  bool
	kbuf   []byte // Key's buffer
	sbuf   []byte // key scratch while positioning
}

// frame is an inner node on the path to the current leaf and the position
// of the entry taken in it.
type frame struct {
	r   ref
	pos int
}

// Iter returns an unpositioned iterator over the keys that start with
// prefix (all keys for an empty prefix). The prefix is copied.
func (t *Tree) Iter(prefix []byte) *Iterator {
	return &Iterator{t: t, prefix: append([]byte(nil), prefix...)}
}

// Valid reports whether the iterator is at a key.
func (it *Iterator) Valid() bool { return it.valid }

// RowID returns the row id at the iterator.
func (it *Iterator) RowID() uint64 { return it.cur }

// Key returns the key at the iterator, read through the KeyFunc; the
// slice is valid until the iterator moves or Key is called again.
func (it *Iterator) Key() []byte {
	return it.t.keyInto(&it.kbuf, it.cur)
}

// base returns the subtree holding exactly the keys with the iterator's
// prefix and the depth its path starts at.
func (it *Iterator) base() (ref, int, bool) {
	t := it.t
	p := it.prefix
	r, depth := t.root, 0
	for r != 0 {
		if depth >= len(p) {
			return r, depth, true
		}
		if r.isLeaf() {
			k := t.keyInto(&it.sbuf, r.rowID())
			return r, depth, bytes.HasPrefix(k, p)
		}
		h := t.hdr(r)
		if plen := int(h.prefixLen); plen > 0 {
			full := it.fullPrefix(r, h, depth)
			n := min(plen, len(p)-depth)
			if !bytes.Equal(full[:n], p[depth:depth+n]) {
				return 0, 0, false
			}
			if depth+plen >= len(p) {
				return r, depth, true
			}
			depth += plen
		}
		c := t.child(r, p[depth])
		if c == nil {
			return 0, 0, false
		}
		r = *c
		depth++
	}
	return 0, 0, false
}

func (it *Iterator) fullPrefix(r ref, h *header, depth int) []byte {
	p := int(h.prefixLen)
	if p <= maxPrefix {
		return h.prefix[:p]
	}
	k := it.t.keyInto(&it.sbuf, it.t.minLeaf(r))
	if len(k) < depth+p {
		panic(fmt.Sprintf("radixindex: a key of %d bytes under a path of %d: the key function disagrees with the tree", len(k), depth+p))
	}
	return k[depth : depth+p]
}

// First moves to the smallest key and reports whether there is one.
func (it *Iterator) First() bool {
	it.stack = it.stack[:0]
	r, _, ok := it.base()
	if !ok {
		it.valid = false
		return false
	}
	it.descendFirst(r)
	return true
}

// Last moves to the largest key and reports whether there is one.
func (it *Iterator) Last() bool {
	it.stack = it.stack[:0]
	r, _, ok := it.base()
	if !ok {
		it.valid = false
		return false
	}
	it.descendLast(r)
	return true
}

// Seek moves to the smallest key ≥ key (the lower bound) and reports
// whether there is one.
func (it *Iterator) Seek(key []byte) bool {
	it.stack = it.stack[:0]
	it.valid = false
	p := it.prefix
	n := min(len(key), len(p))
	switch c := bytes.Compare(key[:n], p[:n]); {
	case c > 0:
		return false // past every key with the prefix
	case c < 0 || len(key) < len(p):
		return it.First()
	}
	r, depth, ok := it.base()
	if !ok {
		return false
	}
	it.seek(r, depth, key)
	return it.valid
}

// SeekLE moves to the largest key ≤ key and reports whether there is one.
func (it *Iterator) SeekLE(key []byte) bool {
	if !it.Seek(key) {
		return it.Last()
	}
	if bytes.Equal(it.Key(), key) {
		return true
	}
	return it.Prev()
}

// Next moves to the next key and reports whether there is one.
func (it *Iterator) Next() bool {
	if !it.valid {
		return false
	}
	it.next()
	return it.valid
}

// Prev moves to the previous key and reports whether there is one.
func (it *Iterator) Prev() bool {
	if !it.valid {
		return false
	}
	it.prev()
	return it.valid
}

// seek positions at the lower bound of key inside the subtree r, whose
// path starts at depth and agrees with key before it.
func (it *Iterator) seek(r ref, depth int, key []byte) {
	t := it.t
	for {
		if r.isLeaf() {
			k := t.keyInto(&it.sbuf, r.rowID())
			if bytes.Compare(k, key) >= 0 {
				it.cur, it.valid = r.rowID(), true
				return
			}
			it.next()
			return
		}
		h := t.hdr(r)
		if plen := int(h.prefixLen); plen > 0 {
			full := it.fullPrefix(r, h, depth)
			rest := key[depth:]
			n := min(len(rest), plen)
			c := bytes.Compare(full[:n], rest[:n])
			if c == 0 && len(rest) < plen {
				c = 1 // key ends inside the path: every key below is longer
			}
			if c > 0 {
				it.descendFirst(r)
				return
			}
			if c < 0 {
				it.next()
				return
			}
			depth += plen
		}
		if depth == len(key) {
			it.descendFirst(r) // the end slot, if any, is key itself
			return
		}
		pos, c, exact, ok := t.seekEntry(r, key[depth])
		if !ok {
			it.next()
			return
		}
		it.stack = append(it.stack, frame{r, pos})
		if !exact {
			it.descendFirst(c)
			return
		}
		r = c
		depth++
	}
}

func (it *Iterator) descendFirst(r ref) { it.descend(r, true) }

func (it *Iterator) descendLast(r ref) { it.descend(r, false) }

// descend goes down to the first (forward) or last leaf of subtree r.
func (it *Iterator) descend(r ref, forward bool) {
	for !r.isLeaf() {
		pos, c, ok := it.t.step(r, posBefore, posAfter, forward)
		if !ok {
			panic("radixindex: empty inner node")
		}
		it.stack = append(it.stack, frame{r, pos})
		r = c
	}
	it.cur, it.valid = r.rowID(), true
}

func (it *Iterator) next() { it.move(true) }

func (it *Iterator) prev() { it.move(false) }

// move steps past the current entry of the innermost frame that has one
// more in the direction, and descends from there.
func (it *Iterator) move(forward bool) {
	for k := len(it.stack) - 1; k >= 0; k-- {
		f := &it.stack[k]
		if pos, c, ok := it.t.step(f.r, f.pos, f.pos, forward); ok {
			f.pos = pos
			it.stack = it.stack[:k+1]
			it.descend(c, forward)
			return
		}
	}
	it.stack = it.stack[:0]
	it.valid = false
}
