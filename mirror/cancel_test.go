package mirror

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestCanceledStreamDuringSpill stops the stream's context while a large
// (spilled) transaction is applied: a Change that spills leaves the
// mirror usable, a Commit finishes,
// and Close succeeds (a shutdown mid-stream used to fail the mirror with
// "spill … context canceled").
func TestCanceledStreamDuringSpill(t *testing.T) {
	h := newMHarness(t, Options{GroupMaxRows: 500, GroupMaxAge: time.Hour, SpillRows: 50})
	rel := testRel(100, "t")
	h.copyTable(rel, map[int64]modelRow{1: {sp("1"), sp("a"), nil}}, 1)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	insert := func(ctx context.Context, id int) error {
		return h.m.Change(ctx, &wal.Change{Kind: wal.Insert, Relation: rel,
			New: modelRow{sp(strconv.Itoa(id)), sp("x"), nil}.values()})
	}

	// A transaction whose spill meets a canceled context, then is
	// abandoned (the stream stops; PostgreSQL sends it again).
	info := h.begin()
	for id := 2; id < 50; id++ {
		if err := insert(h.t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	// The spill may or may not notice the canceled context; either way
	// the mirror must stay healthy.
	_ = insert(canceled, 50)
	if err := h.m.Err(); err != nil {
		t.Fatalf("a canceled spill failed the mirror: %v", err)
	}
	if err := h.m.Abort(h.t.Context(), info); err != nil {
		t.Fatal(err)
	}

	// A spilled transaction committed with a canceled context.
	info = h.begin()
	for id := 2; id < 130; id++ {
		if err := insert(h.t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.m.Commit(canceled, info); err != nil {
		t.Fatalf("commit with a canceled context: %v", err)
	}
	h.lsn = info.EndLSN
	if got := len(h.treeRows("public.t", info.EndLSN)); got != 129 {
		t.Fatalf("after the commit: %d rows, want 129", got)
	}
	h.reopen(false)
	if got := len(h.treeRows("public.t", h.m.Head().EndLSN)); got != 129 {
		t.Fatalf("after reopen: %d rows, want 129", got)
	}
}
