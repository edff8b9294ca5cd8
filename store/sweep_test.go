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
