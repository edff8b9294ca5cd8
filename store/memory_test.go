package store

import "testing"

// TestDBMemoryCountsNodeStores: DB.Memory sums the caches and buffers of
// the node stores open on it, and stops counting one at Close.
func TestDBMemoryCountsNodeStores(t *testing.T) {
	db := openTest(t, Options{CacheBytes: 4 << 20})
	a := NewNodeStore(db, testCodec{})
	b := NewNodeStore(db, testCodec{})
	if m := db.Memory(); m.NodeStores != 2 || m.CacheCapacity != 8<<20 {
		t.Fatalf("two stores: %+v", m)
	}
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if m := db.Memory(); m.NodeStores != 1 || m.CacheCapacity != 4<<20 {
		t.Fatalf("after a Close: %+v", m)
	}
	if err := b.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
}
