package radixindex

import (
	"bytes"
	"fmt"
)

// Verify checks the tree's invariants against the keys the KeyFunc
// returns: every key sits on the path its bytes spell (stored path bytes
// and branch bytes agree with it), keys are in order, every inner node has
// at least two entries and as many children as it counts, and Len is the
// number of keys. It reads every key, so it costs about a full scan; tests
// and the invariants build call it, and a caller may after Restore.
func (t *Tree) Verify() error {
	if t.root == 0 || t.root.isLeaf() {
		live := t.n4.live() + t.n16.live() + t.n48.live() + t.n256.live()
		want := 0
		if t.root != 0 {
			want = 1
		}
		if t.n != want || live != 0 {
			return fmt.Errorf("radixindex: root %#x with Len %d and %d nodes", uint64(t.root), t.n, live)
		}
	}
	if t.root == 0 {
		if t.n != 0 {
			return fmt.Errorf("radixindex: empty tree with Len %d", t.n)
		}
		return nil
	}
	v := verifier{t: t}
	if err := v.walk(t.root, nil); err != nil {
		return err
	}
	if v.count != t.n {
		return fmt.Errorf("radixindex: %d keys in the tree, Len says %d", v.count, t.n)
	}
	// Every slot handed out and not freed is reachable: nothing leaks.
	live := [4]int{t.n4.live(), t.n16.live(), t.n48.live(), t.n256.live()}
	if v.nodes != live {
		return fmt.Errorf("radixindex: %v nodes reachable per kind, %v in use", v.nodes, live)
	}
	return nil
}

type verifier struct {
	t     *Tree
	count int
	nodes [4]int
	prev  []byte
	have  bool
}

// walk checks subtree r whose path so far is path (the bytes every key
// below must start with, as far as the tree knows them).
func (v *verifier) walk(r ref, path []byte) error {
	t := v.t
	if r.isLeaf() {
		return v.leaf(r.rowID(), path, false)
	}
	k := r.kind()
	if k < kind4 || k > kind256 {
		return fmt.Errorf("radixindex: bad ref kind %d", k)
	}
	v.nodes[k-kind4]++
	h := t.hdr(r)
	if r.plen() != int(h.prefixLen) {
		return fmt.Errorf("radixindex: ref %#x carries path length %d, the node has %d", uint64(r), r.plen(), h.prefixLen)
	}
	if h.entries() < 2 {
		return fmt.Errorf("radixindex: node %#x at %x has %d entries", uint64(r), path, h.entries())
	}
	// Path bytes past the stored ones are unknown here: take them from a
	// leaf's key and check the stored ones against it.
	lk := t.keyOf(nil, t.minLeaf(r))
	plen := int(h.prefixLen)
	if len(lk) < len(path)+plen {
		return fmt.Errorf("radixindex: key %x shorter than its path (%d+%d)", lk, len(path), plen)
	}
	full := lk[len(path) : len(path)+plen]
	if !bytes.Equal(full[:min(plen, maxPrefix)], h.prefix[:min(plen, maxPrefix)]) {
		return fmt.Errorf("radixindex: stored path %x of node %#x disagrees with key %x", h.prefix, uint64(r), lk)
	}
	for _, b := range h.prefix[min(plen, maxPrefix):] {
		if b != 0 {
			return fmt.Errorf("radixindex: node %#x has bytes past its stored path", uint64(r))
		}
	}
	path = append(path[:len(path):len(path)], full...)
	if h.hasEnd {
		if err := v.leaf(h.end, path, true); err != nil {
			return err
		}
	}
	children := 0
	lastByte := -1
	for pos := posEnd; ; {
		p, c, ok := t.nextEntry(r, pos)
		if !ok {
			break
		}
		pos = p
		b := v.branchByte(r, p)
		if b <= lastByte {
			return fmt.Errorf("radixindex: node %#x: branch bytes out of order", uint64(r))
		}
		lastByte = b
		if c == 0 {
			return fmt.Errorf("radixindex: node %#x: empty child slot counted", uint64(r))
		}
		children++
		if err := v.walk(c, append(path, byte(b))); err != nil {
			return err
		}
	}
	if children != int(h.n) {
		return fmt.Errorf("radixindex: node %#x counts %d children, has %d", uint64(r), h.n, children)
	}
	if r.kind() == kind48 {
		n := t.n48.at(r.index())
		used := 0
		for _, c := range n.child {
			if c != 0 {
				used++
			}
		}
		if used != children {
			return fmt.Errorf("radixindex: node48 %#x has %d slots used for %d children", uint64(r), used, children)
		}
	}
	return nil
}

func (v *verifier) branchByte(r ref, pos int) int {
	switch r.kind() {
	case kind4:
		return int(v.t.n4.at(r.index()).keys[pos])
	case kind16:
		return int(v.t.n16.at(r.index()).keys[pos])
	}
	return pos
}

func (v *verifier) leaf(id uint64, path []byte, end bool) error {
	k := v.t.keyOf(nil, id)
	if !bytes.HasPrefix(k, path) || (end && len(k) != len(path)) {
		return fmt.Errorf("radixindex: row %d with key %x sits at path %x", id, k, path)
	}
	if v.have && bytes.Compare(v.prev, k) >= 0 {
		return fmt.Errorf("radixindex: key %x follows %x", k, v.prev)
	}
	v.prev, v.have = k, true
	v.count++
	return nil
}
