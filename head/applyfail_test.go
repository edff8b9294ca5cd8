package head

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// An Apply that fails between the tables of one batch (the first table
// applied, the second not) leaves the model at no single version: it must
// be marked unusable — nothing served at any version, no checkpoint, no
// further batch — and, once Reset and subscribed again, rebuilt from the
// trees equal to them.
func TestApplyFailedPartWayMarksTheModelUnusable(t *testing.T) {
	f := openFeed(t)
	a, b := relation(1, "a"), relation(2, "b")
	rows := map[int]int{}
	for i := range 100 {
		rows[i] = i
	}
	mod, sub := f.subscribeModel(t)
	f.copyTable(a, rows)
	f.copyTable(b, rows)
	f.commit([]wal.Change{{Kind: wal.Update, Relation: a, New: vals(1, 1000, "x")}})
	f.waitDelivered(sub)
	good := mod.LSN()
	key := func(table string, id int) []byte {
		tr, err := f.m.TreeAt(t.Context(), table, f.m.Head().EndLSN)
		if err != nil {
			t.Fatal(err)
		}
		k, err := tr.Codec.Encode(strconv.Itoa(id))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, name := range []string{"public.a", "public.b"} {
		if _, found, err := mod.Get(name, key(name, 1), good, nil); err != nil || !found {
			t.Fatalf("before the failure: get %s at %s: found=%v %v", name, good, found, err)
		}
	}

	// One transaction changing a and b; the apply fails at b, after a.
	injected := errors.New("injected apply failure")
	mod.SetApplyFault(func(table string, _ wal.LSN) error {
		if table == "public.b" {
			return injected
		}
		return nil
	})
	f.commit([]wal.Change{
		{Kind: wal.Update, Relation: a, New: vals(2, 2000, "y")},
		{Kind: wal.Update, Relation: b, New: vals(2, 2000, "y")},
	})
	waitStopped(t, f, sub)
	if err := sub.Err(); !errors.Is(err, injected) {
		t.Fatalf("subscription error %v, want the injected one", err)
	}
	if !mod.Unusable() {
		t.Fatal("a batch applied to one of its two tables did not mark the model unusable")
	}
	// Nothing is served, at the last good version or later, by any path.
	for _, name := range []string{"public.a", "public.b"} {
		for _, at := range []wal.LSN{good, f.m.Head().EndLSN} {
			if _, _, err := mod.Get(name, key(name, 1), at, nil); !errors.Is(err, ErrNotAtVersion) {
				t.Errorf("get %s at %s after the failure: %v, want ErrNotAtVersion", name, at, err)
			}
			if snap, _, err := mod.SnapshotAt(name, at); !errors.Is(err, ErrNotAtVersion) {
				if snap != nil {
					snap.Release()
				}
				t.Errorf("snapshot of %s at %s after the failure: %v, want ErrNotAtVersion", name, at, err)
			}
			ht, ok := mod.HeadTable(name)
			if ok {
				if _, _, served := ht.HeadGet(key(name, 1), at, nil); served {
					t.Errorf("HeadGet of %s at %s served after the failure", name, at)
				}
			}
		}
	}
	if _, err := mod.Checkpoint(); !errors.Is(err, ErrUnusable) {
		t.Errorf("checkpoint of an unusable model: %v, want ErrUnusable", err)
	}

	// Reset and subscribed again: rebuilt from the trees, equal to them,
	// served again.
	mod.SetApplyFault(nil)
	mod.Reset()
	if mod.Unusable() || len(mod.Tables()) != 0 || mod.LSN() != 0 {
		t.Fatalf("after Reset: unusable=%v tables %v lsn %s", mod.Unusable(), mod.Tables(), mod.LSN())
	}
	sub2, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	f.waitDelivered(sub2)
	if n, err := mod.Compare(t.Context(), f.m); err != nil || n != 200 {
		t.Fatalf("rebuilt model against the trees: %d rows, %v", n, err)
	}
	for _, name := range []string{"public.a", "public.b"} {
		row, found, err := mod.Get(name, key(name, 2), mod.LSN(), nil)
		if err != nil || !found {
			t.Fatalf("rebuilt: get %s: found=%v %v", name, found, err)
		}
		tr, err := f.m.TreeAt(t.Context(), name, f.m.Head().EndLSN)
		if err != nil {
			t.Fatal(err)
		}
		want, ok, err := tr.Get(t.Context(), "2")
		if err != nil || !ok || string(want) != string(row) {
			t.Fatalf("rebuilt: get %s 2: model %x, tree %x", name, row, want)
		}
	}
}

// A failure before the batch changed anything (at its first table) leaves
// the model usable: a new subscription brings it forward by a diff.
func TestApplyFailedBeforeAnyChangeKeepsTheModel(t *testing.T) {
	f := openFeed(t)
	a := relation(1, "a")
	mod, sub := f.subscribeModel(t)
	f.copyTable(a, map[int]int{1: 1, 2: 2})
	f.waitDelivered(sub)
	mod.SetApplyFault(func(string, wal.LSN) error { return errors.New("injected") })
	f.commit([]wal.Change{{Kind: wal.Update, Relation: a, New: vals(1, 10, "x")}})
	waitStopped(t, f, sub)
	if mod.Unusable() {
		t.Fatal("a batch that changed nothing marked the model unusable")
	}
	mod.SetApplyFault(nil)
	sub2, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	f.waitDelivered(sub2)
	if n, err := mod.Compare(t.Context(), f.m); err != nil || n != 2 {
		t.Fatalf("model against the trees: %d rows, %v", n, err)
	}
}

// waitStopped syncs the mirror and waits for sub to stop on its failure.
func waitStopped(t *testing.T, f *feed, sub *mirror.Subscription) {
	t.Helper()
	if err := f.m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.Done():
	case <-time.After(time.Minute):
		t.Fatal("the subscription did not stop after the failed apply")
	}
}
