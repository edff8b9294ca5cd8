package mirror

import (
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/wal"
)

// PolledRelation takes a followed table's columns as the daemon's catalog
// poll read them (cur: described the way the copy and a pgoutput
// Relation message describe a table). PostgreSQL announces a schema
// change in the stream only before the table's next row change, so after
// `ALTER TABLE … ADD/DROP/RENAME COLUMN` or `ALTER COLUMN … TYPE` on a
// quiet table the mirror would serve the old columns (a dropped column's
// values included) for as long as no row changes. A ready table whose
// relation differs from cur — columns, types, typmods, key flags or
// replica identity; cur's name is not compared, a rename is the dropped
// and re-created polls' — is marked for a resync as a differing Relation
// message would mark it, unless a transaction is being applied (the next
// poll looks again). It reports whether it marked the table.
func (m *Mirror) PolledRelation(ctx context.Context, table string, cur *wal.Relation) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return false, m.err
	}
	t := m.tables[table]
	if t == nil || t.rec.State != StateReady || t.rec.Rel == nil || t.rec.Rel.OID != cur.OID {
		return false, nil
	}
	same := *cur
	same.Schema, same.Name = t.rec.Rel.Schema, t.rec.Rel.Name
	if same.Equal(t.rec.Rel) {
		return false, nil
	}
	if m.txn != nil {
		// A transaction is being applied (it may carry the change's
		// Relation itself): the next poll looks again rather than the
		// monitor waiting for a transaction of any size.
		return false, nil
	}
	if err := m.markResync(t, fmt.Sprintf("the catalog poll found other columns than the mirror's (a schema change no row change has carried yet): %s", describeRelDiff(t.rec.Rel, &same))); err != nil {
		return false, err
	}
	return true, nil
}
