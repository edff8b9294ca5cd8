package head

import (
	"bytes"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

// KeyIDs is SnapshotRange for a read in key order that stops early (an
// ORDER BY on the primary key under a LIMIT): the row ids of at most max
// keys of [from, to) (nil: unbounded), in key order — from the largest
// key down when desc — read from the index in the same read lock as the
// snapshot, so they name rows of it. last is the last key collected (a
// copy; nil when none), more whether the range holds keys past it: the
// next chunk starts after last (before it, when desc). The caller must
// Release the snapshot. ErrNotAtVersion: the model does not hold the
// table at that version.
func (m *Model) KeyIDs(table string, at wal.LSN, from, to []byte, max int, desc bool) (snap *heap.Snapshot, rel *wal.Relation, ids []heap.RowID, last []byte, more bool, err error) {
	t := m.Table(table)
	if t == nil || m.behind(at) {
		return nil, nil, nil, nil, false, ErrNotAtVersion
	}
	t.ix.View(func(tr *radixindex.Tree, ilsn uint64) {
		if !m.servable(t, at, ilsn) {
			return
		}
		snap = t.hp.Snapshot()
		it := tr.Iter(nil)
		in := func(k []byte) bool {
			if desc {
				return from == nil || bytes.Compare(k, from) >= 0
			}
			return to == nil || bytes.Compare(k, to) < 0
		}
		var ok bool
		switch {
		case !desc && from == nil:
			ok = it.First()
		case !desc:
			ok = it.Seek(from)
		case to == nil:
			ok = it.Last()
		default:
			// The largest key < to.
			if ok = it.SeekLE(to); ok && bytes.Equal(it.Key(), to) {
				ok = it.Prev()
			}
		}
		for ; ok && in(it.Key()); ok = step(it, desc) {
			if len(ids) == max {
				more = true
				break
			}
			ids = append(ids, heap.RowID(it.RowID()))
			last = append(last[:0], it.Key()...)
		}
	})
	if snap == nil {
		return nil, nil, nil, nil, false, ErrNotAtVersion
	}
	m.snapshots.Add(1)
	return snap, t.rel, ids, last, more, nil
}

// step moves it to the next key in the read's direction.
func step(it *radixindex.Iterator, desc bool) bool {
	if desc {
		return it.Prev()
	}
	return it.Next()
}
