package mirror_test

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// readAll returns the table's rows at lsn as id → v.
func readAll(t *testing.T, m *mirror.Mirror, lsn wal.LSN) (map[string]string, error) {
	t.Helper()
	return historytest.ReadKV(context.Background(), m, lsn)
}

// TestExpireKeepsRetainedAndTaggedVersions expires the older half of a
// random history with two tagged versions in it, and checks against a
// model: every version from the horizon on and both tags read back
// exactly, every other older version is refused with ErrExpired (never a
// wrong state), listings agree, records were deleted, and all of it
// survives a reopen and a second Expire that drops one tag.
func TestExpireKeepsRetainedAndTaggedVersions(t *testing.T) {
	seed := seed.New(t, mirror.SeedFlag)
	rng := rand.New(rand.NewPCG(seed, 1))
	f := historytest.New(t)
	rel, cur := f.KVTable(100)
	var versions []mirror.Version
	states := map[wal.LSN]map[string]string{}
	for i := range 120 {
		v := f.Commit(func(tx *historytest.Tx) {
			for range 1 + rng.IntN(3) {
				id := strconv.Itoa(rng.IntN(120))
				if _, ok := cur[id]; ok && rng.IntN(4) == 0 {
					tx.Delete(rel, id)
					delete(cur, id)
					continue
				}
				val := "v" + strconv.Itoa(i)
				tx.Upsert(rel, []*string{historytest.S(id), historytest.S(val)})
				cur[id] = val
			}
		})
		versions = append(versions, v)
		states[v.EndLSN] = maps.Clone(cur)
	}
	m := f.Mirror
	tagA, tagB := versions[10].EndLSN, versions[45].EndLSN
	before := versions[70].EndLSN

	st, err := m.Expire(t.Context(), before, []wal.LSN{tagA, tagB})
	if err != nil {
		t.Fatal(err)
	}
	if st.Horizon == 0 || st.Horizon > before || st.Versions == 0 || st.Groups == 0 || st.Islands != 2 {
		t.Fatalf("expire stats %+v (before %s)", st, before)
	}
	check := func(when string, keep ...wal.LSN) {
		t.Helper()
		h, islands := m.Horizon()
		if h != st.Horizon {
			t.Fatalf("%s: horizon %s, want %s", when, h, st.Horizon)
		}
		kept := map[wal.LSN]bool{}
		for _, k := range keep {
			kept[k] = true
		}
		inIsland := func(lsn wal.LSN) bool {
			for _, is := range islands {
				if is.Base <= lsn && lsn <= is.Kept {
					return true
				}
			}
			return false
		}
		listed := map[wal.LSN]bool{}
		vs, err := m.Versions(0, versions[len(versions)-1].EndLSN, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			listed[v.EndLSN] = true
		}
		for i, v := range versions {
			want := v.EndLSN >= h || kept[v.EndLSN] || inIsland(v.EndLSN)
			got, err := readAll(t, m, v.EndLSN)
			if want {
				if err != nil {
					t.Fatalf("%s: version %d (%s) retained but unreadable: %v", when, i, v.EndLSN, err)
				}
				if !maps.Equal(got, states[v.EndLSN]) {
					t.Fatalf("%s: version %d (%s) reads a wrong state", when, i, v.EndLSN)
				}
				if _, err := m.VersionAt(v.EndLSN); err != nil {
					t.Fatalf("%s: VersionAt(%s): %v", when, v.EndLSN, err)
				}
			} else {
				if !errors.Is(err, mirror.ErrExpired) {
					t.Fatalf("%s: expired version %d (%s) read: err %v", when, i, v.EndLSN, err)
				}
				if _, err := m.VersionAt(v.EndLSN); !errors.Is(err, mirror.ErrExpired) {
					t.Fatalf("%s: VersionAt(%s) of an expired version: %v", when, v.EndLSN, err)
				}
			}
			if listed[v.EndLSN] != want {
				t.Fatalf("%s: version %d (%s) listed %v, retained %v", when, i, v.EndLSN, listed[v.EndLSN], want)
			}
			// Between two commits, an LSN reads the earlier one only when
			// both are kept: it never skips expired commits silently.
			if i+1 < len(versions) {
				mid := v.EndLSN + 1
				got, err := readAll(t, m, mid)
				if want && (mid >= h || inIsland(mid)) {
					if err != nil || !maps.Equal(got, states[v.EndLSN]) {
						t.Fatalf("%s: LSN %s after version %d: err %v", when, mid, i, err)
					}
				} else if !want && !errors.Is(err, mirror.ErrExpired) {
					t.Fatalf("%s: LSN %s after expired version %d: err %v", when, mid, i, err)
				}
			}
		}
		for _, k := range keep {
			if !listed[k] {
				t.Fatalf("%s: kept version %s not listed", when, k)
			}
		}
	}
	t.Logf("expire: %+v", st)
	check("after expire", tagA, tagB)

	// The retention record survives a reopen.
	f.Reopen()
	m = f.Mirror
	check("after reopen", tagA, tagB)

	// Dropping tag A: a second Expire at the same horizon removes its
	// island and keeps B's.
	st2, err := m.Expire(t.Context(), before, []wal.LSN{tagB})
	if err != nil {
		t.Fatal(err)
	}
	if st2.Horizon != st.Horizon || st2.Islands != 1 || st2.Versions == 0 {
		t.Fatalf("second expire %+v", st2)
	}
	check("after dropping a tag", tagB)

	// Nothing left to do: a third call deletes nothing.
	st3, err := m.Expire(t.Context(), before, []wal.LSN{tagB})
	if err != nil {
		t.Fatal(err)
	}
	if st3.Versions != 0 || st3.Groups != 0 {
		t.Fatalf("third expire deleted %+v", st3)
	}
}

// TestReadingBlocksOnlyEarlierReaders: WaitReaders waits for a read that
// began before it and not for one that began after.
func TestReadingBlocksOnlyEarlierReaders(t *testing.T) {
	f := historytest.New(t)
	m := f.Mirror
	early := m.Reading()
	waited := make(chan error, 1)
	epoch := mirror.ReaderEpoch(m)
	go func() { waited <- m.WaitReaders(context.Background()) }()
	// "After" means after WaitReaders has begun, not after a sleep: on a
	// loaded machine the goroutine may not have run yet.
	for deadline := time.Now().Add(10 * time.Second); mirror.ReaderEpoch(m) == epoch; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("WaitReaders did not begin within 10s")
		}
	}
	late := m.Reading()
	defer late()
	select {
	case err := <-waited:
		t.Fatalf("WaitReaders returned (%v) while an earlier read runs", err)
	case <-time.After(50 * time.Millisecond):
	}
	early()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second): // generous: a regression waits forever
		t.Fatal("WaitReaders still waits for a read that began after it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	still := m.Reading()
	defer still()
	if err := m.WaitReaders(ctx); err == nil {
		t.Fatal("WaitReaders returned with a read in progress and its context done")
	}
}
