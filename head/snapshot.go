package head

import (
	"bytes"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

// SnapshotAt returns a snapshot of table's heap as it is at version at,
// and the relation its rows are encoded with, for scans (package query's
// HEAD queries). It is taken inside the index's read lock, so it is the
// state of one applied batch, never half a transaction; once taken it
// stays that state however many batches are applied after (the heap's
// snapshots are copy-on-write), and no lock is held while it is read.
// The caller must Release it. It returns ErrNotAtVersion when the model
// does not hold the table at that version (behind it, past it beyond the
// states it keeps, see Table.past, or the table is unknown): the caller
// reads the tree instead.
func (m *Model) SnapshotAt(table string, at wal.LSN) (*heap.Snapshot, *wal.Relation, error) {
	t := m.Table(table)
	if t == nil || m.behind(at) {
		return nil, nil, ErrNotAtVersion
	}
	var snap *heap.Snapshot
	t.ix.View(func(_ *radixindex.Tree, ilsn uint64) {
		if m.servable(t, at, ilsn) {
			snap = t.hp.Snapshot()
		} else if !t.retired.Load() && uint64(at) < max(t.lsn.Load(), ilsn) {
			snap = t.pastAt(uint64(at)) // just moved past at: a kept state
		}
	})
	if snap == nil {
		return nil, nil, ErrNotAtVersion
	}
	m.snapshots.Add(1)
	return snap, t.rel, nil
}

// SnapshotRange is SnapshotAt plus the row ids of the keys in [from, to)
// (nil: unbounded), read from the index in the same read lock, so the ids
// name rows of that snapshot: a primary-key range becomes the pages and
// slots a scan touches. When the range holds more than max keys the ids
// are not collected (nil, complete=false): the caller scans every page.
func (m *Model) SnapshotRange(table string, at wal.LSN, from, to []byte, max int) (snap *heap.Snapshot, rel *wal.Relation, ids []heap.RowID, complete bool, err error) {
	t := m.Table(table)
	if t == nil || m.behind(at) {
		return nil, nil, nil, false, ErrNotAtVersion
	}
	t.ix.View(func(tr *radixindex.Tree, ilsn uint64) {
		if !m.servable(t, at, ilsn) {
			return
		}
		snap = t.hp.Snapshot()
		it := tr.Iter(nil)
		ok := it.First()
		if from != nil {
			ok = it.Seek(from)
		}
		complete = true
		for ; ok; ok = it.Next() {
			if to != nil && bytes.Compare(it.Key(), to) >= 0 {
				break
			}
			if len(ids) == max {
				ids, complete = nil, false
				break
			}
			ids = append(ids, heap.RowID(it.RowID()))
		}
	})
	if snap == nil {
		return nil, nil, nil, false, ErrNotAtVersion
	}
	m.snapshots.Add(1)
	return snap, t.rel, ids, complete, nil
}
