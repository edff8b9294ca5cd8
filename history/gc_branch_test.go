package history

import (
	"context"
	"maps"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
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
