package mirror_test

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// reviewRead returns public.t at lsn as id → v.
func reviewRead(ctx context.Context, m *mirror.Mirror, lsn wal.LSN) (map[string]string, error) {
	return historytest.ReadKV(ctx, m, lsn)
}

// TestReviewExpireRoundsAgainstModel moves the horizon forward in several
// rounds over a random history (single-row commits, multi-row commits and
// transactions that spill into scratch trees, so the horizon and the
// islands' bases land on flush groups and on spilled commits), with a tag
// set that changes between rounds, one Expire interrupted after its
// retention record (cancelled context: the record is written, no record
// is deleted) and a reopen of the mirror right after it. After every
// round, against a model of every state:
//   - a read at any LSN (each version's end LSN, and one LSN before and
//     after it) either returns exactly the state of the latest commit at
//     or before that LSN, or fails with ErrExpired: never an older
//     retained state across expired commits;
//   - every version at or after the horizon and every tagged version
//     reads back; Versions lists exactly the retained ones;
//   - the horizon never moves backwards, and an Expire after the
//     interrupted one deletes the records it left.
func TestReviewExpireRoundsAgainstModel(t *testing.T) {
	seed := seed.New(t, mirror.SeedFlag)
	rng := rand.New(rand.NewPCG(seed, 2))
	opts := func(o *mirror.Options) { o.SpillRows = 30 }
	f := historytest.NewOpts(t, 8<<20, opts)
	ctx := context.Background()
	rel, cur := f.KVTable(80)
	initial := maps.Clone(cur)
	var versions []mirror.Version
	states := map[wal.LSN]map[string]string{}
	commit := func(n int) {
		v := f.Commit(func(tx *historytest.Tx) {
			for range n {
				id := strconv.Itoa(rng.IntN(100))
				if _, ok := cur[id]; ok && rng.IntN(5) == 0 {
					tx.Delete(rel, id)
					delete(cur, id)
					continue
				}
				val := "v" + strconv.Itoa(len(versions)+1)
				tx.Upsert(rel, []*string{historytest.S(id), historytest.S(val)})
				cur[id] = val
			}
		})
		versions = append(versions, v)
		states[v.EndLSN] = maps.Clone(cur)
	}
	// want returns the model state as of lsn: the latest commit at or
	// before it, or the copy when there is none.
	want := func(lsn wal.LSN) (wal.LSN, map[string]string) {
		i := sort.Search(len(versions), func(i int) bool { return versions[i].EndLSN > lsn })
		if i == 0 {
			return 0, initial
		}
		return versions[i-1].EndLSN, states[versions[i-1].EndLSN]
	}
	tags := map[wal.LSN]bool{}
	var lastHorizon wal.LSN
	check := func(when string) {
		t.Helper()
		m := f.Mirror
		h, islands := m.Horizon()
		if h < lastHorizon {
			t.Fatalf("seed %d: %s: horizon moved back from %s to %s", seed, when, lastHorizon, h)
		}
		lastHorizon = h
		retained := func(v wal.LSN) bool {
			if v >= h {
				return true
			}
			for _, is := range islands {
				if is.Base <= v && v <= is.Kept {
					return true
				}
			}
			return false
		}
		listed, err := m.Versions(0, versions[len(versions)-1].EndLSN, 0)
		if err != nil {
			t.Fatalf("seed %d: %s: versions: %v", seed, when, err)
		}
		var got, exp []wal.LSN
		for _, v := range listed {
			got = append(got, v.EndLSN)
		}
		for _, v := range versions {
			if retained(v.EndLSN) {
				exp = append(exp, v.EndLSN)
			}
		}
		if !slices.Equal(got, exp) {
			t.Fatalf("seed %d: %s: Versions lists %d versions, %d are retained", seed, when, len(got), len(exp))
		}
		for tag := range tags {
			if !retained(tag) {
				t.Fatalf("seed %d: %s: tagged version %s not retained (horizon %s, islands %v)", seed, when, tag, h, islands)
			}
		}
		for _, v := range versions {
			for _, lsn := range []wal.LSN{v.EndLSN - 1, v.EndLSN, v.EndLSN + 1} {
				at, exp := want(lsn)
				got, err := reviewRead(ctx, m, lsn)
				switch {
				case err == nil:
					if !maps.Equal(got, exp) {
						t.Fatalf("seed %d: %s: LSN %s reads a state other than its commit %s's (horizon %s, islands %v)",
							seed, when, lsn, at, h, islands)
					}
				case errors.Is(err, mirror.ErrExpired):
					if lsn == v.EndLSN && retained(v.EndLSN) {
						t.Fatalf("seed %d: %s: retained version %s refused: %v", seed, when, lsn, err)
					}
				default:
					t.Fatalf("seed %d: %s: read at %s: %v", seed, when, lsn, err)
				}
			}
		}
	}
	reopen := func() {
		t.Helper()
		if err := f.Mirror.Close(ctx); err != nil {
			t.Fatal(err)
		}
		o := mirror.Options{DB: f.DB, TempDir: t.TempDir(), GroupMaxRows: 7, GroupMaxAge: time.Hour}
		opts(&o)
		m, err := mirror.Open(ctx, o)
		if err != nil {
			t.Fatalf("seed %d: reopen: %v", seed, err)
		}
		f.Mirror = m
	}
	keep := func() []wal.LSN {
		out := make([]wal.LSN, 0, len(tags))
		for l := range tags {
			out = append(out, l)
		}
		return out
	}
	for round := range 4 {
		for range 30 {
			switch rng.IntN(8) {
			case 0:
				commit(40) // spills
			case 1, 2:
				commit(4)
			default:
				commit(1)
			}
		}
		// Tags: drop one now and then, add one on a retained version.
		for l := range tags {
			if rng.IntN(3) == 0 {
				delete(tags, l)
			}
		}
		for range 1 + rng.IntN(2) {
			v := versions[rng.IntN(len(versions))].EndLSN
			if _, err := f.Mirror.VersionAt(v); err == nil {
				tags[v] = true
			}
		}
		// Expire before a version in the newer half of the history.
		lo := len(versions) / 2
		before := versions[lo+rng.IntN(len(versions)-lo)].EndLSN
		if round == 1 {
			// Before the newest version: round 1's commits made groups
			// past the last horizon, so the pass after the interrupted
			// one has records to delete.
			before = versions[len(versions)-1].EndLSN
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			if _, err := f.Mirror.Expire(cctx, before, keep()); err == nil {
				t.Fatalf("seed %d: Expire with a cancelled context reported success", seed)
			}
			check("after an interrupted expire")
			reopen()
			check("after reopening over the records it left")
			st, err := f.Mirror.Expire(ctx, before, keep())
			if err != nil {
				t.Fatal(err)
			}
			if h, _ := f.Mirror.Horizon(); st.Horizon != h || (st.Versions == 0 && st.Groups == 0) {
				t.Fatalf("seed %d: Expire after the interrupted one deleted nothing: %+v", seed, st)
			}
		} else if _, err := f.Mirror.Expire(ctx, before, keep()); err != nil {
			t.Fatal(err)
		}
		check("round " + strconv.Itoa(round))
	}
	reopen()
	check("after the final reopen")
}
