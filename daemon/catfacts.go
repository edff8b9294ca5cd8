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
