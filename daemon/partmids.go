package daemon

import (
	"context"
	"slices"

	"github.com/sidecar-dev/sidecar/wal"
)

// goneMidLevel is the kind a middle-level partitioned table's leaves are
// recorded with once it is no longer under a followed root: not 'r', so
// the SQL port refuses FROM it (0A000 naming them) instead of answering
// with leaves that no longer receive changes.
const goneMidLevel = '-'

// recordGoneMidLevels records, for every partitioned table the mirror
// has a record of that is neither a followed name nor among roots (the
// middle levels under followed roots just read), that its leaves are no
// longer followed: it was detached from its root or dropped (issue 21,
// middle-level partitioned tables; replication/partmid.go).
func (d *daemon) recordGoneMidLevels(ctx context.Context, followed []wal.TableName, roots []*wal.PartRoot) error {
	names, err := d.m.PartRootNames()
	if err != nil {
		return err
	}
	live := map[string]bool{}
	for _, tn := range followed {
		live[tn.String()] = true
	}
	for _, r := range roots {
		live[r.Name] = true
	}
	var gone []*wal.PartRoot
	for _, n := range names {
		if live[n] {
			continue
		}
		old, err := d.m.PartRootAt(n, wal.LSN(^uint64(0)))
		if err != nil {
			return err
		}
		if old == nil || !slices.ContainsFunc(old.LeafKinds, func(k byte) bool { return k != goneMidLevel }) {
			continue // recorded as gone already
		}
		g := *old
		g.LeafKinds = slices.Repeat([]byte{goneMidLevel}, len(old.Leaves))
		gone = append(gone, &g)
	}
	if len(gone) == 0 {
		return nil
	}
	_, err = d.m.UpdatePartRoots(ctx, gone)
	return err
}
