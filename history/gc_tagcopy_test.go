package history

import (
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// TestTagOnInitialCopyKeptByRetention: a tag on the initial copy (before the
// first commit; Resolve accepts the copy LSN and CreateTag stores it) is
// kept by Expire like a tag on a commit (review finding: Expire skipped a
// keep LSN without a commit record, and the tag stopped resolving).
func TestTagOnInitialCopyKeptByRetention(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	rel, want := f.KVTable(20)
	copyLSN := f.LSN
	for i := range 40 {
		f.Commit(func(tx *historytest.Tx) {
			tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(i % 20)), historytest.S("v" + strconv.Itoa(i+1))})
		})
	}
	if _, err := svc.CreateTag(ctx, "baseline", copyLSN.String()); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, svc, "baseline"); !maps.Equal(got, want) {
		t.Fatalf("baseline before expiry: %v", got)
	}
	st, err := svc.GC(ctx, GCRequest{ExpireBefore: f.Time.Add(-5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gc: expired %+v, deleted %d nodes", st.Expired, st.Deleted)
	if st.Expired.Versions == 0 {
		t.Fatal("nothing expired")
	}
	if _, err := svc.Resolve(ctx, "baseline"); err != nil {
		t.Fatalf("tag on the initial copy lost by retention: %v", err)
	}
	if got := readAll(t, svc, "baseline"); !maps.Equal(got, want) {
		t.Fatalf("baseline after expiry: %v", got)
	}
}
