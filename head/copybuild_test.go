package head

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestCopyBuiltInOnePass (issue 24 item 5): a table copied while the
// model is subscribed is built from the copy's sorted rows as the tree is
// built, and installed at its reset without reading the tree back
// (CopyBuilds); it equals the tree row for row, pages past a small
// heap.memory included, and follows the commits after it. A second copy
// of the table (a resync) replaces it the same way.
func TestCopyBuiltInOnePass(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	f := openFeed(t)
	model := New(Options{Heap: heap.Config{Memory: 256 << 10}})
	sub, err := f.m.Subscribe(model, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	rel := relation(16801, "onepass")
	rows := map[int]int{}
	for len(rows) < 40_000 {
		rows[rng.IntN(1_000_000)] = rng.IntN(1000)
	}
	f.copyTable(rel, rows)
	f.waitDelivered(sub)
	if got := model.CopyBuilds(); got != 1 {
		t.Fatalf("tables built from the copy's rows: %d, want 1", got)
	}
	if n := model.Len(rel.QualifiedName()); n != len(rows) {
		t.Fatalf("model holds %d rows, want %d", n, len(rows))
	}
	if _, err := model.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("after the copy: %v", err)
	}
	var changes []wal.Change
	for id := range rows {
		if len(changes) == 300 {
			break
		}
		changes = append(changes, wal.Change{Kind: wal.Update, Relation: rel, New: vals(id, 5, "upd"+strconv.Itoa(id))})
	}
	changes = append(changes, wal.Change{Kind: wal.Insert, Relation: rel, New: vals(2_000_000, 1, "new")})
	f.commit(changes)
	f.waitDelivered(sub)
	if _, err := model.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("after a commit: %v", err)
	}

	// A resync: the table copied again, with other rows.
	if err := f.m.MarkResync(t.Context(), rel.QualifiedName(), "test"); err != nil {
		t.Fatal(err)
	}
	again := map[int]int{}
	for len(again) < 20_000 {
		again[rng.IntN(1_000_000)] = rng.IntN(1000)
	}
	f.copyTable(rel, again)
	f.waitDelivered(sub)
	if got := model.CopyBuilds(); got != 2 {
		t.Fatalf("tables built from the copy's rows: %d, want 2", got)
	}
	if n := model.Len(rel.QualifiedName()); n != len(again) {
		t.Fatalf("model holds %d rows after the resync, want %d", n, len(again))
	}
	if _, err := model.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("after the resync: %v", err)
	}
}
