// A table copied into the model in one pass (issue 24 item 5): the
// model builds the table's heap and index from the copy's sorted rows
// while the mirror builds the tree (mirror.CopyBuilder), and installs it
// when the table's reset arrives, instead of reading the recorded tree
// back and decoding every leaf a second time.

package head

import (
	"context"
	"fmt"
	"sync"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

var _ mirror.CopyBuilder = (*Model)(nil)

// CopyBuilds is how many tables the model installed as built from their
// copy's rows (not read back from the tree).
func (m *Model) CopyBuilds() int64 { return m.copyBuilds.Load() }

// BuildCopy implements mirror.CopyBuilder: a new table, invisible until
// its reset hands it back (Apply), filled from the copy's rows.
func (m *Model) BuildCopy(table string, rel *wal.Relation) mirror.CopyBuild {
	t, err := m.newTable(table, rel, m.opts.Heap)
	if err != nil {
		return nil // the reset reads the tree whole
	}
	return &copyBuild{m: m, t: t}
}

// copyBuild is a table being built from a copy's rows, in heap batches
// of resetChunkRows (as a reset read from the tree is applied).
type copyBuild struct {
	m *Model
	t *Table

	ops              []heap.Op
	keyEnds, rowEnds []int
	karena, rarena   []byte
	err              error // the first failure: the build is then declined

	mu        sync.Mutex
	taken     bool
	discarded bool
}

// Add implements mirror.CopyBuild.
func (b *copyBuild) Add(key, val []byte) {
	if b.err != nil {
		return
	}
	b.ops = append(b.ops, heap.Op{Kind: heap.OpInsert})
	b.karena = append(b.karena, key...)
	b.rarena = append(b.rarena, val...)
	b.keyEnds = append(b.keyEnds, len(b.karena))
	b.rowEnds = append(b.rowEnds, len(b.rarena))
	if len(b.ops) >= resetChunkRows {
		b.flush()
	}
}

// flush applies the buffered rows to the table (nobody reads it yet).
func (b *copyBuild) flush() {
	if len(b.ops) == 0 || b.err != nil {
		return
	}
	b.t.ix.Update(0, func(tr *radixindex.Tree) {
		b.err = b.t.applyOps(tr, b.ops, b.keyEnds, b.rowEnds, b.karena, b.rarena, 0)
	})
	// applyOps keeps nothing of the arenas: both are reused (a fresh key
	// arena per chunk was grown by doubling from nothing 60 times per 1M rows).
	b.ops, b.keyEnds, b.rowEnds, b.karena, b.rarena = b.ops[:0], b.keyEnds[:0], b.rowEnds[:0], b.karena[:0], b.rarena[:0]
}

// Discard implements mirror.CopyBuild.
func (b *copyBuild) Discard() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken || b.discarded {
		return
	}
	b.discarded = true
	b.t.hp.Close()
	b.t.charge.Set(0)
}

// take hands the built table over to the reset applying it, or reports
// why it cannot be used (the reset then reads the tree whole).
func (b *copyBuild) take(m *Model, rel *wal.Relation) (*Table, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.m != m:
		return nil, fmt.Errorf("built by another model")
	case b.discarded || b.taken:
		return nil, fmt.Errorf("build already discarded or taken")
	}
	b.flush()
	if b.err != nil {
		return nil, b.err
	}
	if !sameSchema(b.t.rel, rel) {
		return nil, fmt.Errorf("built under another schema")
	}
	b.taken = true
	m.copyBuilds.Add(1)
	return b.t, nil
}

// newResetTable is the new table a reset batch installs: the one built
// from the copy's rows when the batch hands one over, with the batch's
// edits (from those rows to the recorded tree) applied, else a new table
// with every row of the tree.
func (m *Model) newResetTable(ctx context.Context, tb *mirror.TableBatch, lsn uint64) (*Table, error) {
	if b, ok := tb.Built().(*copyBuild); ok {
		t, err := b.take(m, tb.Relation)
		if err == nil {
			return t, t.applyReset(lsn, func(fn func(prolly.Edit) error) error { return tb.Edits(ctx, fn) })
		}
		if p := m.opts.Persist; p != nil && p.Logger != nil {
			p.Logger.Info("in-memory HEAD reads the copied table back from its tree", "table", tb.Table, "why", err)
		}
		b.Discard()
	}
	nt, err := m.newTable(tb.Table, tb.Relation, m.opts.Heap)
	if err != nil {
		return nil, err
	}
	return nt, nt.applyReset(lsn, func(fn func(prolly.Edit) error) error { return tb.Whole(ctx, fn) })
}

// applyReset applies edits to a table nobody reads yet, in heap batches
// of resetChunkRows, and sets its version to lsn.
func (t *Table) applyReset(lsn uint64, edits func(fn func(prolly.Edit) error) error) error {
	var err error
	t.ix.Update(lsn, func(tr *radixindex.Tree) { err = t.applyChunked(tr, edits, lsn, resetChunkRows) })
	if err == nil {
		t.lsn.Store(lsn)
	}
	return err
}
