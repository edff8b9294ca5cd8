package head

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// A statement resolves HEAD to a version, then plans, then opens its
// tables; under a steady update load the model has often applied the
// next commit meanwhile. A scan at the version it has just moved past is
// served from the state it keeps (exactly that version's rows), not sent
// to the tree (restart-2026-12-05.md: count(*) of 3M rows on the tree,
// minutes, with the in-memory HEAD ready). Versions older than what is
// kept, and versions ahead of the model, are still refused.
func TestSnapshotAtJustPastVersion(t *testing.T) {
	f := openFeed(t)
	a := relation(1, "a")
	mod, sub := f.subscribeModel(t)
	rows := map[int]int{}
	for i := range 200 {
		rows[i] = 1
	}
	f.copyTable(a, rows)
	// Commit k (k = 1..n) deletes row k: the table has 200-k rows at it.
	var at []wal.LSN
	const n = 3 * pastMax
	for k := 1; k <= n; k++ {
		f.commit([]wal.Change{{Kind: wal.Delete, Relation: a, Old: vals(k, 0, ""), OldKind: wal.OldKey}})
		f.waitDelivered(sub)
		at = append(at, f.m.Head().EndLSN)
	}
	for k := 1; k <= n; k++ {
		snap, _, err := mod.SnapshotAt("public.a", at[k-1])
		kept := k >= n-pastMax // the current state, and the pastMax before it
		if !kept {
			if err == nil {
				snap.Release()
				t.Errorf("commit %d of %d: served a state older than the %d kept", k, n, pastMax)
			}
			continue
		}
		if err != nil {
			t.Errorf("commit %d of %d (kept): %v", k, n, err)
			continue
		}
		if got := snap.Rows(); got != int64(200-k) {
			t.Errorf("commit %d: %d rows, want %d", k, got, 200-k)
		}
		snap.Release()
	}
	if _, _, err := mod.SnapshotAt("public.a", at[n-1]+1000); err == nil {
		t.Errorf("a version ahead of the model was served")
	}
}
