package heap

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
)

func row(vals ...string) []byte {
	v := make([][]byte, len(vals))
	for i, s := range vals {
		if s != "\x00" {
			v[i] = []byte(s)
		}
	}
	return rowenc.Encode(v)
}

var kvSchema = Schema{Columns: []Column{{"id", KindInt8}, {"v", KindText}, {"score", KindInt4}}}

func mustNew(t testing.TB, s Schema, cfg Config) *Heap {
	t.Helper()
	h, err := New(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustApply(t testing.TB, h *Heap, b Batch) []RowID {
	t.Helper()
	ids, err := h.Apply(b)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestApplyErrorPublishesNothing: a batch that fails half-way (a bad row,
// a row id with no row) leaves the published version as it was, and the
// heap keeps working.
func TestApplyErrorPublishesNothing(t *testing.T) {
	h := mustNew(t, kvSchema, Config{PageRows: 4})
	ids := mustApply(t, h, Batch{LSN: 1, Ops: []Op{{Kind: OpInsert, Row: row("1", "a", "10")}, {Kind: OpInsert, Row: row("2", "b", "20")}}})
	for _, bad := range []Op{
		{Kind: OpInsert, Row: row("x", "a", "1")},
		{Kind: OpInsert, Row: row("1", "a")},
		{Kind: OpInsert, Row: []byte("3:ab")},
		{Kind: OpUpdate, ID: MakeRowID(5, 3), Row: row("1", "a", "1")},
		{Kind: OpDelete, ID: MakeRowID(7, 0)},
		{Kind: OpDelete, ID: ids[0]}, // deleted by the first op of the same batch
	} {
		_, err := h.Apply(Batch{LSN: 2, Ops: []Op{
			{Kind: OpDelete, ID: ids[0]},
			{Kind: OpInsert, Row: row("3", "c", "30")},
			{Kind: OpInsert, Row: row("4", "d", "40")},
			{Kind: OpInsert, Row: row("5", "e", "50")},
			bad,
		}})
		if err == nil {
			t.Fatalf("%v: no error", bad)
		}
		s := h.Snapshot()
		if s.Rows() != 2 || s.LSN() != 1 || s.NumPages() != 1 || s.Stats(2).Sum.Lo != 30 {
			t.Fatalf("after failed batch (%v): rows %d lsn %d pages %d", err, s.Rows(), s.LSN(), s.NumPages())
		}
		if err := checkInvariants(s); err != nil {
			t.Fatal(err)
		}
		s.Release()
	}
	if _, err := h.Apply(Batch{LSN: 0}); err == nil {
		t.Fatal("LSN going back: no error")
	}
	got := mustApply(t, h, Batch{LSN: 3, Ops: []Op{{Kind: OpInsert, Row: row("3", "c", "30")}}})
	s := h.Snapshot()
	defer s.Release()
	if r, ok := s.Row(nil, got[0]); !ok || string(r) != string(row("3", "c", "30")) {
		t.Fatalf("row %q %v", r, ok)
	}
	if !errors.Is(h.checkLive(h.cur.Load(), MakeRowID(0, 3)), ErrRowID) {
		t.Fatal("checkLive")
	}
}

// TestCompactionKeepsRows: after deleting most rows and updating others to
// longer values, incremental compaction keeps every live row at its row
// id, and full compaction keeps every row under the remapped ids, in fewer
// pages.
func TestCompactionKeepsRows(t *testing.T) {
	h := mustNew(t, kvSchema, Config{PageRows: 128, PageBytes: 4096, DeadPercent: -1})
	var b Batch
	for i := range 5000 {
		b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: row(strconv.Itoa(i), "v"+strconv.Itoa(i), strconv.Itoa(i%100))})
	}
	ids := mustApply(t, h, b)
	want := map[RowID][]byte{}
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 7), 7))
	b = Batch{LSN: 1}
	for i, id := range ids {
		switch r.IntN(3) {
		case 0:
			b.Ops = append(b.Ops, Op{Kind: OpDelete, ID: id})
		case 1:
			b.Ops = append(b.Ops, Op{Kind: OpUpdate, ID: id, Row: row(strconv.Itoa(i), "longer value "+strconv.Itoa(i), "7")})
		default:
			want[id] = row(strconv.Itoa(i), "v"+strconv.Itoa(i), strconv.Itoa(i%100))
		}
	}
	got := mustApply(t, h, b)
	for i, op := range b.Ops {
		if op.Kind == OpUpdate {
			want[got[i]] = op.Row
		}
	}
	check := func(what string, want map[RowID][]byte) {
		s := h.Snapshot()
		defer s.Release()
		if err := checkInvariants(s); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if s.Rows() != int64(len(want)) {
			t.Fatalf("%s: %d rows, want %d", what, s.Rows(), len(want))
		}
		for id, w := range want {
			if g, ok := s.Row(nil, id); !ok || string(g) != string(w) {
				t.Fatalf("%s: row %d = %q, want %q", what, id, g, w)
			}
		}
	}
	check("before", want)
	pagesBefore := h.Snapshot()
	st := h.Vacuum()
	if st.SlotsFreed == 0 || st.Bytes == 0 {
		t.Fatalf("vacuum reclaimed nothing: %+v", st)
	}
	check("after vacuum", want)
	moves := h.Compact()
	remap := map[RowID]RowID{}
	for _, m := range moves {
		remap[m.Old] = m.New
	}
	next := map[RowID][]byte{}
	for id, w := range want {
		if n, ok := remap[id]; ok {
			id = n
		}
		next[id] = w
	}
	check("after full compaction", next)
	after := h.Snapshot()
	if after.NumPages() >= pagesBefore.NumPages() {
		t.Fatalf("full compaction: %d pages, was %d", after.NumPages(), pagesBefore.NumPages())
	}
	t.Logf("vacuum %+v; full compaction %d → %d pages, %d rows moved", st, pagesBefore.NumPages(), after.NumPages(), len(moves))
	after.Release()
	pagesBefore.Release()
}
