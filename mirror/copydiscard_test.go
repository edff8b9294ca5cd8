package mirror

import (
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestDiscardCopy: ranges closed by a copy that is then discarded (the
// table changed after its snapshot, issue 21 item 1) leave nothing behind:
// the next copy of the table holds only its own rows, and the table is
// no longer busy meanwhile.
func TestDiscardCopy(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(1, "a")
	rows := func(from, n int) [][]wal.Value {
		var out [][]wal.Value
		for i := from; i < from+n; i++ {
			vals := make([]wal.Value, len(rel.Columns))
			for c := range vals {
				vals[c] = wal.Value{Kind: wal.Text, Bytes: []byte(strconv.Itoa(i))}
			}
			out = append(out, vals)
		}
		return out
	}
	// The first copy closes one of its two ranges, then is discarded.
	w, err := h.m.CopyRange(t.Context(), rel, wal.BlockRange{Index: 0, Of: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows(0, 50) {
		if err := w.WriteRow(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h.m.DiscardCopy(rel)
	if b := h.m.Busy(); len(b) != 0 {
		t.Fatalf("busy after the copy was discarded: %+v", b)
	}
	// The next copy, under another snapshot, has other rows.
	want := rows(100, 7)
	got := copyRows(t, h, rel, want, 2, func(i int) int { return i % 2 })
	if ref := referenceRoot(t, h.m, rel, want); got != ref {
		t.Fatalf("root after a discarded copy %v, want the new copy's rows only %v", got, ref)
	}
}
