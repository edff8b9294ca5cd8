package head

import (
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadAheadOfModelDoesNotWaitForApply (issue 21 item 11): a read at
// a version the model has not applied yet goes to the tree at once, even
// while a batch holds the table's index lock. After a restart the
// catch-up since the checkpoint is one long batch, and every read at
// HEAD waited for it under the lock only to learn it must read the tree
// (the first point get 5 s after a restart at 1M rows). It failed so
// before the check outside the lock (Model.behind).
func TestReadAheadOfModelDoesNotWaitForApply(t *testing.T) {
	f := openFeed(t)
	a := relation(1, "a")
	mod, sub := f.subscribeModel(t)
	f.copyTable(a, map[int]int{1: 1, 2: 2})
	f.commit([]wal.Change{{Kind: wal.Delete, Relation: a, Old: vals(2, 0, ""), OldKind: wal.OldKey}})
	f.waitDelivered(sub)
	at := mod.Current()
	ahead := at + 1000
	tb := mod.Table("public.a")
	if tb == nil {
		t.Fatal("no table public.a in the model")
	}
	// A batch being applied: the index's write lock held.
	locked, release := make(chan struct{}), make(chan struct{})
	go tb.ix.Update(uint64(at), func(*radixindex.Tree) { close(locked); <-release })
	<-locked
	done := make(chan error, 4)
	go func() {
		_, _, err := mod.Get("public.a", []byte("k"), ahead, nil)
		done <- err
		done <- mod.Range("public.a", nil, nil, 0, ahead, func(_, _ []byte) bool { return true })
		_, _, err = mod.SnapshotAt("public.a", ahead)
		done <- err
		_, _, _, _, err = mod.SnapshotRange("public.a", ahead, nil, nil, 10)
		done <- err
	}()
	for i := range 4 {
		select {
		case err := <-done:
			if err != ErrNotAtVersion {
				t.Errorf("read %d ahead of the model: %v, want ErrNotAtVersion", i, err)
			}
		case <-time.After(30 * time.Second):
			close(release)
			t.Fatalf("read %d ahead of the model waited for the batch being applied", i)
		}
	}
	close(release)
	// At the model's version it is served once the batch is done.
	if _, _, err := mod.SnapshotAt("public.a", at); err != nil {
		t.Errorf("at the model's version: %v", err)
	}
}
