package store

import (
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
)

func TestSweep(t *testing.T) {
	db := openTest(t, Options{})
	s := NewNodeStore(db, testCodec{})
	hs, datas := putNodes(t, s, newLeafGen(41, false), 100)
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	asOf := db.Version()
	live := map[addr.Hash]bool{}
	for _, h := range hs[:50] {
		live[h] = true
	}
	// Re-referenced while "marking": Put again after asOf.
	for i := 50; i < 60; i++ {
		if err := s.Put(t.Context(), hs[i], datas[i], &testNode{data: datas[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, err := s.Sweep(t.Context(), asOf, func(h addr.Hash) bool { return live[h] })
	if err != nil {
		t.Fatal(err)
	}
	if st.Scanned != 100 || st.Kept != 60 || st.Deleted != 40 {
		t.Fatalf("sweep %+v: want 100 scanned, 60 kept, 40 deleted", st)
	}
	for i, h := range hs {
		_, err := s.Get(t.Context(), h)
		switch {
		case i < 60 && err != nil:
			t.Fatalf("node %d kept by the sweep is unreadable: %v", i, err)
		case i >= 60 && !errors.Is(err, addr.ErrNotFound):
			t.Fatalf("node %d swept but Get returned %v (the cache must forget it too)", i, err)
		}
	}
}

// TestSweepKeepsNodesPutDuringSweep puts dead nodes again from inside the
// live callback, i.e. while the sweep runs: before the sweep reaches them
// (they must be skipped) and right after it decided to delete them (they
// must be written back). Either way they must exist afterwards.
func TestSweepKeepsNodesPutDuringSweep(t *testing.T) {
	db := openTest(t, Options{})
	s := NewNodeStore(db, testCodec{})
	hs, datas := putNodes(t, s, newLeafGen(43, false), 200)
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	asOf := db.Version()
	index := map[addr.Hash]int{}
	for i, h := range hs {
		index[h] = i
	}
	reput := func(i int) {
		if err := s.Put(t.Context(), hs[i], datas[i], &testNode{data: datas[i]}); err != nil {
			t.Error(err)
		}
	}
	visited := 0
	prev := -1
	st, err := s.Sweep(t.Context(), asOf, func(h addr.Hash) bool {
		visited++
		if visited == 1 {
			// Nodes the sweep has not reached yet are re-referenced now:
			// it must skip them.
			for j := 100; j < 200; j += 10 {
				reput(j)
			}
		}
		if prev >= 0 && prev%10 == 5 {
			// The node visited just before was judged dead and its
			// delete is queued: re-referenced now, it must be written
			// back after the deletes. Flushing now commits that Put
			// before the queued delete.
			reput(prev)
			if err := s.Flush(t.Context()); err != nil {
				t.Error(err)
			}
		}
		prev = index[h]
		return false
	})
	if prev%10 == 5 {
		reput(prev) // the last node visited: Put after the callback returned
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.Scanned != 200 {
		t.Fatalf("sweep %+v: want 200 scanned", st)
	}
	s.ClearCache()
	for i, h := range hs {
		_, err := s.Get(t.Context(), h)
		wantKept := i%10 == 5 || (i >= 100 && i%10 == 0)
		switch {
		case wantKept && err != nil:
			t.Errorf("node %d, Put during the sweep, is gone: %v", i, err)
		case !wantKept && !errors.Is(err, addr.ErrNotFound):
			t.Errorf("node %d: %v, want swept", i, err)
		}
	}
}
