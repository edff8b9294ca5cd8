package mirror

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// REPLICA IDENTITY FULL tables are multisets: a table without a key may
// hold identical rows, and PostgreSQL (its own subscriber too) changes
// one of them per UPDATE or DELETE. Each occurrence is one tree entry
// (rowenc.AppendOccurrenceKey), numbered densely from 0, so the tree is a
// function of the multiset and its digest is the multiset's.

// fullEdits is rowEdits for a REPLICA IDENTITY FULL table, kept as a
// multiset (rowenc.AppendOccurrenceKey): an insert adds the row's next
// occurrence, a delete removes its last one, an update is the delete of
// the old row and the insert of the new one (PostgreSQL sends the whole
// old row under FULL). Numbering occurrences densely from 0 makes the
// tree a function of the multiset (history independence), whichever of
// two identical rows PostgreSQL changed.
func fullEdits(t *table, kind wal.ChangeKind, oldKind wal.OldKind, newVals, oldVals []wal.Value,
	current func(key []byte) ([]byte, bool, error), put func(key string, e edit)) error {
	del := func(vals []wal.Value) error {
		if vals == nil || oldKind != wal.OldRow {
			return fmt.Errorf("REPLICA IDENTITY FULL %s without the old row", kind)
		}
		row, err := encodeRow(vals, nil)
		if err != nil {
			return fmt.Errorf("old row: %w", err)
		}
		n, err := occurrences(row, current)
		if err != nil {
			return err
		}
		if n == 0 {
			return &missingRowError{table: t.rec.Name, key: row, reason: fmt.Sprintf("%s of a row the mirror does not hold (vrow1 %q)", kind, row)}
		}
		put(string(rowenc.AppendOccurrenceKey(nil, row, n-1)), edit{del: true})
		return nil
	}
	ins := func(row []byte) error {
		n, err := occurrences(row, current)
		if err != nil {
			return err
		}
		if n == math.MaxUint32 {
			return fmt.Errorf("row %q occurs %d times: no occurrence number left", row, n)
		}
		put(string(rowenc.AppendOccurrenceKey(nil, row, n)), edit{val: row})
		return nil
	}
	switch kind {
	case wal.Insert:
		row, err := encodeRow(newVals, nil)
		if err != nil {
			return err
		}
		return ins(row)
	case wal.Update:
		var fill []wal.Value
		if oldKind == wal.OldRow {
			fill = oldVals
		}
		row, err := encodeRow(newVals, fill)
		if err != nil {
			return err
		}
		if err := del(oldVals); err != nil {
			return err
		}
		return ins(row)
	case wal.Delete:
		return del(oldVals)
	}
	return fmt.Errorf("unexpected change kind %s", kind)
}

// occurrences returns how many occurrences of the row whose vrow1 is row
// the tree holds as current sees it.
func occurrences(row []byte, current func(key []byte) ([]byte, bool, error)) (uint32, error) {
	return rowenc.CountOccurrences(row, func(key []byte) (bool, error) {
		_, found, err := current(key)
		return found, err
	})
}

// occurrenceNumberer numbers the rows of a FULL table's copy, which
// arrive sorted by their vrow1 (identical rows adjacent): the k-th
// identical row gets occurrence k-1, as k inserts would.
type occurrenceNumberer struct {
	prev  []byte
	n     uint32
	arena []byte
}

// number returns r keyed by its occurrence key. r.key is the row's vrow1
// (r.val); it must stay valid until the next call (runs keep their rows).
func (o *occurrenceNumberer) number(r kv) kv {
	if o.prev != nil && bytes.Equal(o.prev, r.key) {
		o.n++
	} else {
		o.n = 0
	}
	o.prev = r.key
	need := len(r.key) + rowenc.OccurrenceLen
	if cap(o.arena)-len(o.arena) < need {
		o.arena = make([]byte, 0, max(64<<10, need))
	}
	l := len(o.arena)
	o.arena = rowenc.AppendOccurrenceKey(o.arena, r.key, o.n)
	return kv{key: o.arena[l:len(o.arena):len(o.arena)], val: r.val}
}

// resyncSetKeyedTables marks for a resync every ready FULL table whose
// tree an earlier sidecar keyed by the bare vrow1 (a set: identical rows
// collapsed). Its rows cannot be renumbered in place, since the rows it
// collapsed are gone; a resync copies the table again as a multiset. The
// first entry tells the two layouts apart: a multiset key is its value
// plus the occurrence suffix. Called by load, before the writer runs.
func (m *Mirror) resyncSetKeyedTables(ctx context.Context) error {
	for name, t := range m.tables {
		if !t.full || t.rec.State != StateReady || t.rec.Root == m.eng.EmptyRoot() {
			continue
		}
		c, err := m.eng.Range(ctx, t.rec.Root, nil, nil)
		if err != nil {
			return fmt.Errorf("table %s: %w", name, err)
		}
		if !c.Next() {
			if err := c.Err(); err != nil {
				return fmt.Errorf("table %s: %w", name, err)
			}
			continue
		}
		k, v := c.Key(), c.Value()
		if len(k) == len(v)+rowenc.OccurrenceLen && bytes.HasPrefix(k, v) {
			continue
		}
		rec := t.rec
		rec.State, rec.ResyncFrom = StateResyncNeeded, m.head.EndLSN
		if err := m.update(func(txn *badger.Txn) error { return txn.Set(tableKey(name), rec.encode()) }); err != nil {
			return fmt.Errorf("mark %s resync_needed: %w", name, err)
		}
		t.rec = rec
		m.log.Warn("REPLICA IDENTITY FULL table was kept as a set by an earlier sidecar; it is copied again as a multiset", "table", name)
	}
	return nil
}
