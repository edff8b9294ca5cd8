package refs

import (
	"context"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestGCKeepsLeafRecreatedBySpillDuringSweep runs CollectGarbage's
// steps (the same calls, in the same order) with the writer active in
// two places: after RootWatch.Roots returned, a large transaction spills
// a chunk that re-creates a leaf of an expired version (the row went A
// -> B, now back to A); while the sweep iterates, the transaction
// commits (the spilled commit flushes the node store). The leaf was Put
// after asOf and written after the sweep's snapshot: BeginSweep's record
// keeps the sweep from deleting it (review finding: it was deleted, and
// HEAD was unreadable, when Sweep only recorded Puts from its own start).
func TestGCKeepsLeafRecreatedBySpillDuringSweep(t *testing.T) {
	ctx := context.Background()
	f := historytest.NewOpts(t, -1, func(o *mirror.Options) { o.SpillRows = 1 })
	m := f.Mirror
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	f.CreateTable(rel, [][]*string{{historytest.S("1"), historytest.S("0")}, {historytest.S("2"), historytest.S("x")}})
	set := func(v string) func(tx *historytest.Tx) {
		return func(tx *historytest.Tx) { tx.Upsert(rel, []*string{historytest.S("1"), historytest.S(v)}) }
	}
	f.Commit(set("A")) // spilled: group record with leaf {1:A, 2:x}
	vb := f.Commit(set("B"))
	if _, err := m.Expire(ctx, vb.EndLSN, nil); err != nil { // leaf {1:A,2:x} is garbage now
		t.Fatal(err)
	}

	ns := m.Engine().Store().(*store.NodeStore[*prolly.Node])
	db := f.DB
	watch, err := m.WatchRoots()
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Stop()
	if err := ns.BeginSweep(); err != nil {
		t.Fatal(err)
	}
	if err := ns.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	asOf := db.Version()
	roots, err := storedRoots(ctx, GCOptions{Mirror: m, Catalog: NewCatalog(db)})
	if err != nil {
		t.Fatal(err)
	}
	live := map[prolly.Hash]struct{}{}
	for _, r := range roots {
		if err := markTree(ctx, ns, r.Hash, live); err != nil {
			t.Fatal(err)
		}
	}
	extra, err := watch.Roots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range extra {
		if err := markTree(ctx, ns, r.Hash, live); err != nil {
			t.Fatal(err)
		}
	}
	// The writer, concurrently: a transaction setting 1 back to A spills
	// (its chunk Puts leaf {1:A, 2:x} again; buffered).
	f.LSN += 0x100
	info := wal.TxnInfo{Xid: 99, CommitLSN: f.LSN, EndLSN: f.LSN + 8, CommitTime: f.Time.Add(time.Second)}
	if err := m.Begin(ctx, info); err != nil {
		t.Fatal(err)
	}
	if err := m.Relation(ctx, rel); err != nil {
		t.Fatal(err)
	}
	if err := m.Change(ctx, &wal.Change{Kind: wal.Update, Relation: rel,
		New: historytest.Values([]*string{historytest.S("1"), historytest.S("A")})}); err != nil {
		t.Fatal(err)
	}
	committed := false
	ss, err := ns.Sweep(ctx, asOf, func(h prolly.Hash) bool {
		if !committed {
			committed = true // the writer commits while the sweep runs
			if err := m.Commit(ctx, info); err != nil {
				t.Fatal(err)
			}
		}
		_, ok := live[h]
		return ok
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sweep %+v", ss)
	if err := m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// The engine pins the last root read (and decoded children): read
	// from the store, not from memory.
	m.Engine().Unpin()
	tr, err := m.TreeAt(ctx, "public.t", m.Head().EndLSN)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Count(ctx); err != nil {
		t.Fatalf("HEAD unreadable after GC: %v", err)
	}
	v, ok, err := tr.Get(ctx, "1")
	if err != nil || !ok {
		t.Fatalf("HEAD get 1: %q %v %v", v, ok, err)
	}
}
