package mirror

import (
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestApplyHeldReportsReadErrors: a tree that cannot be read while held
// changes are applied is an error of the store, reported as such; it used
// to be taken for a change made under another schema, and the table was
// silently marked for another resync.
func TestApplyHeldReportsReadErrors(t *testing.T) {
	h := newMHarness(t, Options{})
	rel := testRel(100, "t")
	h.copyTable(rel, map[int64]modelRow{1: {sp("1"), sp("a"), nil}, 2: {sp("2"), sp("b"), nil}}, 1)
	// An update leaving a TOASTed column unchanged: applying it reads the
	// current row.
	vals := modelRow{sp("1"), sp("changed"), nil}.values()
	vals[2] = wal.Value{Kind: wal.Unchanged}
	held := &heldChange{kind: wal.Update, oldKind: wal.NoOld, newVals: vals}
	op := &writeOp{}
	op.set(heldKey("public.t", 1000, 0), held.encode())
	if err := h.m.writeOps([]*writeOp{op}); err != nil {
		t.Fatal(err)
	}
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	tb := h.m.tables["public.t"]
	// A root whose nodes the store does not have.
	lost := prolly.Root{Spec: tb.rec.Root.Spec}
	lost.Hash[0] = 0x5a
	_, err := h.m.applyHeld(h.t.Context(), tb, lost, 0)
	var missing *missingRowError
	if err == nil || errors.As(err, &missing) {
		t.Fatalf("applyHeld on an unreadable tree: %v (want a read error, not a resync)", err)
	}
	// The same change on the real tree applies.
	root, err := h.m.applyHeld(h.t.Context(), tb, tb.rec.Root, 0)
	if err != nil || root == tb.rec.Root {
		t.Fatalf("applyHeld on the copy: %v (root changed: %v)", err, root != tb.rec.Root)
	}
}
