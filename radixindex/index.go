package radixindex

import (
	"bytes"
	"io"
	"iter"
	"sync"

	"github.com/sidecar-dev/sidecar/internal/invariants"
)

// Index is a Tree under the mirror's one-writer, many-readers protocol,
// stamped with the LSN it reflects.
//
// Protocol: the writer applies each commit (or commit group) inside one
// Update, which holds the write lock for the whole batch; readers run
// inside View, under the read lock. A reader therefore sees exactly one
// committed state, never half a transaction. Nodes are updated in place,
// so there is nothing to reclaim: a freed slot may be reused by the next
// Update, which is safe because no reader holds a position across an
// Update (iterators do not survive the lock). A long read does not hold
// the lock for long: Scan releases it every scanChunk keys and, if an
// Update came in between, seeks again past the last key it delivered.
// sync.RWMutex queues new readers behind a waiting writer, so apply waits
// at most for the chunks in progress.
//
// Index.Freeze takes a view of one committed state that later Updates do
// not change (copy-on-write of the node chunks), for a checkpoint to
// encode beside the writer.
//
// The heap and the index can share a lock instead: a caller that already
// serialises its own readers and writer can use a Tree directly under its
// lock, with the same rules.
type Index struct {
	mu        sync.RWMutex
	t         *Tree
	lsn       uint64
	gen       uint64 // Updates so far: a scan's position survives a gap only if it did not move
	frozen    int    // Frozen views not yet released (Freeze, Frozen.Release)
	scanChunk int
}

// defaultScanChunk keys per read-lock hold in Scan: 0.05–0.6 ms of
// iteration at the 10–140 ns of CPU per key measured at 1M–10M keys
// (bench/results/radixindex-2026-12-01.md), plus what fn costs.
const defaultScanChunk = 4096

// NewIndex returns an empty index at LSN 0.
func NewIndex(keyOf KeyFunc) *Index {
	return &Index{t: New(keyOf), scanChunk: defaultScanChunk}
}

// RestoreIndex decodes a checkpoint (see Restore) into an index at the
// checkpoint's LSN.
func RestoreIndex(data []byte, keyOf KeyFunc) (*Index, error) {
	t, lsn, err := Restore(data, keyOf)
	if err != nil {
		return nil, err
	}
	return &Index{t: t, lsn: lsn, scanChunk: defaultScanChunk}, nil
}

// Update runs fn with exclusive access to the tree and then sets the
// index's LSN to lsn: fn applies everything up to and including that LSN.
// fn must not call back into the Index. If fn panics, the lock is released
// with the batch half applied and the LSN unchanged: rebuild the index.
func (ix *Index) Update(lsn uint64, fn func(t *Tree)) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.gen++
	fn(ix.t)
	ix.lsn = lsn
}

// View runs fn under the read lock: fn may call the tree's read methods
// (Get, Len, Min, Max, Iter, MemoryBytes), from several goroutines if it
// likes, and must not write or keep an iterator past its return.
func (ix *Index) View(fn func(t *Tree, lsn uint64)) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	fn(ix.t, ix.lsn)
}

// Get looks key up under the read lock.
func (ix *Index) Get(key []byte) (uint64, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.t.Get(key)
}

// LSN returns the LSN the index reflects.
func (ix *Index) LSN() uint64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.lsn
}

// Len returns the number of keys.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.t.Len()
}

// MemoryBytes returns the tree's footprint (Tree.MemoryBytes).
func (ix *Index) MemoryBytes() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.t.MemoryBytes()
}

// Checkpoint writes the index with its LSN (Tree.WriteCheckpoint) and
// returns the LSN and the bytes written. It holds the read lock while it
// encodes, so apply waits for it: write to memory and persist afterwards.
func (ix *Index) Checkpoint(w io.Writer) (lsn uint64, n int64, err error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if invariants.Enabled {
		// INVARIANT: a checkpoint is only ever written of a sound tree.
		err := ix.t.Verify()
		invariants.Check(err == nil, "radixindex: checkpoint of a broken tree: %v", err)
	}
	n, err = ix.t.WriteCheckpoint(w, ix.lsn)
	return ix.lsn, n, err
}

// Rebuild replaces the contents with src's sorted pairs (Tree.Rebuild),
// which reflect lsn. It builds without the lock and swaps the result in, so
// readers keep the old contents until then; on error nothing changes.
// Builds with the invariants checks (internal/invariants) also Verify the
// new tree, through the KeyFunc, before the swap.
func (ix *Index) Rebuild(lsn uint64, src iter.Seq2[[]byte, uint64]) error {
	nt := New(ix.t.keyOf)
	if err := nt.Rebuild(src); err != nil {
		return err
	}
	if invariants.Enabled {
		// INVARIANT: a bulk-built tree is the tree its pairs describe.
		err := nt.Verify()
		invariants.Check(err == nil, "radixindex: rebuilt tree is broken: %v", err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.gen++
	ix.t.adopt(nt)
	ix.lsn = lsn
	return nil
}

// Compact copies the tree into dense slabs under the write lock
// (Tree.Compact) and returns the bytes held before and after; a caller
// runs it when MemoryBytes has grown well past what a restored checkpoint
// takes, e.g. at a checkpoint.
func (ix *Index) Compact() (before, after int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.gen++
	return ix.t.Compact()
}

// Scan calls fn with the row id of each key that starts with prefix and is
// ≥ start, in key order, until fn returns false. fn runs under the read
// lock and must not call back into the Index.
//
// The lock is released every scanChunk keys, so Updates interleave with a
// long scan: each chunk sees one committed state, keys come strictly in
// order and at most once, and a key present for the whole scan is always
// delivered, but the scan as a whole is not one snapshot. A reader that
// needs one snapshot iterates inside View.
func (ix *Index) Scan(prefix, start []byte, fn func(rowID uint64) bool) {
	it := ix.t.Iter(prefix)
	var last []byte // the last key delivered, read at each chunk's end
	var gen uint64
	for chunk := 0; ; chunk++ {
		ix.mu.RLock()
		var ok bool
		switch {
		case chunk == 0:
			ok = it.Seek(start)
		case ix.gen == gen:
			ok = it.Next() // nothing moved: the position is still good
		default:
			ok = it.Seek(last)
			if ok && bytes.Equal(it.Key(), last) {
				ok = it.Next()
			}
		}
		for n := 1; ok; n++ {
			if !fn(it.RowID()) {
				ix.mu.RUnlock()
				return
			}
			if n == ix.scanChunk {
				break
			}
			ok = it.Next()
		}
		if !ok {
			ix.mu.RUnlock()
			return
		}
		last = append(last[:0], it.Key()...)
		gen = ix.gen
		ix.mu.RUnlock()
	}
}
