package radixindex

// Compact copies the nodes into fresh, dense slabs and drops the old ones,
// returning the bytes held before and after. Nodes that grow leave their
// smaller slot behind for reuse; when growth outruns reuse (random keys
// filling up: 5 bytes per key at 10M, see bench/results) the free slots
// stay held until a Compact, a Restore or a Rebuild. It is a write: it needs
// exclusive access, costs about a Restore, and holds old and new nodes at
// once while it runs.
func (t *Tree) Compact() (before, after int) {
	before = t.MemoryBytes()
	nt := New(t.keyOf)
	if t.root != 0 && !t.root.isLeaf() {
		nt.root = nt.copyNode(t, t.root)
	} else {
		nt.root = t.root
	}
	nt.n = t.n
	t.adopt(nt)
	return before, t.MemoryBytes()
}

// copyNode copies src's subtree r into t and returns its new ref.
func (t *Tree) copyNode(src *Tree, r ref) ref {
	var nr ref
	var child []ref
	switch r.kind() {
	case kind4:
		i := t.n4.alloc()
		n := t.n4.at(i)
		*n = *src.n4.at(r.index())
		nr, child = nodeRef(kind4, i), n.child[:n.h.n]
	case kind16:
		i := t.n16.alloc()
		n := t.n16.at(i)
		*n = *src.n16.at(r.index())
		nr, child = nodeRef(kind16, i), n.child[:n.h.n]
	case kind48:
		i := t.n48.alloc()
		n := t.n48.at(i)
		*n = *src.n48.at(r.index())
		nr, child = nodeRef(kind48, i), n.child[:]
	case kind256:
		i := t.n256.alloc()
		n := t.n256.at(i)
		*n = *src.n256.at(r.index())
		nr, child = nodeRef(kind256, i), n.child[:]
	}
	for k, c := range child {
		if c != 0 && !c.isLeaf() {
			child[k] = t.copyNode(src, c)
		}
	}
	return nr.withPlen(uint32(r.plen()))
}
