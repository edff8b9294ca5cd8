package mirror

import (
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestRedeliveredTransactionKeepsHeldChanges: a large transaction on a
// table waiting for its resync (its changes held, flushed to Badger as
// they come) is delivered a second time after it committed. Ignoring the
// second delivery must not delete the held changes the first one wrote
// under the same keys (discardTxn did).
func TestRedeliveredTransactionKeepsHeldChanges(t *testing.T) {
	h := newMHarness(t, Options{GroupMaxRows: 500, GroupMaxAge: time.Hour})
	rel := testRel(100, "t")
	h.copyTable(rel, map[int64]modelRow{1: {sp("1"), sp("a"), nil}}, 1)
	if err := h.m.MarkResync(h.t.Context(), "public.t", "test"); err != nil {
		t.Fatal(err)
	}
	deliver := func(info wal.TxnInfo) error {
		if err := h.m.Begin(h.t.Context(), wal.TxnInfo{Xid: info.Xid, CommitLSN: info.CommitLSN, CommitTime: info.CommitTime}); err != nil {
			return err
		}
		for id := range heldFlushAt + 10 {
			h.change(&wal.Change{Kind: wal.Insert, Relation: rel, New: modelRow{sp(strconv.Itoa(id + 2)), sp("x"), nil}.values()})
		}
		return h.m.Commit(h.t.Context(), info)
	}
	info := h.begin()
	if err := h.m.Abort(h.t.Context(), info); err != nil { // h.begin opened one; start over through deliver
		t.Fatal(err)
	}
	if err := deliver(info); err != nil {
		t.Fatal(err)
	}
	h.lsn = info.EndLSN
	if err := h.m.Sync(h.t.Context()); err != nil {
		t.Fatal(err)
	}
	before, err := h.m.keysUnder(heldPrefix("public.t"))
	if err != nil || len(before) != heldFlushAt+10 {
		t.Fatalf("%d held records after the commit (%v), want %d", len(before), err, heldFlushAt+10)
	}
	if err := deliver(info); err != nil { // the same transaction again
		t.Fatal(err)
	}
	if err := h.m.Sync(h.t.Context()); err != nil {
		t.Fatal(err)
	}
	after, err := h.m.keysUnder(heldPrefix("public.t"))
	if err != nil || len(after) != len(before) {
		t.Fatalf("%d held records after the second delivery (%v), want %d", len(after), err, len(before))
	}
}
