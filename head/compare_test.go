package head

import (
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestCompareInsideResyncWindow: while a table is resynced its changes
// are held, so the model keeps the table's rows from before the resync
// (what the mirror stores for it) until the copy lands and resets it.
// Compare checks the model against those stored rows there: readers of
// the table at those versions are refused (Mirror.Readable), but the
// model's content is still checkable.
//
// It failed before session 12: Compare read the mirror through TreeAt,
// which refuses a table inside a resync window, so comparing at the head
// during a resync failed with the window's refusal.
func TestCompareInsideResyncWindow(t *testing.T) {
	f := openFeed(t)
	a, b := relation(1, "a"), relation(2, "b")
	rowsA := map[int]int{}
	for i := range 50 {
		rowsA[i] = i
	}
	mod, sub := f.subscribeModel(t)
	f.copyTable(a, rowsA)
	f.copyTable(b, map[int]int{1: 1})
	f.commit([]wal.Change{{Kind: wal.Update, Relation: a, New: vals(1, 100, "x")}, {Kind: wal.Update, Relation: b, New: vals(1, 2, "y")}})
	rowsA[1] = 100
	f.waitDelivered(sub)
	if _, err := mod.Compare(t.Context(), f.m); err != nil {
		t.Fatal(err)
	}
	if err := f.m.MarkResync(t.Context(), "public.a", "test"); err != nil {
		t.Fatal(err)
	}
	// a's changes are held; b's are versions of their own.
	f.commit([]wal.Change{{Kind: wal.Update, Relation: a, New: vals(2, 200, "held")}, {Kind: wal.Update, Relation: b, New: vals(1, 3, "z")}})
	f.commit([]wal.Change{{Kind: wal.Delete, Relation: a, Old: vals(3, 0, ""), OldKind: wal.OldKey}})
	f.waitDelivered(sub)
	head := f.m.Head().EndLSN
	if err := f.m.Readable("public.a", head); !errors.Is(err, mirror.ErrResyncWindow) {
		t.Fatalf("a at the head %s inside its resync: %v, want the window's refusal", head, err)
	}
	n, err := mod.Compare(t.Context(), f.m)
	if err != nil {
		t.Fatalf("compare inside a's resync window: %v", err)
	}
	if n != len(rowsA)+1 {
		t.Fatalf("compared %d rows inside the window, the model holds %d", n, len(rowsA)+1)
	}
	// The copy lands (holding the held changes' effect) and resets a.
	rowsA[2] = 200
	delete(rowsA, 3)
	f.copyTable(a, rowsA)
	f.waitDelivered(sub)
	if err := f.m.Readable("public.a", f.m.Head().EndLSN); err != nil {
		t.Fatalf("a after its landing: %v", err)
	}
	if n, err := mod.Compare(t.Context(), f.m); err != nil || n != len(rowsA)+1 {
		t.Fatalf("compare after the landing: %d rows, %v; want %d", n, err, len(rowsA)+1)
	}
}
