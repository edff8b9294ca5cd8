package mirror

import (
	"errors"
	"maps"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/dirstate"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadOnlyMirror: over a read-only store the mirror reads every
// version, including commits logged after the last group (replayed in
// memory), refuses writes with ErrReadOnly, is not "stopped" (Err nil),
// and Close writes nothing to the directory.
func TestReadOnlyMirror(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(1, "t")
	h.copyTable(rel, map[int64]modelRow{1: {sp("1"), sp("a"), nil}, 2: {sp("2"), sp("b"), nil}}, 1)
	info := h.begin()
	h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: modelRow{sp("3"), sp("c"), nil}.values()})
	h.commit(info)
	if err := h.m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := h.treeRows("public.t", info.EndLSN)
	// Leave the commit in the log only (no group flush at Close), then
	// close the store cleanly.
	h.m.abandon()
	h.m = nil
	if err := h.db.Close(); err != nil {
		t.Fatal(err)
	}
	h.db = nil
	before := dirstate.Of(t, h.dir)

	ctx := t.Context()
	db, err := store.Open(store.Options{Dir: h.dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(ctx, Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Head().EndLSN; got != info.EndLSN {
		t.Fatalf("read-only head %s, want %s", got, info.EndLSN)
	}
	if err := m.Err(); err != nil {
		t.Errorf("Err of an open read-only mirror: %v", err)
	}
	h.db, h.m = db, m
	if got := h.treeRows("public.t", info.EndLSN); !maps.Equal(got, want) {
		t.Errorf("rows at head read-only %v, want %v", got, want)
	}
	if v, ok, err := m.Get(ctx, "public.t", []string{"3"}, info.EndLSN); err != nil || !ok || len(v) == 0 {
		t.Errorf("get of the replayed commit's row: %q %v %v", v, ok, err)
	}
	if err := m.Begin(ctx, wal.TxnInfo{Xid: 9, CommitLSN: info.EndLSN + 100}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Begin on a read-only mirror: %v, want ErrReadOnly", err)
	}
	if err := m.SetResumeLSN(ctx, 5); err == nil {
		t.Error("SetResumeLSN on a read-only mirror succeeded")
	}
	h.m, h.db = nil, nil
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	dirstate.Unchanged(t, "a read-only open and close", h.dir, before)

	// An empty directory a writer once opened holds no meta: the reader
	// writes none.
	empty := t.TempDir()
	w, err := store.Open(store.Options{Dir: empty})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before = dirstate.Of(t, empty)
	db, err = store.Open(store.Options{Dir: empty, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err = Open(ctx, Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	if m.Durable() != 0 || len(m.Tables()) != 0 {
		t.Errorf("empty directory read-only: durable %s, %d tables", m.Durable(), len(m.Tables()))
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	dirstate.Unchanged(t, "a read-only open of an empty mirror", empty, before)
}
