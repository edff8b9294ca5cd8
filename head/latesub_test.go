package head

import (
	"testing"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// A model subscribed after the initial copy, before any commit (the
// daemon subscribes it in the background once its listeners are up, so
// this happens on a restart of a mirror that has only its copy): the
// copy's reset batch was never offered to it; the catch-up at head 0 must
// send the table whole, and a later commit must change that table, not
// build one of the commit's rows alone (the model refuses edits of a
// table it never received whole).
func TestSubscribeAfterCopyBeforeFirstCommit(t *testing.T) {
	f := openFeed(t)
	rel := relation(16400, "acct")
	rows := map[int]int{}
	for i := 1; i <= 500; i++ {
		rows[i] = i
	}
	f.copyTable(rel, rows)
	if err := f.m.SetResumeLSN(t.Context(), f.lsn); err != nil {
		t.Fatal(err)
	}
	mod := New(Options{})
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	f.waitDelivered(sub)
	if n := mod.Len("public.acct"); n != 500 {
		t.Fatalf("after the catch-up the model holds %d rows, want the copy's 500", n)
	}
	f.commit([]wal.Change{{Kind: wal.Update, Relation: rel, New: vals(7, 70, "seven")}})
	f.waitDelivered(sub)
	if n := mod.Len("public.acct"); n != 500 {
		t.Fatalf("after a commit the model holds %d rows, want 500", n)
	}
	if err := sub.Err(); err != nil {
		t.Fatal(err)
	}
}
