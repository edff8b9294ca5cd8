package history

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/wal"
)

// mrow is a model row of public.t (id int8 key, a text, b text); nil is NULL.
type mrow [3]*string

type mtable map[int64]mrow

func rowOf(r mrow) []*string { return r[:] }

func eqv(a, b *string) bool { return sameValue(a, b) }

func eqRow(a, b mrow) bool { return eqv(a[0], b[0]) && eqv(a[1], b[1]) && eqv(a[2], b[2]) }

// modelHistory is a random history of public.t with the model of every
// version.
type modelHistory struct {
	f        *historytest.Fixture
	svc      *Service
	rel      *wal.Relation
	versions []string // end LSNs
	states   []mtable
}

// seeded is a generator seeded by internal/seed (the -seed flag or the
// clock), whose seed a failing t prints.
func seeded(t *testing.T) *rand.Rand {
	return rand.New(rand.NewPCG(seed.New(t, seedFlag), 7))
}

func randValue(rng *rand.Rand) *string {
	switch rng.IntN(6) {
	case 0:
		return nil
	case 1:
		return historytest.S("")
	case 2:
		return historytest.S("it's " + strconv.Itoa(rng.IntN(5)))
	}
	return historytest.S(strconv.Itoa(rng.IntN(4)))
}

func newModelHistory(t *testing.T, rng *rand.Rand, commits int) *modelHistory {
	f := historytest.New(t)
	h := &modelHistory{f: f, svc: New(f.DB, f.Mirror)}
	h.rel = historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"a", "text"}, [2]string{"b", "text"})
	cur := mtable{}
	var init [][]*string
	for id := int64(0); id < 30; id++ {
		r := mrow{historytest.S(strconv.FormatInt(id, 10)), randValue(rng), randValue(rng)}
		cur[id] = r
		init = append(init, rowOf(r))
	}
	f.CreateTable(h.rel, init)
	for range commits {
		next := maps.Clone(cur)
		v := f.Commit(func(tx *historytest.Tx) {
			// At least one row changes: a transaction whose deletes and
			// updates all missed is empty and makes no version.
			for i, n := 0, 1+rng.IntN(4); i < n || maps.EqualFunc(next, cur, rowEqual); i++ {
				id := int64(rng.IntN(40))
				switch op := rng.IntN(10); {
				case op < 3:
					if _, ok := next[id]; ok {
						tx.Delete(h.rel, strconv.FormatInt(id, 10))
						delete(next, id)
					}
				case op < 6:
					r, ok := next[id]
					if !ok {
						continue
					}
					r[1+rng.IntN(2)] = randValue(rng) // one column
					tx.Upsert(h.rel, rowOf(r))
					next[id] = r
				default:
					r := mrow{historytest.S(strconv.FormatInt(id, 10)), randValue(rng), randValue(rng)}
					tx.Upsert(h.rel, rowOf(r))
					next[id] = r
				}
			}
		})
		h.versions = append(h.versions, v.EndLSN.String())
		h.states = append(h.states, next)
		cur = next
	}
	return h
}

func toModel(t *testing.T, r *Row) mrow {
	t.Helper()
	if r == nil || len(r.Values) != 3 || r.Names[0] != "id" || r.Names[1] != "a" || r.Names[2] != "b" {
		t.Fatalf("row shape: %+v", r)
	}
	return mrow{r.Values[0], r.Values[1], r.Values[2]}
}

func idOf(t *testing.T, r mrow) int64 {
	id, err := strconv.ParseInt(*r[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// rowEqual compares two model rows value by value.
func rowEqual(a, b mrow) bool {
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) || a[i] != nil && *a[i] != *b[i] {
			return false
		}
	}
	return true
}

// applyEvents applies row events to a copy of m, checking each against
// the state it applies to.
func applyEvents(t *testing.T, m mtable, evs []*Event) mtable {
	t.Helper()
	out := maps.Clone(m)
	for _, e := range evs {
		if e.Type != EventRow {
			continue
		}
		switch e.Op {
		case OpAdded:
			r := toModel(t, e.To)
			if _, ok := out[idOf(t, r)]; ok {
				t.Fatalf("added row %s already there", *r[0])
			}
			out[idOf(t, r)] = r
		case OpRemoved:
			r := toModel(t, e.From)
			if got, ok := out[idOf(t, r)]; !ok || !eqRow(got, r) {
				t.Fatalf("removed row %s: have %v", *r[0], got)
			}
			delete(out, idOf(t, r))
		case OpChanged:
			f, to := toModel(t, e.From), toModel(t, e.To)
			if got := out[idOf(t, f)]; !eqRow(got, f) {
				t.Fatalf("changed row %s: from differs", *f[0])
			}
			var changed []string
			for i, n := range []string{"id", "a", "b"} {
				if !eqv(f[i], to[i]) {
					changed = append(changed, n)
				}
			}
			if !slices.Equal(changed, e.Changed) || len(changed) == 0 {
				t.Fatalf("changed columns %v, event says %v", changed, e.Changed)
			}
			out[idOf(t, to)] = to
		}
	}
	return out
}

func equalTables(a, b mtable) bool {
	return maps.EqualFunc(a, b, eqRow)
}

func collect(t *testing.T, run func(fn func(*Event) error) error) []*Event {
	t.Helper()
	var evs []*Event
	if err := run(func(e *Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestDiffModel diffs random pairs of versions (both directions, with and
// without a key range and --stat) and checks that applying the events to
// the model of from gives the model of to.
func TestDiffModel(t *testing.T) {
	rng := seeded(t)
	h := newModelHistory(t, rng, 60)
	ctx := t.Context()
	for range 60 {
		i, j := rng.IntN(len(h.versions)), rng.IntN(len(h.versions))
		evs := collect(t, func(fn func(*Event) error) error {
			_, err := h.svc.Diff(ctx, DiffRequest{From: h.versions[i], To: h.versions[j]}, fn)
			return err
		})
		if got := applyEvents(t, h.states[i], evs); !equalTables(got, h.states[j]) {
			t.Fatalf("diff %d→%d: applying %d events does not give the target", i, j, len(evs))
		}
		var want [3]int64
		for id, r := range h.states[j] {
			if o, ok := h.states[i][id]; !ok {
				want[0]++
			} else if !eqRow(o, r) {
				want[2]++
			}
		}
		for id := range h.states[i] {
			if _, ok := h.states[j][id]; !ok {
				want[1]++
			}
		}
		stat := collect(t, func(fn func(*Event) error) error {
			_, err := h.svc.Diff(ctx, DiffRequest{From: h.versions[i], To: h.versions[j], Stat: true}, fn)
			return err
		})
		if len(stat) != 2 || stat[1].Type != EventStat || *stat[1].RowsAdded != want[0] || *stat[1].RowsRemoved != want[1] || *stat[1].RowsChanged != want[2] {
			t.Fatalf("stat %d→%d: %+v, want %v", i, j, stat[len(stat)-1], want)
		}
		lo, hi := int64(rng.IntN(40)), int64(rng.IntN(40))
		where := fmt.Sprintf("id >= %d AND id < %d", lo, hi)
		evs = collect(t, func(fn func(*Event) error) error {
			_, err := h.svc.Diff(ctx, DiffRequest{From: h.versions[i], To: h.versions[j], Where: where}, fn)
			return err
		})
		restrict := func(m mtable) mtable {
			out := mtable{}
			for id, r := range m {
				if id >= lo && id < hi {
					out[id] = r
				}
			}
			return out
		}
		if got := applyEvents(t, restrict(h.states[i]), evs); !equalTables(got, restrict(h.states[j])) {
			t.Fatalf("diff %d→%d where %s: wrong rows", i, j, where)
		}
	}
}

// modelMerge is the reference three-way merge with the column-wise rule.
func modelMerge(base, ours, theirs mtable) (mtable, []int64) {
	out := maps.Clone(ours)
	var conflicts []int64
	keys := map[int64]bool{}
	for _, m := range []mtable{base, ours, theirs} {
		for k := range m {
			keys[k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		b, bok := base[k]
		o, ook := ours[k]
		th, tok := theirs[k]
		same := func(x mrow, xok bool, y mrow, yok bool) bool { return xok == yok && (!xok || eqRow(x, y)) }
		switch {
		case same(o, ook, th, tok), same(th, tok, b, bok):
		case same(o, ook, b, bok):
			if tok {
				out[k] = th
			} else {
				delete(out, k)
			}
		case bok && ook && tok:
			var m mrow
			ok := true
			for i := range m {
				switch {
				case eqv(o[i], b[i]):
					m[i] = th[i]
				case eqv(th[i], b[i]), eqv(o[i], th[i]):
					m[i] = o[i]
				default:
					ok = false
				}
			}
			if ok {
				out[k] = m
			} else {
				conflicts = append(conflicts, k)
			}
		default:
			conflicts = append(conflicts, k)
		}
	}
	return out, conflicts
}

// TestMergeModel merges random triples of versions and checks the patch,
// the conflicts and the stored branch against modelMerge.
func TestMergeModel(t *testing.T) {
	rng := seeded(t)
	h := newModelHistory(t, rng, 40)
	ctx := t.Context()
	for n := range 30 {
		b, o, th := rng.IntN(len(h.versions)), rng.IntN(len(h.versions)), rng.IntN(len(h.versions))
		branch := ""
		if n%5 == 0 {
			branch = fmt.Sprintf("m%d", n)
		}
		var sum MergeSummary
		evs := collect(t, func(fn func(*Event) error) (err error) {
			sum, err = h.svc.Merge(ctx, MergeRequest{Base: h.versions[b], Ours: h.versions[o], Theirs: h.versions[th], Patch: true, Branch: branch}, fn)
			return err
		})
		want, wantConflicts := modelMerge(h.states[b], h.states[o], h.states[th])
		if got := applyEvents(t, h.states[o], evs); !equalTables(got, want) {
			t.Fatalf("merge base %d ours %d theirs %d: patch does not give the model's result", b, o, th)
		}
		var gotConflicts []int64
		for _, e := range evs {
			if e.Type == EventConflict {
				id, _ := strconv.ParseInt(*e.Key.Values[0], 10, 64)
				gotConflicts = append(gotConflicts, id)
				if (e.Ours == nil) != (h.states[o][id] == mrow{}) || (e.Theirs == nil) != (h.states[th][id] == mrow{}) {
					t.Fatalf("conflict %d: sides %+v", id, e)
				}
			}
		}
		if !slices.Equal(gotConflicts, wantConflicts) || sum.Conflicts != len(wantConflicts) {
			t.Fatalf("merge base %d ours %d theirs %d: conflicts %v, want %v", b, o, th, gotConflicts, wantConflicts)
		}
		if branch == "" {
			continue
		}
		got := mtable{}
		err := h.svc.Scan(ctx, ReadRequest{Table: "public.t", AsOf: branch}, func(ReadHeader) error { return nil }, func(r *Row) error {
			m := toModel(t, r)
			got[idOf(t, m)] = m
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !equalTables(got, want) {
			t.Fatalf("branch %s does not hold the merge result", branch)
		}
		// A diff from ours to the branch is the merge patch again.
		d := collect(t, func(fn func(*Event) error) error {
			_, err := h.svc.Diff(ctx, DiffRequest{From: h.versions[o], To: branch}, fn)
			return err
		})
		if got := applyEvents(t, h.states[o], d); !equalTables(got, want) {
			t.Fatalf("diff ours→branch %s differs from the merge", branch)
		}
	}
}
