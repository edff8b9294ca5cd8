package radixindex

import (
	"bytes"
	"fmt"
	"iter"
)

// Rebuild replaces the tree's contents with src's keys and row ids, which
// must come in strictly increasing key order (the order of the Prolly tree
// and of a key-ordered heap scan). It builds the nodes bottom-up in one pass,
// without searching or reading any key back, so it is several times faster
// than Put per key; the result is the same tree Puts would give, up to
// node kinds (a bulk-built node is the smallest kind its children fit).
// On error the tree is left unchanged.
func (t *Tree) Rebuild(src iter.Seq2[[]byte, uint64]) error {
	nt := New(t.keyOf)
	b := builder{t: nt}
	for k, id := range src {
		if err := b.add(k, id); err != nil {
			return err
		}
	}
	nt.root = b.finish()
	t.adopt(nt)
	return nil
}

// adopt moves nt's nodes into t.
func (t *Tree) adopt(nt *Tree) {
	t.root, t.n = nt.root, nt.n
	t.n4, t.n16, t.n48, t.n256 = nt.n4, nt.n16, nt.n48, nt.n256
}

// builder keeps the rightmost path of the tree being built: one frame per
// inner node not yet closed, each branching at depth d, and the pending
// subtree (the last key's leaf, or the node closed last) that is not yet
// attached to its parent.
type builder struct {
	t        *Tree
	prev     []byte
	have     bool
	stack    []bframe
	spare    []bframe // closed frames, for their slices
	pending  ref
	pendingD int // the pending node's branch depth; -1 for a leaf
}

type bframe struct {
	d      int
	keys   []byte
	refs   []ref
	hasEnd bool
	end    uint64
}

func (b *builder) add(k []byte, id uint64) error {
	if id > MaxRowID {
		return fmt.Errorf("radixindex: rebuild: row id %#x exceeds MaxRowID", id)
	}
	if len(k) > MaxKeyLen {
		return fmt.Errorf("radixindex: rebuild: a key of %d bytes exceeds MaxKeyLen", len(k))
	}
	b.t.n++
	if !b.have {
		b.prev = append(b.prev[:0], k...)
		b.pending, b.pendingD, b.have = leafRef(id), -1, true
		return nil
	}
	if bytes.Compare(b.prev, k) >= 0 {
		return fmt.Errorf("radixindex: rebuild: key %x after %x: keys must be strictly increasing", k, b.prev)
	}
	lcp := 0
	for lcp < len(b.prev) && lcp < len(k) && b.prev[lcp] == k[lcp] {
		lcp++
	}
	for len(b.stack) > 0 && b.stack[len(b.stack)-1].d > lcp {
		b.close()
	}
	if len(b.stack) == 0 || b.stack[len(b.stack)-1].d < lcp {
		var f bframe
		if n := len(b.spare); n > 0 {
			f = b.spare[n-1]
			b.spare = b.spare[:n-1]
		}
		f.d, f.keys, f.refs, f.hasEnd, f.end = lcp, f.keys[:0], f.refs[:0], false, 0
		b.stack = append(b.stack, f)
	}
	b.attach(&b.stack[len(b.stack)-1])
	b.pending, b.pendingD = leafRef(id), -1
	b.prev = append(b.prev[:0], k...)
	return nil
}

// attach hangs the pending subtree under frame f: as its end slot if it is
// the leaf of a key ending at f's branch point, else as a child.
func (b *builder) attach(f *bframe) {
	if b.pendingD >= 0 {
		b.setPath(b.prev[f.d+1 : b.pendingD])
	} else if len(b.prev) == f.d {
		f.hasEnd, f.end = true, b.pending.rowID()
		return
	}
	f.keys = append(f.keys, b.prev[f.d])
	f.refs = append(f.refs, b.pending)
}

// close attaches the pending subtree to the top frame and turns the frame
// into a node, which becomes the pending subtree.
func (b *builder) close() {
	f := &b.stack[len(b.stack)-1]
	b.attach(f)
	b.pending, b.pendingD = b.node(f), f.d
	b.spare = append(b.spare, *f)
	b.stack = b.stack[:len(b.stack)-1]
}

// node allocates the smallest kind of node that holds f's children.
func (b *builder) node(f *bframe) ref {
	t := b.t
	var r ref
	switch n := len(f.keys); {
	case n <= 4:
		i := t.n4.alloc()
		m := t.n4.at(i)
		copy(m.keys[:], f.keys)
		copy(m.child[:], f.refs)
		r = nodeRef(kind4, i)
	case n <= 16:
		i := t.n16.alloc()
		m := t.n16.at(i)
		copy(m.keys[:], f.keys)
		copy(m.child[:], f.refs)
		r = nodeRef(kind16, i)
	case n <= 48:
		i := t.n48.alloc()
		m := t.n48.at(i)
		for s, k := range f.keys {
			m.index[k] = uint8(s + 1)
		}
		copy(m.child[:], f.refs)
		r = nodeRef(kind48, i)
	default:
		i := t.n256.alloc()
		m := t.n256.at(i)
		for s, k := range f.keys {
			m.child[k] = f.refs[s]
		}
		r = nodeRef(kind256, i)
	}
	h := t.hdr(r)
	h.n = uint16(len(f.keys))
	h.hasEnd, h.end = f.hasEnd, f.end
	return r
}

// finish closes every open frame and returns the root.
func (b *builder) finish() ref {
	if !b.have {
		return 0
	}
	for len(b.stack) > 0 {
		b.close()
	}
	if b.pendingD >= 0 {
		b.setPath(b.prev[:b.pendingD])
	}
	return b.pending
}

// setPath gives the pending node its compressed path, now that its parent
// is known, and its ref the path's length.
func (b *builder) setPath(p []byte) {
	setPrefix(b.t.hdr(b.pending), p)
	b.pending = b.pending.withPlen(uint32(len(p)))
}
