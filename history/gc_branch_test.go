package history

import (
	"context"
	"maps"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/prolly"
)

// TestBranchFromExpiredVersionStaysReadable: a branch is a stored tree
// that GC keeps; resolving it looks up the version it was made from
// (Resolver.resolveName), which may have expired: the branch still reads
// (review finding: it failed with ErrExpired).
func TestBranchFromExpiredVersionStaysReadable(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	rel, _ := f.KVTable(20)
	for i := range 10 {
		f.Commit(func(tx *historytest.Tx) {
			tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(i)), historytest.S("v" + strconv.Itoa(i+1))})
		})
	}
	if _, err := svc.CreateBranch(ctx, "b", "HEAD"); err != nil {
		t.Fatal(err)
	}
	want := readAll(t, svc, "b")
	for i := range 40 {
		f.Commit(func(tx *historytest.Tx) {
			tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(i % 20)), historytest.S("w" + strconv.Itoa(i))})
		})
	}
	st, err := svc.GC(ctx, GCRequest{ExpireBefore: f.Time.Add(-5e9)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gc: expired %+v, deleted %d nodes", st.Expired, st.Deleted)
	if st.Expired.Versions == 0 {
		t.Fatal("nothing expired")
	}
	got, err := scanRef(svc, "b")
	if err != nil {
		t.Fatalf("branch made from a version that later expired: %v", err)
	}
	if !maps.Equal(got, want) {
		t.Fatal("branch content changed")
	}
}

func scanRef(svc *Service, ref string) (map[string]string, error) {
	got := map[string]string{}
	err := svc.Scan(context.Background(), ReadRequest{Table: "public.t", AsOf: ref}, func(ReadHeader) error { return nil },
		func(r *Row) error { got[*r.Values[0]] = *r.Values[1]; return nil })
	return got, err
}

// TestGCKeepsBranchDeletedDuringItsReaderWait: a branch created and
// deleted while a GC waits for earlier reads may have been resolved by a
// read that the GC does not wait for; that GC must keep its trees (review
// note of the last session: the read hit a missing node).
func TestGCKeepsBranchDeletedDuringItsReaderWait(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	rel, _ := f.KVTable(200)
	var lsns []string
	for i := range 6 {
		lsns = append(lsns, f.Commit(func(tx *historytest.Tx) {
			for k := range 200 {
				if k%(i+2) == 0 {
					tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(k)), historytest.S("r" + strconv.Itoa(i) + "-" + strconv.Itoa(k))})
				}
			}
		}).EndLSN.String())
	}
	var roots []prolly.Root
	var want int
	hook := func() {
		// A merge branch: trees no version has.
		if _, err := svc.Merge(ctx, MergeRequest{Ours: "HEAD", Theirs: lsns[1], Base: lsns[3], Branch: "b"}, func(*Event) error { return nil }); err != nil {
			t.Error(err)
			return
		}
		b, found, err := svc.refs.Catalog.Branch("b")
		if err != nil || !found {
			t.Errorf("branch b: %v %v", found, err)
			return
		}
		for _, r := range b.Roots {
			roots = append(roots, r.Root)
		}
		if want, err = historytest.Whole(ctx, f.DB, roots); err != nil {
			t.Error(err)
		}
		// The read that resolved it goes on; the branch is deleted.
		if err := svc.DeleteBranch(ctx, "b"); err != nil {
			t.Error(err)
		}
	}
	st, err := svc.GC(ctx, GCRequest{afterExpire: hook})
	if err != nil || t.Failed() {
		t.Fatal(err)
	}
	got, err := historytest.Whole(ctx, f.DB, roots)
	if err != nil || got != want {
		t.Fatalf("the deleted branch's trees after the GC that began before: %d of %d nodes, %v", got, want, err)
	}
	// The next GC collects them.
	st2, err := svc.GC(ctx, GCRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st2.Deleted == 0 {
		t.Fatalf("the next GC deleted nothing (first deleted %d)", st.Deleted)
	}
	if _, err := historytest.Whole(ctx, f.DB, roots); err == nil {
		t.Fatal("the deleted branch's trees are still whole after the next GC")
	}
}
