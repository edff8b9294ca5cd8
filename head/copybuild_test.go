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
	randomRows := func(n int) map[int]int {
		rows := map[int]int{}
		for len(rows) < n {
			rows[rng.IntN(1_000_000)] = rng.IntN(1000)
		}
		return rows
	}
	// copied copies rows and checks the model holds them, built from the
	// copy's rows (the builds is the count of such tables after it).
	copied := func(rows map[int]int, builds int64) {
		t.Helper()
		f.copyTable(rel, rows)
		f.waitDelivered(sub)
		if got := model.CopyBuilds(); got != builds {
			t.Fatalf("tables built from the copy's rows: %d, want %d", got, builds)
		}
		if n := model.Len(rel.QualifiedName()); n != len(rows) {
			t.Fatalf("model holds %d rows, want %d", n, len(rows))
		}
		if _, err := model.Compare(t.Context(), f.m); err != nil {
			t.Fatalf("after copy %d: %v", builds, err)
		}
	}
	rows := randomRows(40_000)
	copied(rows, 1)
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
	copied(randomRows(20_000), 2)

	// A resync whose copy is older than changes held meanwhile: the tree
	// recorded is not the one built from the copy's rows, so the build is
	// declined and the reset reads the tree whole.
	if err := f.m.MarkResync(t.Context(), rel.QualifiedName(), "test"); err != nil {
		t.Fatal(err)
	}
	at := f.lsn + 10
	f.commit([]wal.Change{{Kind: wal.Insert, Relation: rel, New: vals(3_000_000, 1, "held")}})
	third := randomRows(10_000)
	w, err := f.m.CopyRange(t.Context(), rel, wal.BlockRange{Of: 1})
	if err != nil {
		t.Fatal(err)
	}
	for id, bal := range third {
		if err := w.WriteRow(vals(id, bal, "n"+strconv.Itoa(id))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.m.TableCopied(t.Context(), rel, at); err != nil {
		t.Fatal(err)
	}
	if err := f.m.StreamReached(t.Context(), at); err != nil {
		t.Fatal(err)
	}
	f.waitDelivered(sub)
	if got := model.CopyBuilds(); got != 2 {
		t.Fatalf("tables built from the copy's rows: %d, want still 2 (the held change makes the tree another)", got)
	}
	if n := model.Len(rel.QualifiedName()); n != len(third)+1 {
		t.Fatalf("model holds %d rows after the resync with a held change, want %d", n, len(third)+1)
	}
	if _, err := model.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("after the resync with a held change: %v", err)
	}
}
