package mirror

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// fullRel is a keyless REPLICA IDENTITY FULL table (a int8, b text): the
// Relation marks every column as part of the identity.
func fullRel(oid uint32, name string) *wal.Relation {
	return &wal.Relation{OID: oid, Schema: "public", Name: name, Identity: wal.IdentityFull,
		Columns: []wal.Column{
			{Name: "a", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
			{Name: "b", TypeOID: 25, TypeName: "text", TypeMod: -1, Key: true},
		}}
}

// msRow is a row of fullRel; a nil b is NULL.
type msRow struct {
	a int
	b *string
}

func (r msRow) values() []wal.Value {
	v := []wal.Value{{Kind: wal.Text, Bytes: fmt.Append(nil, r.a)}, {Kind: wal.Null}}
	if r.b != nil {
		v[1] = wal.Value{Kind: wal.Text, Bytes: []byte(*r.b)}
	}
	return v
}

func (r msRow) vrow() string {
	var b []byte
	if r.b != nil {
		b = []byte(*r.b)
	}
	return string(rowenc.Encode([][]byte{fmt.Append(nil, r.a), b}))
}

// randMSRow draws from a small domain, so that identical rows are common
// (NULL and the empty string both among the b values).
func randMSRow(rng *rand.Rand) msRow {
	bs := []*string{nil, sp(""), sp("x"), sp("y z")}
	return msRow{a: rng.IntN(4), b: bs[rng.IntN(len(bs))]}
}

// multisetEntries is what the tree must hold for the multiset (row vrow1
// → count): each row's occurrences 0..n-1.
func multisetEntries(ms map[string]int) map[string]string {
	out := map[string]string{}
	for row, n := range ms {
		for i := range n {
			out[string(rowenc.AppendOccurrenceKey(nil, []byte(row), uint32(i)))] = row
		}
	}
	return out
}

// copyFull copies rows (in the given order, over ranges) as table rel.
func (h *mharness) copyFull(rel *wal.Relation, rows []msRow, ranges int) {
	h.t.Helper()
	for r := range ranges {
		w, err := h.m.CopyRange(h.t.Context(), rel, wal.BlockRange{Index: r, Of: ranges})
		if err != nil {
			h.t.Fatal(err)
		}
		for i := r; i < len(rows); i += ranges {
			if err := w.WriteRow(rows[i].values()); err != nil {
				h.t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			h.t.Fatal(err)
		}
	}
	h.lsn += 10
	if err := h.m.TableCopied(h.t.Context(), rel, h.lsn); err != nil {
		h.t.Fatal(err)
	}
	// No commit lies below the copy's LSN here: the stream is there.
	if err := h.m.StreamReached(h.t.Context(), h.lsn); err != nil {
		h.t.Fatal(err)
	}
}

// TestMultisetModel follows random inserts, updates and deletes of one of
// several identical rows of a keyless REPLICA IDENTITY FULL table (small
// groups and spills, a clean reopen and a crash between rounds) and
// checks after every round that the tree holds exactly the model
// multiset's occurrences, and that its root hash is the one a fresh copy
// of the same multiset builds (history independence).
func TestMultisetModel(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 11))
	h := newMHarness(t, Options{GroupMaxRows: 40, GroupMaxAge: time.Hour, SpillRows: 25})
	rel := fullRel(17001, "ms")
	model := map[string]int{}
	var initial []msRow
	for range 60 {
		r := randMSRow(rng)
		initial = append(initial, r)
		model[r.vrow()]++
	}
	h.copyFull(rel, initial, 3)
	// pick returns a row the model holds (any of its occurrences: they
	// are identical), or false for an empty table.
	pick := func() (msRow, bool) {
		rows := slices.Sorted(maps.Keys(model))
		if len(rows) == 0 {
			return msRow{}, false
		}
		want := rows[rng.IntN(len(rows))]
		for {
			if r := randMSRow(rng); r.vrow() == want {
				return r, true
			}
		}
	}
	check := func(round int) {
		t.Helper()
		got := h.treeRows("public.ms", ^wal.LSN(0))
		if want := multisetEntries(model); !maps.Equal(got, want) {
			t.Fatalf("seed %d round %d: tree holds %d entries, the model %d occurrences:\n got %q\nwant %q", seed, round, len(got), len(want), got, want)
		}
		tr, err := h.m.TreeAt(t.Context(), "public.ms", ^wal.LSN(0))
		if err != nil {
			t.Fatal(err)
		}
		var rows []msRow
		for row, n := range model {
			for range n {
				r, _ := findMSRow(row)
				rows = append(rows, r)
			}
		}
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		other := fullRel(17002+uint32(round), fmt.Sprintf("ms_copy%d", round))
		h.copyFull(other, rows, 1+round%3)
		ctr, err := h.m.TreeAt(t.Context(), other.QualifiedName(), ^wal.LSN(0))
		if err != nil {
			t.Fatal(err)
		}
		if tr.Root.Hash != ctr.Root.Hash {
			t.Fatalf("seed %d round %d: the followed table's root %s differs from a fresh copy's %s of the same multiset", seed, round, tr.Root.Hash.Short(), ctr.Root.Hash.Short())
		}
		d, err := tr.Engine().DigestRange(t.Context(), tr.Root, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range model {
			n += c
		}
		if d.Count != uint64(n) {
			t.Fatalf("seed %d round %d: digest counts %d rows, the multiset holds %d", seed, round, d.Count, n)
		}
	}
	for round := range 6 {
		for txn := range 30 {
			info := h.begin()
			n := 1 + rng.IntN(6)
			if txn == 0 {
				n = 60 // past SpillRows: applied through scratch trees
			}
			for range n {
				switch op := rng.IntN(10); {
				case op < 4:
					r := randMSRow(rng)
					h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: r.values()})
					model[r.vrow()]++
				case op < 7:
					old, ok := pick()
					if !ok {
						continue
					}
					nw := randMSRow(rng)
					h.change(&wal.Change{Kind: wal.Update, Relation: rel, OldKind: wal.OldRow, Old: old.values(), New: nw.values()})
					if model[old.vrow()]--; model[old.vrow()] == 0 {
						delete(model, old.vrow())
					}
					model[nw.vrow()]++
				default:
					old, ok := pick()
					if !ok {
						continue
					}
					h.change(&wal.Change{Kind: wal.Delete, Relation: rel, OldKind: wal.OldRow, Old: old.values()})
					if model[old.vrow()]--; model[old.vrow()] == 0 {
						delete(model, old.vrow())
					}
				}
			}
			h.commit(info)
		}
		check(round)
		if round == 1 && h.m.Stats().Spills == 0 {
			t.Fatal("no transaction spilled")
		}
		switch round {
		case 2:
			h.reopen(false)
		case 4:
			h.reopen(true)
		}
	}
}

// findMSRow inverts msRow.vrow over the test's domain.
func findMSRow(vrow string) (msRow, bool) {
	for a := range 4 {
		for _, b := range []*string{nil, sp(""), sp("x"), sp("y z")} {
			if r := (msRow{a: a, b: b}); r.vrow() == vrow {
				return r, true
			}
		}
	}
	return msRow{}, false
}

// TestMultisetDeleteOfAbsentRowResyncs: a DELETE of a row the mirror does
// not hold means the mirror's copy cannot be trusted: the table is marked
// for a resync, nothing is invented.
func TestMultisetDeleteOfAbsentRowResyncs(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := fullRel(17101, "ms")
	h.copyFull(rel, []msRow{{a: 1, b: sp("x")}}, 1)
	info := h.begin()
	h.change(&wal.Change{Kind: wal.Delete, Relation: rel, OldKind: wal.OldRow, Old: msRow{a: 2}.values()})
	h.commit(info)
	if got := h.m.NeedsResync(); !slices.Equal(got, []string{"public.ms"}) {
		t.Fatalf("NeedsResync = %v, want public.ms", got)
	}
}

// TestSetKeyedFullTableResyncs: a FULL table whose tree an earlier
// sidecar keyed by the bare vrow1 (duplicates collapsed) is marked for a
// resync when the mirror opens; a multiset-keyed one is not.
func TestSetKeyedFullTableResyncs(t *testing.T) {
	h := newMHarness(t, Options{})
	old, cur := fullRel(17201, "old"), fullRel(17202, "cur")
	rows := []msRow{{a: 1, b: sp("x")}, {a: 1, b: sp("x")}, {a: 2}}
	h.copyFull(old, rows, 1)
	h.copyFull(cur, rows, 1)
	// Rewrite old's tree the way the earlier layout keyed it.
	b := h.m.eng.NewBuilder(t.Context())
	for _, r := range []msRow{{a: 1, b: sp("x")}, {a: 2}} {
		if err := b.Add([]byte(r.vrow()), []byte(r.vrow())); err != nil {
			t.Fatal(err)
		}
	}
	root, err := b.Finish()
	if err == nil {
		err = h.m.ns.Flush(t.Context())
	}
	if err != nil {
		t.Fatal(err)
	}
	h.m.mu.Lock()
	recs := map[string]tableRecord{}
	for n, tt := range h.m.tables {
		recs[n] = tt.rec
	}
	r := recs["public.old"]
	r.Root, r.Rows = root, 2
	recs["public.old"] = r
	op := &writeOp{sync: true}
	h.m.groupOp(max(h.m.lastGroup, h.m.head.EndLSN), recs, op)
	err = h.m.enqueueWait(op)
	h.m.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	h.reopen(false)
	if got := h.m.NeedsResync(); !slices.Equal(got, []string{"public.old"}) {
		t.Fatalf("NeedsResync after open = %v, want [public.old]", got)
	}
	h.reopen(false)
	if got := h.m.NeedsResync(); !slices.Equal(got, []string{"public.old"}) {
		t.Fatalf("NeedsResync after a second open = %v, want [public.old] (recorded)", got)
	}
}

// BenchmarkApplyInserts applies transactions of 100 inserts of new rows
// to a table of 100k rows keyed by a primary key and to a keyless FULL
// one (which looks up each row's occurrence count first): the cost of a
// multiset's insert. One op is one transaction.
func BenchmarkApplyInserts(b *testing.B) {
	for _, full := range []bool{false, true} {
		b.Run(map[bool]string{false: "pk", true: "full"}[full], func(b *testing.B) {
			h := newMHarness(b, Options{})
			rel := testRel(17301, "bench")
			if full {
				rel = fullRel(17301, "bench")
			}
			ms := msRow{}
			vals := func(i int) []wal.Value {
				if full {
					ms.a, ms.b = i, sp("payload")
					return ms.values()
				}
				return modelRow{sp(fmt.Sprint(i)), sp("payload"), nil}.values()
			}
			// 100k rows copied first: lookups reach the tree.
			const copied = 100_000
			if full {
				rows := make([]msRow, copied)
				for i := range rows {
					rows[i] = msRow{a: -1 - i, b: sp("payload")}
				}
				h.copyFull(rel, rows, 1)
			} else {
				rows := map[int64]modelRow{}
				for i := range copied {
					rows[int64(-1-i)] = modelRow{sp(fmt.Sprint(-1 - i)), sp("payload"), nil}
				}
				h.copyTable(rel, rows, 1)
			}
			b.ResetTimer()
			n := 0
			for range b.N {
				info := h.begin()
				for range 100 {
					h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: vals(n)})
					n++
				}
				h.commit(info)
			}
		})
	}
}
