package radixindex

import (
	"io"

	"github.com/sidecar-dev/sidecar/internal/invariants"
)

// Frozen is an index's nodes at one LSN, for a checkpoint to encode while
// the index goes on being updated (Index.Freeze). It shares the node
// slabs' chunks with the index copy-on-write: freezing copies only the
// chunk lists (one pointer a chunk, ≈ 16 KiB of nodes), and the index's
// writer copies a chunk the first time it changes it after the freeze, so
// the frozen view's chunks are never written. (Until issue 24's slab
// copy-on-write, Freeze copied every slab under the lock, ≈ 16 B a key:
// 0.3–0.9 s of writer stall at the first cut after a 1M-row copy.)
type Frozen struct {
	ix     *Index // nil once released
	t      *Tree
	lsn    uint64
	copied int // the index's Tree.copied at the freeze
}

// Freeze returns the index as it is, with its LSN, in O(number of chunks)
// under the write lock. The view holds the chunks the writer replaces
// after it until it is released: call Release once it is written, so the
// writer stops copying chunks nobody shares any more.
func (ix *Index) Freeze() *Frozen {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if invariants.Enabled {
		// INVARIANT: a checkpoint is only ever written of a sound tree
		// (checked here, where the keys are the tree's: the view has none
		// of its own).
		err := ix.t.Verify()
		invariants.Check(err == nil, "radixindex: checkpoint of a broken tree: %v", err)
	}
	ix.frozen++
	return &Frozen{ix: ix, t: ix.t.freeze(), lsn: ix.lsn, copied: ix.t.copied()}
}

// Release drops the view: it must not be used after. When it was the
// index's last view, the writer owns every chunk again and changes them
// in place. It returns the bytes of chunks the writer copied while the
// view lived (what the view kept alive beside the index; a Compact or
// Rebuild meanwhile is not counted). Releasing twice is harmless.
func (f *Frozen) Release() (copied int) {
	ix := f.ix
	if ix == nil {
		return 0
	}
	f.ix, f.t = nil, nil
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.frozen--
	if ix.frozen == 0 {
		ix.t.unshare()
	}
	return max(ix.t.copied()-f.copied, 0)
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

// freeze makes every chunk of t shared and returns a tree over the same
// chunks as they are now, which t's writer never changes (slab.mut). The
// view reads no keys unless it is searched: it has t's KeyFunc, which
// answers for the current rows, not the view's, so only what needs no key
// (WriteCheckpoint, Len) is meaningful on it once t has changed.
func (t *Tree) freeze() *Tree {
	c := New(t.keyOf)
	c.root, c.n = t.root, t.n
	c.n4, c.n16, c.n48, c.n256 = t.n4.freeze(), t.n16.freeze(), t.n48.freeze(), t.n256.freeze()
	return c
}

// copied is the bytes of chunks the writer has copied (slab.mut).
func (t *Tree) copied() int {
	return t.n4.copied + t.n16.copied + t.n48.copied + t.n256.copied
}

// unshare gives every chunk back to the writer (no frozen view is left).
func (t *Tree) unshare() {
	t.n4.unshare()
	t.n16.unshare()
	t.n48.unshare()
	t.n256.unshare()
}
