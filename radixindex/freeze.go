package radixindex

import (
	"io"
	"slices"

	"github.com/sidecar-dev/sidecar/internal/invariants"
)

// Frozen is a copy of an index's nodes at one LSN, for a checkpoint to
// encode while the index goes on being updated (Index.Freeze). It shares
// nothing with the index: a copy of the slabs is a memory copy, ~10× less
// work than encoding them (a tree walk writing varints and a checksum),
// and only the copy is done under the index's lock.
type Frozen struct {
	t   *Tree
	lsn uint64
}

// Freeze copies the tree under the read lock and returns the copy with
// the index's LSN. The copy holds about MemoryBytes until it is dropped.
func (ix *Index) Freeze() *Frozen {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if invariants.Enabled {
		// INVARIANT: a checkpoint is only ever written of a sound tree
		// (checked here, where the keys are the tree's: the copy has none).
		err := ix.t.Verify()
		invariants.Check(err == nil, "radixindex: checkpoint of a broken tree: %v", err)
	}
	return &Frozen{t: ix.t.clone(), lsn: ix.lsn}
}

// LSN is the LSN the index reflected when it was frozen.
func (f *Frozen) LSN() uint64 { return f.lsn }

// Len is the number of keys of the frozen tree.
func (f *Frozen) Len() int { return f.t.n }

// WriteCheckpoint writes the frozen tree as Index.Checkpoint would have
// at the moment it was frozen (Tree.WriteCheckpoint) and returns the
// bytes written. Safe for one caller at a time; the index may change
// meanwhile.
func (f *Frozen) WriteCheckpoint(w io.Writer) (int64, error) {
	return f.t.WriteCheckpoint(w, f.lsn)
}

// clone copies the tree's nodes (the free lists too: the copy is a tree
// in its own right). The copy reads no keys unless it is searched: it
// has t's KeyFunc, which answers for the current rows, not the copy's,
// so only what needs no key (WriteCheckpoint, Len, MemoryBytes) is
// meaningful on it once t has changed.
func (t *Tree) clone() *Tree {
	c := New(t.keyOf)
	c.root, c.n = t.root, t.n
	c.n4, c.n16, c.n48, c.n256 = t.n4.clone(), t.n16.clone(), t.n48.clone(), t.n256.clone()
	return c
}

// clone is a deep copy of the slab.
func (s *slab[T]) clone() slab[T] {
	c := slab[T]{n: s.n, maxBits: s.maxBits, free: slices.Clone(s.free), chunks: make([][]T, len(s.chunks))}
	for i, ch := range s.chunks {
		c.chunks[i] = slices.Clone(ch)
	}
	return c
}
