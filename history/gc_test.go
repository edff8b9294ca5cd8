package history

import (
	"context"
	"maps"
	"strconv"
	"sync"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// TestGCWithConcurrentWriter collects garbage (a deleted branch's nodes)
// while a writer keeps committing, then checks that every version ever
// committed, and the branch that was kept, still read back exactly as
// the model recorded them, and that the deleted branch's own nodes are
// gone.
func TestGCWithConcurrentWriter(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	cur := map[string]string{}
	var init [][]*string
	for id := range 200 {
		k := strconv.Itoa(id)
		cur[k] = "v0"
		init = append(init, []*string{historytest.S(k), historytest.S("v0")})
	}
	f.CreateTable(rel, init)
	states := map[string]map[string]string{}
	commit := func(i int) {
		id := strconv.Itoa((i * 37) % 200)
		val := "v" + strconv.Itoa(i)
		v := f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{historytest.S(id), historytest.S(val)}) })
		cur[id] = val
		states[v.EndLSN.String()] = maps.Clone(cur)
	}
	for i := range 30 {
		commit(i + 1)
	}
	// Garbage: a merge result kept as a branch whose rows exist nowhere
	// else, then deleted. A kept branch must survive.
	first := ""
	for l := range states {
		if first == "" || l < first {
			first = l
		}
	}
	if _, err := svc.Merge(ctx, MergeRequest{Ours: "HEAD", Theirs: first, Base: "HEAD~5", Branch: "keep"}, func(*Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	keep := readAll(t, svc, "keep")
	if _, err := svc.Merge(ctx, MergeRequest{Ours: "HEAD~3", Theirs: first, Base: "HEAD~20", Branch: "drop"}, func(*Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteBranch(ctx, "drop"); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	wg.Add(1)
	var stats struct {
		deleted int64
		err     error
	}
	go func() {
		defer wg.Done()
		st, err := svc.GC(context.Background(), GCRequest{Dir: f.Dir})
		stats.deleted, stats.err = st.Deleted, err
		t.Logf("gc: %d roots, %d live nodes, scanned %d, deleted %d; data dir %d → %d bytes", st.Roots, st.Live, st.Scanned, st.Deleted, st.BytesBefore, st.BytesAfter)
	}()
	for i := range 40 { // the writer keeps going during GC
		commit(100 + i)
	}
	wg.Wait()
	if stats.err != nil {
		t.Fatal(stats.err)
	}
	if stats.deleted == 0 {
		t.Error("GC deleted nothing; the dropped branch's nodes should be garbage")
	}
	for i := range 10 {
		commit(200 + i)
	}
	for lsn, want := range states {
		if got := readAll(t, svc, lsn); !maps.Equal(got, want) {
			t.Fatalf("version %s after GC differs from the model (%d rows, want %d)", lsn, len(got), len(want))
		}
	}
	if got := readAll(t, svc, "keep"); !maps.Equal(got, keep) {
		t.Fatal("branch keep changed after GC")
	}
	// A second collection finds nothing more to delete.
	st, err := svc.GC(ctx, GCRequest{})
	if err != nil || st.Deleted != 0 {
		t.Fatalf("second GC: deleted %d, %v", st.Deleted, err)
	}
}

func readAll(t *testing.T, svc *Service, ref string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := svc.Scan(t.Context(), ReadRequest{Table: "public.t", AsOf: ref}, func(ReadHeader) error { return nil }, func(r *Row) error {
		out[*r.Values[0]] = *r.Values[1]
		return nil
	})
	if err != nil {
		t.Fatalf("scan %s: %v", ref, err)
	}
	return out
}
