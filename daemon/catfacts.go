package daemon

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// pollFacts reads the catalog facts of every followed table again (issue
// 21 items 4 and 12): inheritance and collations change without a row
// change (ALTER TABLE … INHERIT / NO INHERIT, CREATE TABLE … INHERITS or
// PARTITION OF a descendant, ALTER COLUMN … COLLATE), so the copy's facts
// are refreshed here, on the monitor's tick; the SQL port answers with
// the new ones from the next statement on.
func (d *daemon) pollFacts(ctx context.Context, conn *pgx.Conn) error {
	if d.m == nil {
		return nil
	}
	var rels []*wal.Relation
	for _, t := range d.m.Tables() {
		if t.Relation != nil && !d.isDropped(t.Name) {
			rels = append(rels, t.Relation)
		}
	}
	got, err := replication.ReadFacts(ctx, conn, rels)
	if err != nil {
		return fmt.Errorf("poll catalog facts: %w", err)
	}
	for _, r := range got {
		if _, err := d.m.UpdateFacts(ctx, r); err != nil {
			if errors.Is(err, mirror.ErrReadOnly) {
				// A status read of a stopped daemon's data directory:
				// nothing to record, and the slot's status still counts.
				return nil
			}
			return fmt.Errorf("poll catalog facts: %w", err)
		}
	}
	return nil
}

// pollColumns compares every ready followed table's columns in
// PostgreSQL with the mirror's relation (mirror.PolledRelation): a schema
// change reaches the stream only with the table's next row change, so a
// quiet table's ADD/DROP/RENAME COLUMN or ALTER COLUMN … TYPE is seen
// here, within one poll (~2 s), and resynced as a differing Relation
// message would be. Before, the SQL port served the old columns — a
// dropped column's values included — until a row of the table changed.
func (d *daemon) pollColumns(ctx context.Context, conn *pgx.Conn) error {
	if d.m == nil {
		return nil
	}
	var rels []*wal.Relation
	names := map[uint32]string{}
	for _, t := range d.m.Tables() {
		if t.Relation != nil && t.State == mirror.StateReady && !d.isDropped(t.Name) {
			rels = append(rels, t.Relation)
			names[t.Relation.OID] = t.Name
		}
	}
	cur, err := replication.ReadRelations(ctx, conn, rels)
	if err != nil {
		return fmt.Errorf("poll the followed tables' columns: %w", err)
	}
	for oid, rel := range cur {
		if _, err := d.m.PolledRelation(ctx, names[oid], rel); err != nil {
			if errors.Is(err, mirror.ErrReadOnly) {
				return nil
			}
			return fmt.Errorf("poll the followed tables' columns: %w", err)
		}
	}
	return nil
}
