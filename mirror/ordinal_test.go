package mirror_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/store"
)

// TestNthBeforeMatchesTheLog checks HEAD~N through the commit index
// against the list of versions, before and after an Expire (it stops at
// the horizon), after a reopen, and with commits spilled to their own
// group; from a commit other than the head too.
func TestNthBeforeMatchesTheLog(t *testing.T) {
	f := historytest.NewOpts(t, 8<<20, func(o *mirror.Options) { o.SpillRows = 30 })
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"v", "text"})
	f.CreateTable(rel, nil)
	var vs []mirror.Version
	for i := range 150 {
		n := 1
		if i%40 == 0 {
			n = 70 // spills
		}
		vs = append(vs, f.Commit(func(tx *historytest.Tx) {
			for j := range n {
				tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(i*100 + j)), historytest.S("v")})
			}
		}))
	}
	check := func(when string, m *mirror.Mirror, oldest int) {
		t.Helper()
		for _, fromIdx := range []int{len(vs) - 1, len(vs) - 7, oldest + 3} {
			for _, n := range []int{0, 1, 2, 5, 39, 40, 100, 149, 150, 1000} {
				lsn, back, err := m.NthBefore(vs[fromIdx].EndLSN, n)
				if err != nil {
					t.Fatalf("%s: NthBefore(%d from #%d): %v", when, n, fromIdx, err)
				}
				want := max(fromIdx-n, oldest)
				if lsn != vs[want].EndLSN || back != fromIdx-want {
					t.Fatalf("%s: NthBefore(%d from #%d) = %s, %d back; want #%d %s, %d back",
						when, n, fromIdx, lsn, back, want, vs[want].EndLSN, fromIdx-want)
				}
			}
		}
	}
	check("fresh", f.Mirror, 0)

	st, err := f.Mirror.Expire(t.Context(), vs[60].EndLSN, nil)
	if err != nil {
		t.Fatal(err)
	}
	oldest := -1
	for i, v := range vs {
		if v.EndLSN >= st.Horizon {
			oldest = i
			break
		}
	}
	if oldest <= 0 {
		t.Fatalf("expire moved the horizon to %s: nothing expired", st.Horizon)
	}
	check("after expire", f.Mirror, oldest)

	f.Reopen()
	m := f.Mirror
	check("after reopen", m, oldest)
	if _, _, err := m.NthBefore(vs[len(vs)-1].EndLSN+1, 1); err == nil {
		t.Fatal("NthBefore from an LSN that is no commit answered")
	}

	// A data directory from before the index (simulated by dropping it):
	// NthBefore says so, so callers walk the log instead.
	if err := f.DB.Badger().DropPrefix([]byte{store.PrefixSpool, 'n'}); err != nil {
		t.Fatal(err)
	}
	f.Reopen()
	m = f.Mirror
	if _, _, err := m.NthBefore(vs[len(vs)-1].EndLSN, 1); !errors.Is(err, mirror.ErrNoIndex) {
		t.Fatalf("NthBefore without an index: %v", err)
	}
	// Commits after it do not start a partial index.
	f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{historytest.S("1"), historytest.S("w")}) })
	if _, _, err := m.NthBefore(m.Head().EndLSN, 1); !errors.Is(err, mirror.ErrNoIndex) {
		t.Fatalf("NthBefore without an index after a commit: %v", err)
	}
}
