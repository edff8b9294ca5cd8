package mirror

import (
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestRecoveredGroupFlushedAtOpen (issue 21 item 11): the commits a crash
// left after the last group record are flushed into the trees right
// after Open, not GroupMaxAge later, so reads of HEAD after a restart do
// not replay them onto a large tree (seconds each at 10M rows under
// load). Reads of every version among them, made as that flush starts,
// give the rows they had before the crash, and the next Open replays
// nothing.
func TestRecoveredGroupFlushedAtOpen(t *testing.T) {
	h, ends := insertCommits(t, 5)
	if err := h.m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.reopen(true) // the reads below start while the replayed commits are flushed
	if _, err := h.m.RowsAt(t.Context(), "public.k", ends[len(ends)-1]); err != nil {
		t.Fatal(err)
	}
	for i, end := range ends {
		tr, err := h.m.TreeAt(t.Context(), "public.k", end)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := tr.Count(t.Context()); err != nil || n != uint64(i+1) {
			t.Fatalf("version %d after the crash: %d rows (%v), want %d", i, n, err, i+1)
		}
	}
	select {
	case <-h.m.Recovered():
	case <-time.After(time.Minute):
		t.Fatal("the replayed commits were not flushed within a minute")
	}
	h.m.mu.Lock()
	last, pending := h.m.lastGroup, h.m.group.commits
	h.m.mu.Unlock()
	if last != ends[len(ends)-1] || pending != 0 {
		t.Fatalf("after Open's recovery: last group %s, %d commits pending; want a group at the last commit %s and none pending", last, pending, ends[len(ends)-1])
	}
	h.m.pendings.mu.Lock()
	kept := len(h.m.pendings.m)
	h.m.pendings.mu.Unlock()
	if kept != 0 {
		t.Fatalf("after Open's recovery RowsAt still keeps the edits of %d tables", kept)
	}
	h.reopen(true)
	h.m.mu.Lock()
	pending = h.m.group.commits
	h.m.mu.Unlock()
	if pending != 0 {
		t.Fatalf("the next Open replayed %d commits, want 0", pending)
	}
	select {
	case <-h.m.Recovered():
	default:
		t.Fatal("Recovered not closed at once with nothing replayed")
	}
}

// insertCommits makes a harness with groups an hour long, copies an empty
// table public.k and commits n single-row inserts to it (ids 0..n-1),
// returning their end LSNs.
func insertCommits(t *testing.T, n int) (*mharness, []wal.LSN) {
	h := newMHarness(t, Options{GroupMaxAge: time.Hour})
	rel := testRel(5, "k")
	h.copyTable(rel, nil, 1)
	var ends []wal.LSN
	for i := range n {
		info := h.begin()
		h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: modelRow{sp(strconv.Itoa(i)), nil, nil}.values()})
		h.commit(info)
		ends = append(ends, info.EndLSN)
	}
	return h, ends
}
