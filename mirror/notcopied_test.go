package mirror

import (
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadBeforeTableCopied: a table followed from a later version (added
// while the mirror runs) read at a version before its copy is refused
// with NotCopiedYetError — SQLSTATE 55000 on the SQL port, which answered
// 42P01 "relation does not exist" for a table that may well have existed
// on the server then — and still wraps ErrUnknownTable for the callers
// that treat it as one. At and after the copy it reads.
func TestReadBeforeTableCopied(t *testing.T) {
	h := newMHarness(t, Options{})
	first := testRel(7, "first")
	h.copyTable(first, map[int64]modelRow{1: {sp("1"), sp("a"), nil}}, 1)
	info := h.begin()
	h.change(&wal.Change{Kind: wal.Insert, Relation: first, New: modelRow{sp("2"), sp("b"), nil}.values()})
	h.commit(info)
	before := info.EndLSN

	later := testRel(8, "later")
	h.copyTable(later, map[int64]modelRow{1: {sp("1"), sp("x"), nil}}, 1)
	info = h.begin()
	h.change(&wal.Change{Kind: wal.Insert, Relation: later, New: modelRow{sp("2"), sp("y"), nil}.values()})
	h.commit(info)

	_, err := h.m.TreeAt(t.Context(), "public.later", before)
	var nc *NotCopiedYetError
	if !errors.As(err, &nc) || nc.Table != "public.later" || nc.Version != before || nc.SQLState() != "55000" {
		t.Fatalf("read of public.later before its copy: %v (%T), want a NotCopiedYetError at %s", err, err, before)
	}
	if !errors.Is(err, ErrUnknownTable) {
		t.Errorf("NotCopiedYetError does not wrap ErrUnknownTable: %v", err)
	}
	if got := h.treeRows("public.later", info.EndLSN); len(got) != 2 {
		t.Errorf("public.later after its copy: %v", got)
	}
	if got := h.treeRows("public.first", before); len(got) != 2 {
		t.Errorf("public.first at %s: %v", before, got)
	}
}
