package mirror

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestRowsAtDuringRecovery (issue 21 item 11): after a crash, the
// versions among the commits Open replayed read through RowsAt while
// their flush has not happened yet (the base tree plus their edits in
// memory) exactly as the model and as the flushed trees do: every key's
// Lookup, full and partial Rows, Count; random inserts, updates, deletes
// and a truncate, over a base that is an earlier group, not the copy.
func TestRowsAtDuringRecovery(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { rowsAtDuringRecovery(t, seed) })
	}
}

func rowsAtDuringRecovery(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	h := newMHarness(t, Options{GroupMaxAge: time.Hour})
	rel := testRel(5, "k")
	rows := map[int64]modelRow{}
	for id := range int64(300) {
		rows[id] = modelRow{sp(strconv.FormatInt(id, 10)), sp("copy"), nil}
	}
	h.copyTable(rel, rows, 2)
	str := func() *string { return sp(strconv.Itoa(rng.IntN(1e6))) }
	type version struct {
		end  wal.LSN
		rows map[int64]modelRow
	}
	var versions []version
	commits := func(n int, truncateAt int) {
		for i := range n {
			info := h.begin()
			sent := h.changes
			for range 1 + rng.IntN(8) {
				id := int64(rng.IntN(400))
				switch op := rng.IntN(3); {
				case i == truncateAt:
					clear(rows)
					h.change(&wal.Change{Kind: wal.Truncate, Truncated: []*wal.Relation{rel}})
				case op == 0 && rows[id] == (modelRow{}):
					r := modelRow{sp(strconv.FormatInt(id, 10)), str(), str()}
					rows[id] = r
					h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: r.values()})
				case op == 1 && rows[id] != (modelRow{}):
					r := rows[id]
					r[1] = str()
					rows[id] = r
					h.change(&wal.Change{Kind: wal.Update, Relation: rel, New: r.values()})
				case rows[id] != (modelRow{}):
					delete(rows, id)
					h.change(&wal.Change{Kind: wal.Delete, Relation: rel, Old: keyVals(id), OldKind: wal.OldKey})
				}
			}
			h.commit(info)
			if h.changes != sent { // else no version
				versions = append(versions, version{info.EndLSN, maps.Clone(rows)})
			}
		}
	}
	commits(20, -1)
	grouped := len(versions)
	h.reopen(false) // a group record at the last commit: the base below
	commits(40, 25)
	if err := h.m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The recovered group's flush is held back until Close: every read
	// below finds it not done.
	h.flushDelay = time.Hour
	h.reopen(true)
	codec, err := rowenc.NewKeyCodec(rowenc.KindInt8)
	if err != nil {
		t.Fatal(err)
	}
	key := func(id int64) []byte {
		k, err := codec.Encode(strconv.FormatInt(id, 10))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	read := func(when string, v version, tr *Tree) map[string]string {
		t.Helper()
		want := modelRows(t, v.rows)
		for id := range int64(400) {
			got, ok, err := tr.Lookup(t.Context(), key(id))
			if err != nil {
				t.Fatal(err)
			}
			if w, wok := want[string(key(id))]; ok != wok || string(got) != w {
				t.Fatalf("%s: version %s, id %d: %q %v, model %q %v", when, v.end, id, got, ok, w, wok)
			}
		}
		all := map[string]string{}
		for _, r := range [][2]int64{{-1, -1}, {0, 100}, {57, 58}, {150, 390}, {399, -1}} {
			var from, to []byte
			if r[0] >= 0 {
				from = key(r[0])
			}
			if r[1] >= 0 {
				to = key(r[1])
			}
			c, err := tr.Rows(t.Context(), from, to)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			var last []byte
			for c.Next() {
				if last != nil && string(c.Key()) <= string(last) {
					t.Fatalf("%s: version %s: rows out of order at %x", when, v.end, c.Key())
				}
				last = slices.Clone(c.Key())
				got[string(c.Key())] = string(c.Value())
			}
			if err := c.Err(); err != nil {
				t.Fatal(err)
			}
			sub := maps.Clone(want)
			maps.DeleteFunc(sub, func(k, _ string) bool {
				return (from != nil && k < string(from)) || (to != nil && k >= string(to))
			})
			if !maps.Equal(got, sub) {
				t.Fatalf("%s: version %s, rows [%d, %d): %d, model %d:\n%s", when, v.end, r[0], r[1], len(got), len(sub), diffRows(got, sub))
			}
			// From the largest key down (pending_desc.go): the same rows.
			dc, err := tr.RowsDesc(t.Context(), from, to)
			if err != nil {
				t.Fatal(err)
			}
			down := map[string]string{}
			last = nil
			for dc.Next() {
				if last != nil && string(dc.Key()) >= string(last) {
					t.Fatalf("%s: version %s: descending rows out of order at %x", when, v.end, dc.Key())
				}
				last = slices.Clone(dc.Key())
				down[string(dc.Key())] = string(dc.Value())
			}
			if err := dc.Err(); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(down, sub) {
				t.Fatalf("%s: version %s, rows [%d, %d) descending: %d, model %d:\n%s", when, v.end, r[0], r[1], len(down), len(sub), diffRows(down, sub))
			}
			if from == nil && to == nil {
				all = got
			}
		}
		if n, err := tr.Count(t.Context()); err != nil || n != uint64(len(want)) {
			t.Fatalf("%s: version %s: count %d (%v), model %d", when, v.end, n, err, len(want))
		}
		return all
	}
	pending := map[wal.LSN]map[string]string{}
	for i, v := range versions {
		tr, err := h.m.RowsAt(t.Context(), "public.k", v.end)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-h.m.Recovered():
			t.Fatal("the recovered group was flushed before the reads")
		default:
		}
		if tr.Pending() != (i >= grouped) {
			t.Fatalf("version %d: pending %v", i, tr.Pending())
		}
		pending[v.end] = read("before the flush", v, tr)
	}
	// Readers of one version share its edits (memory: one copy of the
	// replayed group, however many read HEAD).
	last := versions[len(versions)-1].end
	tr1, err := h.m.RowsAt(t.Context(), "public.k", last)
	if err != nil {
		t.Fatal(err)
	}
	tr2, err := h.m.RowsAt(t.Context(), "public.k", last)
	if err != nil {
		t.Fatal(err)
	}
	if tr1.pending == nil || tr1.pending != tr2.pending {
		t.Fatalf("two reads of %s hold their own edits", last)
	}
	// Close lets the held-back flush run; then the trees hold every
	// version, read the same.
	h.flushDelay = 0
	h.reopen(false)
	for _, v := range versions {
		tr, err := h.m.TreeAt(t.Context(), "public.k", v.end)
		if err != nil {
			t.Fatal(err)
		}
		if got := read("flushed", v, tr); !maps.Equal(got, pending[v.end]) {
			t.Fatalf("version %s reads differently before and after the flush", v.end)
		}
	}
}
