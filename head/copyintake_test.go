package head

import (
	"strconv"
	"sync"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// copyRanges copies a table through ranges written concurrently: range r
// gets rowsOf(r) (id → balance); then TableCopied and the stream there.
func (f *feed) copyRanges(rel *wal.Relation, ranges int, rowsOf func(r int) [][2]int) {
	f.t.Helper()
	ctx := f.t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, ranges)
	for r := range ranges {
		wg.Go(func() {
			w, err := f.m.CopyRange(ctx, rel, wal.BlockRange{Index: r, Of: ranges})
			if err != nil {
				errs <- err
				return
			}
			for _, row := range rowsOf(r) {
				if err := w.WriteRow(vals(row[0], row[1], "n"+strconv.Itoa(row[0]))); err != nil {
					errs <- err
					return
				}
			}
			errs <- w.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			f.t.Fatal(err)
		}
	}
	f.copied(rel)
}

// TestCopyIntakeBuildsHead (issue 24 item 5): the model builds a copied
// table from its ranges' rows as they arrive (mirror.CopyIntakeBuilder:
// row ids in arrival order, the runs of four ranges interleaved, many
// cuts, a small heap.memory so pages go cold), and the table it installs
// equals the tree row for row and follows the commits after it. Rows
// delivered twice by two ranges (the merge keeps one) make the intake
// build decline: the reset reads the tree whole, and the model holds
// each row once (before the duplicate check it held the row twice).
func TestCopyIntakeBuildsHead(t *testing.T) {
	const ranges, perRange = 4, 25_000
	f := openFeed(t)
	model := New(Options{Heap: heap.Config{Memory: 256 << 10}})
	sub, err := f.m.Subscribe(model, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	rel := relation(16811, "intake")
	f.copyRanges(rel, ranges, func(r int) [][2]int {
		rows := make([][2]int, perRange)
		for i := range rows {
			id := i*ranges + r
			rows[i] = [2]int{id, id % 977}
		}
		return rows
	})
	f.waitDelivered(sub)
	if got := model.CopyBuilds(); got != 1 {
		t.Fatalf("tables built from the copy's rows: %d, want 1", got)
	}
	if n := model.Len(rel.QualifiedName()); n != ranges*perRange {
		t.Fatalf("model holds %d rows, want %d", n, ranges*perRange)
	}
	if _, err := model.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("after the copy: %v", err)
	}
	var changes []wal.Change
	for id := 0; id < 2000; id += 7 {
		changes = append(changes, wal.Change{Kind: wal.Update, Relation: rel, New: vals(id, 5, "upd"+strconv.Itoa(id))})
	}
	changes = append(changes, wal.Change{Kind: wal.Delete, Relation: rel, Old: vals(1, 0, "")})
	f.commit(changes)
	f.waitDelivered(sub)
	if _, err := model.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("after a commit: %v", err)
	}

	// Ranges 0 and 1 both deliver ids 0..999 with the same values.
	dupRel := relation(16812, "intakedup")
	f.copyRanges(dupRel, 2, func(r int) [][2]int {
		rows := make([][2]int, 0, 5000)
		for i := range 1000 {
			rows = append(rows, [2]int{i, i})
		}
		for i := range 4000 {
			rows = append(rows, [2]int{1000 + r*4000 + i, i})
		}
		return rows
	})
	f.waitDelivered(sub)
	if got := model.CopyBuilds(); got != 1 {
		t.Fatalf("tables built from the copy's rows: %d, want still 1 (the duplicates decline the build)", got)
	}
	if n := model.Len(dupRel.QualifiedName()); n != 9000 {
		t.Fatalf("model holds %d rows of the copy with duplicates, want 9000", n)
	}
	if _, err := model.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("after the copy with duplicates: %v", err)
	}
}
