package daemon

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// pollPartRoots reads, on the monitor's tick, every followed partitioned
// table's columns and leaf partitions (issue 21 item 4): the mirror
// records them (so the SQL port answers FROM root as the union of its
// leaves, as of the version read), and the follower starts following a
// partition created or attached since the start (its changes held until
// its copy lands, so none is lost) and stops counting a detached one.
// The partitioned tables between a root and its leaves are recorded too
// (FROM mid reads its leaves), and one detached or dropped since is
// recorded as no longer followed.
func (d *daemon) pollPartRoots(ctx context.Context, conn *pgx.Conn) error {
	if d.m == nil || d.f == nil {
		return nil // no follower: a status read of a stopped daemon's data directory
	}
	var names []wal.TableName
	for _, n := range d.names() {
		if tn, err := wal.ParseTableName(n); err == nil && !d.isDropped(n) {
			names = append(names, tn)
		}
	}
	roots, err := replication.ReadPartRoots(ctx, conn, names)
	if err != nil {
		return fmt.Errorf("poll partitioned tables: %w", err)
	}
	if err := d.recordGoneMidLevels(ctx, names, roots); err != nil { // partmids.go
		return fmt.Errorf("poll partitioned tables: %w", err)
	}
	if len(roots) == 0 {
		return nil
	}
	if _, err := d.m.UpdatePartRoots(ctx, roots); err != nil {
		return fmt.Errorf("poll partitioned tables: %w", err)
	}
	followed := map[string]bool{}
	for _, tn := range names {
		followed[tn.String()] = true
	}
	leaves := map[string][]string{}
	for _, r := range roots {
		if !followed[r.Name] {
			continue // a middle level (replication/partmid.go): its leaves are its root's
		}
		ls := []string{}
		for i, l := range r.Leaves {
			if r.LeafKinds[i] == 'r' {
				ls = append(ls, l)
			}
		}
		leaves[r.Name] = ls
	}
	return d.f.PartitionsChanged(ctx, leaves)
}
