package mirror

import (
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestBusy: Busy lists a table from its first copied range until
// TableCopied, and a table marked for a resync (with the LSN its changes
// are held from) until its copy lands; the copy's start is given once it
// began, and a built copy waiting for the stream names the LSN it is held
// until (before session 12 it read as a copy not started yet).
func TestBusy(t *testing.T) {
	h := newMHarness(t, Options{})
	ctx := t.Context()
	rel := testRel(1, "a")
	copyRows := func(rel *wal.Relation, held func()) {
		t.Helper()
		w, err := h.m.CopyRange(ctx, rel, wal.BlockRange{Of: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			vals := make([]wal.Value, len(rel.Columns))
			for c := range vals {
				vals[c] = wal.Value{Kind: wal.Text, Bytes: []byte(strconv.Itoa(i))}
			}
			if err := w.WriteRow(vals); err != nil {
				t.Fatal(err)
			}
		}
		if b := h.m.Busy(); len(b) != 1 || b[0].Table != "public.a" || b[0].CopyStarted.IsZero() {
			t.Fatalf("busy while copying: %+v", b)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		h.lsn += 10
		if err := h.m.TableCopied(ctx, rel, h.lsn); err != nil {
			t.Fatal(err)
		}
		if held != nil {
			held()
		}
		if err := h.m.StreamReached(ctx, h.lsn); err != nil {
			t.Fatal(err)
		}
	}
	if b := h.m.Busy(); len(b) != 0 {
		t.Fatalf("busy before any copy: %+v", b)
	}
	copyRows(rel, nil)
	if b := h.m.Busy(); len(b) != 0 {
		t.Fatalf("busy after the copy: %+v", b)
	}

	// The stream described the table (as copied); then a column is added
	// that no row change carried, and the table is resynced on request.
	if err := h.m.Relation(ctx, rel); err != nil {
		t.Fatal(err)
	}
	head := h.m.Head().EndLSN
	if err := h.m.MarkResync(ctx, "public.a", "test"); err != nil {
		t.Fatal(err)
	}
	b := h.m.Busy()
	if len(b) != 1 || !b[0].Resync || b[0].HeldFrom != head || !b[0].CopyStarted.IsZero() {
		t.Fatalf("busy once marked: %+v (head %s)", b, head)
	}
	added := *rel
	added.Columns = append(append([]wal.Column(nil), rel.Columns...), wal.Column{Name: "c", TypeOID: 25, TypeName: "text", TypeMod: -1})
	copyRows(&added, func() {
		// Built, at h.lsn, past every commit taken: held until the
		// stream reaches it.
		b := h.m.Busy()
		if len(b) != 1 || !b[0].Resync || b[0].HeldFrom != head || b[0].HeldUntil != h.lsn || b[0].CopyStarted.IsZero() {
			t.Fatalf("busy while its copy is held: %+v (copied at %s)", b, h.lsn)
		}
		if ts := h.m.Tables(); len(ts) != 1 || ts[0].State != StateResyncNeeded || ts[0].HeldUntil != h.lsn {
			t.Fatalf("tables while the copy is held: %+v", ts)
		}
	})
	// The stream's last description is the old schema, from before the
	// change: not a newer one, so the table is ready (it used to be marked
	// again, forever).
	if b := h.m.Busy(); len(b) != 0 {
		t.Fatalf("busy after the resync of a change no row carried: %+v", b)
	}
	if ts := h.m.Tables(); len(ts) != 1 || ts[0].State != StateReady || len(ts[0].Relation.Columns) != 4 {
		t.Fatalf("table after the resync: %+v", ts)
	}
}
