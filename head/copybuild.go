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

var _ mirror.CopyIntakeBuilder = (*Model)(nil)

// BuildsInAnyOrder implements mirror.CopyIntakeBuilder: the heap gives
// row ids in arrival order and the radix index takes keys in any order,
// so the model builds a copied table from its ranges' rows as they
// arrive, overlapping the COPY, instead of after it from the merge (the
// HEAD build was the copy's slowest stage: s23's profile). A copied
// table's heap is then in the ranges' arrival order (each run in key
// order), as PostgreSQL's is in its own physical order: a scan's order
// is no promise, a read in key order goes through the index.
func (m *Model) BuildsInAnyOrder() bool { return true }

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
	// Every key page of a copy's table fills up.
	t.keys.room = t.hp.Config().PageRows
	return &copyBuild{m: m, t: t}
}

// copyBuild is a table being built from a copy's rows, in heap batches
// of resetChunkRows (as a reset read from the tree is applied).
//
// A batch is built in two stages that overlap (issue 24 item 5): the
// heap inserts of batch N+1 (the caller's goroutine, in Add) run while a
// goroutine of the build puts batch N's keys into the radix index and
// the key store (indexStage). The HEAD build is the copy's slowest
// stage (the tree builder waits for it), and the index and key store
// were about a quarter of it; with a core to spare the two overlap
// (copy-2026-12-06-s18.md). The heap and the index have locks of their
// own, and the key store is written by the index stage only.
type copyBuild struct {
	m *Model
	t *Table

	ops     []heap.Op
	rowEnds []int
	rarena  []byte
	cur     *keyBatch // the batch being filled: its keys
	spare   *keyBatch // the other one, when no index stage holds it
	// indexing is closed when the index stage started last ends (nil:
	// none running); it holds indexed until then.
	indexing chan struct{}
	indexed  *keyBatch
	// dup is set by an index stage that met a key already indexed (rows
	// fed at the copy's intake are not deduplicated by the merge); read
	// after the stage ends (wait).
	dup bool
	// long is the length of a key longer than the index takes
	// (radixindex.MaxKeyLen: a REPLICA IDENTITY FULL row of over 1 MiB),
	// set by an index stage; read after the stage ends (wait).
	long int
	err  error // the first failure: the build is then declined

	mu        sync.Mutex
	taken     bool
	discarded bool
}

// keyBatch is one heap batch's keys and the row ids the heap gave them,
// for the index stage.
type keyBatch struct {
	keyEnds []int
	karena  []byte
	ids     []heap.RowID
}

// Add implements mirror.CopyBuild.
func (b *copyBuild) Add(key, val []byte) {
	if b.err != nil {
		return
	}
	if b.cur == nil {
		b.cur, b.spare = &keyBatch{}, &keyBatch{}
	}
	kb := b.cur
	b.ops = append(b.ops, heap.Op{Kind: heap.OpInsert})
	kb.karena = append(kb.karena, key...)
	b.rarena = append(b.rarena, val...)
	kb.keyEnds = append(kb.keyEnds, len(kb.karena))
	b.rowEnds = append(b.rowEnds, len(b.rarena))
	if len(b.ops) >= resetChunkRows {
		b.flush()
	}
}

// flush inserts the buffered rows into the table's heap (nobody reads it
// yet) and hands their keys to an index stage, once the previous one
// ended.
func (b *copyBuild) flush() {
	if len(b.ops) == 0 || b.err != nil {
		return
	}
	kb := b.cur
	rs := 0
	for i := range b.ops {
		b.ops[i].Row = b.rarena[rs:b.rowEnds[i]:b.rowEnds[i]]
		rs = b.rowEnds[i]
	}
	ids, err := b.t.hp.ApplyInto(heap.Batch{Ops: b.ops}, kb.ids)
	// The heap keeps nothing of the row arena: it is reused.
	clear(b.ops)
	b.ops, b.rowEnds, b.rarena = b.ops[:0], b.rowEnds[:0], b.rarena[:0]
	b.wait()
	if err != nil {
		b.err = err
		return
	}
	kb.ids = ids
	done := make(chan struct{})
	b.indexing, b.indexed = done, kb
	go func() {
		defer close(done)
		dup, long := b.t.indexStage(kb)
		if dup {
			b.dup = true
		}
		if long > 0 {
			b.long = long
		}
	}()
	b.cur, b.spare = b.spare, nil
	b.cur.keyEnds, b.cur.karena = b.cur.keyEnds[:0], b.cur.karena[:0]
}

// wait waits for the index stage running, if any, and takes its batch
// back as the spare one.
func (b *copyBuild) wait() {
	if b.indexing == nil {
		return
	}
	<-b.indexing
	b.spare, b.indexing, b.indexed = b.indexed, nil, nil
	if b.dup && b.err == nil {
		b.err = fmt.Errorf("a key came twice in the copy's rows")
	}
	if b.long > 0 && b.err == nil {
		b.err = keyTooLong(b.long)
	}
}

// indexStage puts a heap batch's keys into the index and the key store,
// under the index's write lock (the table is not shared yet), and
// charges their bytes to the heaps' page budget. It reports whether a
// key was already in the index, or the length of a key longer than the
// index takes (the build must then be declined either way).
func (t *Table) indexStage(kb *keyBatch) (dup bool, long int) {
	t.ix.Update(0, func(tr *radixindex.Tree) {
		ks := 0
		for i, id := range kb.ids {
			key := kb.karena[ks:kb.keyEnds[i]:kb.keyEnds[i]]
			ks = kb.keyEnds[i]
			if len(key) > radixindex.MaxKeyLen {
				long = len(key)
				continue
			}
			t.keys.set(id, key)
			if _, replaced := tr.Put(key, uint64(id)); replaced {
				dup = true
			}
		}
		t.chargeLocked(tr)
	})
	return dup, long
}

// Discard implements mirror.CopyBuild.
func (b *copyBuild) Discard() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken || b.discarded {
		return
	}
	b.discarded = true
	b.wait()
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
	b.wait()
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
		b.Discard()
		if isKeyTooLong(err) {
			// The tree holds the same rows: reading it back would fail
			// the same way. The caller declines the table.
			return nil, err
		}
		if p := m.opts.Persist; p != nil && p.Logger != nil {
			p.Logger.Info("in-memory HEAD reads the copied table back from its tree", "table", tb.Table, "why", err)
		}
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
