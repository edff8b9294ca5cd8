package head

import (
	"bytes"
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

// Compare checks the model against the mirror's trees, row by row: every
// table the model holds must equal the mirror's tree at the model's LSN
// (keys in the index, rows in the heap, and no heap row the index does
// not name). It returns the rows compared. A table inside a resync window
// (its changes held for the resync's copy) is compared with the tree the
// mirror stores for it there, its rows from before the resync, which the
// model keeps until the copy lands (Mirror.StoredTreeAt): the model's
// content is checked, though readers of the table there are refused
// (Mirror.Readable). Each table is compared under its read lock, so apply
// waits meanwhile: this is a check for tests and for invariants builds,
// not for a serving daemon's hot path.
func (m *Model) Compare(ctx context.Context, mr *mirror.Mirror) (int, error) {
	total := 0
	for _, name := range m.Tables() {
		t := m.Table(name)
		var err error
		n := 0
		t.ix.View(func(tr *radixindex.Tree, _ uint64) {
			at := m.LSN()
			if t.lsn.Load() > uint64(at) {
				err = fmt.Errorf("head compare %s: table at %d, past the model's %s", name, t.lsn.Load(), at)
				return
			}
			n, err = t.compareLocked(ctx, mr, tr, at)
		})
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

func (t *Table) compareLocked(ctx context.Context, mr *mirror.Mirror, tr *radixindex.Tree, at wal.LSN) (int, error) {
	tree, err := mr.StoredTreeAt(ctx, t.name, at)
	if err != nil {
		return 0, fmt.Errorf("head compare %s at %s: %w", t.name, at, err)
	}
	cur, err := tree.Scan(ctx, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("head compare %s at %s: %w", t.name, at, err)
	}
	snap := t.hp.Snapshot()
	defer snap.Release()
	it := tr.Iter(nil)
	ok := it.First()
	n := 0
	var buf []byte
	for cur.Next() {
		if !ok {
			return n, fmt.Errorf("head compare %s at %s: key %x in the tree, not in the model", t.name, at, cur.Key())
		}
		if !bytes.Equal(it.Key(), cur.Key()) {
			return n, fmt.Errorf("head compare %s at %s: model key %x, tree key %x", t.name, at, it.Key(), cur.Key())
		}
		var live bool
		buf, live = snap.Row(buf[:0], heap.RowID(it.RowID()))
		if !live {
			return n, fmt.Errorf("head compare %s at %s: key %x names row id %d, not live in the heap", t.name, at, cur.Key(), it.RowID())
		}
		if !bytes.Equal(buf, cur.Value()) {
			return n, fmt.Errorf("head compare %s at %s: key %x: heap row %x, tree row %x", t.name, at, cur.Key(), buf, cur.Value())
		}
		n++
		ok = it.Next()
	}
	if err := cur.Err(); err != nil {
		return n, err
	}
	if ok {
		return n, fmt.Errorf("head compare %s at %s: model key %x not in the tree", t.name, at, it.Key())
	}
	if int(snap.Rows()) != n {
		return n, fmt.Errorf("head compare %s at %s: heap holds %d live rows, tree %d", t.name, at, snap.Rows(), n)
	}
	return n, nil
}
