package store

import (
	"bytes"
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
)

// PutUncachedBytes nodes (a build's leaves, put without their decoded
// form) are decoded when read while buffered, by Get and GetMany beside
// decoded ones, stay out of the cache, and read back from Badger after
// Flush; a buffered node that does not decode is an error, not a node.
func TestPutUncachedBytes(t *testing.T) {
	db := openTest(t, Options{InMemory: true})
	s := NewNodeStore(db, testCodec{})
	gen := newLeafGen(9, false)
	raw, dec := gen.leaf(), gen.leaf()
	hr, hd := addr.Of(raw), addr.Of(dec)
	if err := s.PutUncachedBytes(t.Context(), hr, raw); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(t.Context(), hd, dec, &testNode{data: dec}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Get(t.Context(), hr); err != nil || n == nil || !bytes.Equal(n.data, raw) {
		t.Fatalf("Get of a buffered node put by its bytes: %v, %v", n, err)
	}
	got, err := s.GetMany(t.Context(), []addr.Hash{hd, hr, hr})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]byte{dec, raw, raw} {
		if got[i] == nil || !bytes.Equal(got[i].data, want) {
			t.Fatalf("GetMany node %d: %v, want its bytes", i, got[i])
		}
	}
	if ok, err := s.Has(t.Context(), hr); err != nil || !ok {
		t.Fatalf("Has of a buffered node put by its bytes: %v, %v", ok, err)
	}
	if got := s.Stats().CacheEntries; got != 1 {
		t.Fatalf("cache holds %d entries after one Put and one PutUncachedBytes, want 1", got)
	}
	// The test codec refuses empty nodes: a buffered one fails its read.
	empty := []byte{}
	he := addr.Of(empty)
	if err := s.PutUncachedBytes(t.Context(), he, empty); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), he); err == nil {
		t.Fatal("Get of a buffered node that does not decode: no error")
	}
	if _, err := s.GetMany(t.Context(), []addr.Hash{hr, he}); err == nil {
		t.Fatal("GetMany of a buffered node that does not decode: no error")
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.ClearCache()
	reads := s.Stats().Reads
	n, err := s.Get(t.Context(), hr)
	if err != nil || !bytes.Equal(n.data, raw) {
		t.Fatalf("Get after Flush: %v", err)
	}
	if got := s.Stats().Reads - reads; got != 1 {
		t.Fatalf("%d reads from Badger after Flush, want 1", got)
	}
	var ce *CorruptError
	if _, err := s.Get(t.Context(), he); err == nil || errors.As(err, &ce) && ce.Hash != he {
		t.Fatalf("Get of the empty node after Flush: %v", err)
	}
}
