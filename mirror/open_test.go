package mirror

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestOpenRefusesOtherIdentity: a data directory written under another
// row hash or record format is refused with an error that says so, and
// nothing is written to it.
func TestOpenRefusesOtherIdentity(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	db, err := store.Open(store.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := Open(ctx, Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{DB: db, RowHash: rowhash.MD5_64}); err == nil || !strings.Contains(err.Error(), `row hash "pghash64"`) {
		t.Fatalf("open under md5-64 over pghash64 trees: %v", err)
	}
	meta := metaRecord{Format: FormatVersion + 1, RowHash: "pghash64"}
	if err := db.Badger().Update(func(txn *badger.Txn) error { return txn.Set(keyMeta, meta.encode()) }); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{DB: db}); err == nil || !strings.Contains(err.Error(), "format 2") {
		t.Fatalf("open of a format-2 directory: %v", err)
	}
	if err := db.Badger().Update(func(txn *badger.Txn) error { return txn.Set(keyMeta, []byte{1, 2}) }); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{DB: db}); !errors.Is(err, errCorrupt) {
		t.Fatalf("open with corrupt meta: %v", err)
	}
}

// TestHalfCopiedTableNotReady: ranges written but TableCopied never
// called (the process died mid-copy): after a restart the table does not
// exist, so the daemon copies it again; its changes are ignored.
func TestHalfCopiedTableNotReady(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(7, "half")
	w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Of: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := w.WriteRow(modelRow{sp(strconv.Itoa(i)), nil, nil}.values()); err != nil {
			t.Fatal(err)
		}
	}
	h.reopen(true)
	if ts := h.m.Tables(); len(ts) != 0 {
		t.Fatalf("tables after a crash mid-copy: %+v", ts)
	}
	info := h.begin()
	h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: modelRow{sp("1"), nil, nil}.values()})
	h.commit(info)
	if _, err := h.m.TreeAt(t.Context(), "public.half", info.EndLSN); !errors.Is(err, ErrUnknownTable) {
		t.Fatalf("tree of a table never copied: %v", err)
	}
}

// TestRelationChangeHoldsChanges: a changed Relation (a column added)
// marks the table resync_needed and durably so; its changes are held, not
// applied, and a copy at an LSN applies exactly the held changes of
// commits at or after it, under the new schema.
func TestRelationChangeHoldsChanges(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(9, "r")
	h.copyTable(rel, map[int64]modelRow{1: {sp("1"), sp("a"), nil}}, 1)
	if err := h.m.Relation(t.Context(), rel); err != nil {
		t.Fatal(err)
	}
	if got := h.m.NeedsResync(); len(got) != 0 {
		t.Fatalf("unchanged relation: NeedsResync %v", got)
	}
	rel2 := testRel(9, "r")
	rel2.Columns = append(rel2.Columns, wal.Column{Name: "d", TypeOID: 23, TypeMod: -1})
	if err := h.m.Relation(t.Context(), rel2); err != nil {
		t.Fatal(err)
	}
	row := func(id, a, d string) []wal.Value {
		return []wal.Value{{Kind: wal.Text, Bytes: []byte(id)}, {Kind: wal.Text, Bytes: []byte(a)}, {Kind: wal.Null}, {Kind: wal.Text, Bytes: []byte(d)}}
	}
	var commits []wal.TxnInfo
	for i, id := range []string{"2", "3", "4"} {
		info := h.begin()
		h.change(&wal.Change{Kind: wal.Insert, Relation: rel2, New: row(id, "held", "7")})
		if i == 2 {
			// An unchanged value: filled from the copied row at resync.
			vals := row("2", "upd", "8")
			vals[1] = wal.Value{Kind: wal.Unchanged}
			h.change(&wal.Change{Kind: wal.Update, Relation: rel2, New: vals})
		}
		h.commit(info)
		commits = append(commits, info)
	}
	// Its versions after the resync began have no state of it: refused.
	if _, err := h.m.TreeAt(t.Context(), "public.r", ^wal.LSN(0)); !errors.Is(err, ErrResyncWindow) {
		t.Fatalf("resync_needed table read at HEAD: %v, want a resync window refusal", err)
	}
	for _, ti := range h.m.Tables() {
		if ti.Name == "public.r" && ti.Rows != 1 {
			t.Fatalf("changes of a resync_needed table were applied: %d rows", ti.Rows)
		}
	}
	h.reopen(false)
	if got := h.m.NeedsResync(); len(got) != 1 || got[0] != "public.r" {
		t.Fatalf("NeedsResync after reopen: %v", got)
	}
	// The copy saw commits before commits[1]: rows 1 and 2.
	w, err := h.m.CopyRange(t.Context(), rel2, wal.BlockRange{Of: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][]wal.Value{row("1", "a", "0"), row("2", "held", "7")} {
		if err := w.WriteRow(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.m.TableCopied(t.Context(), rel2, commits[1].CommitLSN); err != nil {
		t.Fatal(err)
	}
	tr, err := h.m.TreeAt(t.Context(), "public.r", ^wal.LSN(0))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"1": "1:11:a-1:0", "2": "1:24:held-1:8", "3": "1:34:held-1:7", "4": "1:44:held-1:7"}
	for id, v := range want {
		got, ok, err := tr.Get(t.Context(), id)
		if err != nil || !ok || string(got) != v {
			t.Fatalf("row %s: %q %v %v, want %q", id, got, ok, err, v)
		}
	}
	if n, _ := tr.Count(t.Context()); n != 4 {
		t.Fatalf("%d rows, want 4", n)
	}
	if got := h.m.NeedsResync(); len(got) != 0 {
		t.Fatalf("NeedsResync after the copy: %v", got)
	}
	// A ready table must be marked before it is copied again.
	if err := h.m.TableCopied(t.Context(), rel2, h.lsn); err == nil {
		t.Fatal("re-copy of a ready table without MarkResync accepted")
	}
	if err := h.m.MarkResync(t.Context(), "public.r", "test"); err != nil {
		t.Fatal(err)
	}
	if err := h.m.TableCopied(t.Context(), rel2, h.lsn); err != nil {
		t.Fatal(err)
	}
	if err := h.m.StreamReached(t.Context(), h.lsn); err != nil {
		t.Fatal(err)
	}
	if got := h.treeRows("public.r", ^wal.LSN(0)); len(got) != 0 {
		t.Fatalf("empty re-copy: %d rows", len(got))
	}
}

// TestDurableWaitsForSync: Durable never passes a commit before the
// writer synced it, and reaches every commit soon after.
func TestDurableWaitsForSync(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(3, "d")
	h.copyTable(rel, nil, 1)
	start := h.m.Durable()
	var last wal.TxnInfo
	for i := range 200 {
		last = h.begin()
		h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: modelRow{sp(strconv.Itoa(i)), nil, nil}.values()})
		h.commit(last)
		if d := h.m.Durable(); d > last.EndLSN || (d != start && h.m.written.Load() < uint64(d)) {
			t.Fatalf("durable %s ahead of written %s / committed %s", d, wal.LSN(h.m.written.Load()), last.EndLSN)
		}
	}
	// A long limit: durability follows by itself; only its never coming
	// fails (a loaded CI machine can delay the flusher by seconds).
	deadline := time.Now().Add(60 * time.Second)
	for h.m.Durable() != last.EndLSN {
		if time.Now().After(deadline) {
			t.Fatalf("durable %s, last commit %s", h.m.Durable(), last.EndLSN)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestChangeBelowCopyDropped: a transaction whose commit LSN is below a
// table's copy LSN is already in the copy; a change of it that slipped
// past the stream's filter (delivered just as the copy landed) is not
// applied again, and the transaction, having changed nothing the copy
// lacks, is no version (Mirror.commitEmpty).
func TestChangeBelowCopyDropped(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(4, "c")
	h.lsn = 5000
	h.copyTable(rel, map[int64]modelRow{1: {sp("1"), sp("new"), nil}}, 1)
	copied := h.lsn
	info := wal.TxnInfo{Xid: 9, CommitLSN: copied - 50, EndLSN: copied + 100, CommitTime: time.Unix(1, 0)}
	if err := h.m.Begin(t.Context(), info); err != nil {
		t.Fatal(err)
	}
	h.change(&wal.Change{Kind: wal.Update, Relation: rel, New: modelRow{sp("1"), sp("old"), nil}.values()})
	h.commit(info)
	tr, err := h.m.TreeAt(t.Context(), "public.c", info.EndLSN)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := tr.Get(t.Context(), "1"); err != nil || !ok || string(got) != "1:13:new-" {
		t.Fatalf("row 1 = %q %v %v, want the copy's value", got, ok, err)
	}
	if tr.Version.EndLSN >= info.EndLSN {
		t.Fatalf("version %s: the commit %s changed nothing the copy lacks and is no version", tr.Version.EndLSN, info.EndLSN)
	}
}

// TestTreeCacheExtends: reading successive versions of one group extends
// the previously materialised tree (same overlay) instead of replaying
// the group's log from its base; an older version starts afresh.
func TestTreeCacheExtends(t *testing.T) {
	h, ends := insertCommits(t, 3)
	t1, err := h.m.TreeAt(t.Context(), "public.k", ends[1])
	if err != nil {
		t.Fatal(err)
	}
	t2, err := h.m.TreeAt(t.Context(), "public.k", ends[2])
	if err != nil {
		t.Fatal(err)
	}
	if t1.Engine() != t2.Engine() {
		t.Fatal("the later version did not extend the cached tree")
	}
	t0, err := h.m.TreeAt(t.Context(), "public.k", ends[0])
	if err != nil {
		t.Fatal(err)
	}
	if t0.Engine() == t2.Engine() {
		t.Fatal("an older version reused a newer cached tree")
	}
	for i, tr := range []*Tree{t0, t1, t2} {
		if n, err := tr.Count(t.Context()); err != nil || n != uint64(i+1) {
			t.Fatalf("version %d: %d rows (%v), want %d", i, n, err, i+1)
		}
	}
}

// TestRedeliveredCommitIgnored: a transaction delivered again after it
// became a version (a streamer restarting below the head) changes
// nothing: applying its old row states again would undo later commits.
func TestRedeliveredCommitIgnored(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(6, "r")
	h.copyTable(rel, nil, 1)
	first := h.begin()
	h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: modelRow{sp("1"), sp("first"), nil}.values()})
	h.commit(first)
	second := h.begin()
	h.change(&wal.Change{Kind: wal.Update, Relation: rel, New: modelRow{sp("1"), sp("second"), nil}.values()})
	h.commit(second)
	if err := h.m.Begin(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: modelRow{sp("1"), sp("first"), nil}.values()})
	if err := h.m.Commit(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	vs, err := h.m.Versions(0, ^wal.LSN(0), 0)
	if err != nil || len(vs) != 2 {
		t.Fatalf("versions %+v (%v), want 2", vs, err)
	}
	if got, ok, err := h.m.Get(t.Context(), "public.r", []string{"1"}, ^wal.LSN(0)); err != nil || !ok || string(got) != "1:16:second-" {
		t.Fatalf("row 1 = %q %v %v, want the second commit's", got, ok, err)
	}
}

// TestTablesListsCopies: a table whose first copy runs is listed by
// Copying with the rows of its closed ranges, then by Tables as ready.
func TestTablesListsCopies(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(8, "cp")
	w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Of: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := w.WriteRow(modelRow{sp(strconv.Itoa(i)), nil, nil}.values()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if ts := h.m.Copying(); len(ts) != 1 || ts[0].State != StateCopying || ts[0].Rows != 10 || len(h.m.Tables()) != 0 {
		t.Fatalf("during the copy: %+v, tables %+v", ts, h.m.Tables())
	}
	if err := h.m.TableCopied(t.Context(), rel, 77); err != nil {
		t.Fatal(err)
	}
	if ts := h.m.Tables(); len(ts) != 1 || ts[0].State != StateReady || ts[0].Rows != 10 || ts[0].CopiedAt != 77 || len(h.m.Copying()) != 0 {
		t.Fatalf("after the copy: %+v", ts)
	}
}

// TestWriteOpsSplit: a queue batch larger than one Badger transaction is
// written in several, never splitting an op, and an op deleting more keys
// than one transaction holds deletes them in chunks.
func TestWriteOpsSplit(t *testing.T) {
	h := newMHarness(t, Options{})
	var ops []*writeOp
	for i := range 40 {
		op := &writeOp{}
		for j := range 2000 {
			op.set(heldKey("public.x", wal.LSN(i), uint32(j)), make([]byte, 100))
		}
		ops = append(ops, op)
	}
	if err := h.m.writeOps(ops); err != nil {
		t.Fatal(err)
	}
	keys, err := h.m.keysUnder(heldPrefix("public.x"))
	if err != nil || len(keys) != 80_000 {
		t.Fatalf("%d keys written (%v), want 80000", len(keys), err)
	}
	del := &writeOp{delPrefixes: [][]byte{heldPrefix("public.x")}}
	del.set(heldKey("public.y", 1, 0), []byte("kept"))
	if err := h.m.writeOps([]*writeOp{del}); err != nil {
		t.Fatal(err)
	}
	if keys, err := h.m.keysUnder(heldPrefix("public.x")); err != nil || len(keys) != 0 {
		t.Fatalf("%d keys left (%v)", len(keys), err)
	}
	if keys, err := h.m.keysUnder(heldPrefix("public.y")); err != nil || len(keys) != 1 {
		t.Fatalf("%d keys of the op's own sets (%v), want 1", len(keys), err)
	}
}
