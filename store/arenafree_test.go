package store

import "testing"

// TestNodeStoreReusesEncodingArenas (issue 24 item 5): the background
// writer encodes every batch into arenas it kept from the batches before
// (once Badger has copied them), instead of a fresh MiB per MiB of
// compressed nodes and at least one per batch and worker: at 10M rows the
// copy's tree allocated 287 MB of them, every page first touched. The
// nodes read back from Badger are exactly those put: no batch's values
// were written over while Badger still held them.
func TestNodeStoreReusesEncodingArenas(t *testing.T) {
	db := openTest(t, Options{PendingBytes: 256 << 10})
	s := NewNodeStore(db, testCodec{})
	hs, datas := putNodes(t, s, newLeafGen(29, false), 4000) // ~15 MiB: ~60 batches
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	made := s.arenas.made.Load()
	t.Logf("%d batches, %d MiB raw, %d MiB stored; %d arenas allocated, %d kept",
		st.Batches, st.BytesRaw>>20, st.BytesStored>>20, made, s.arenas.kept())
	if st.Batches < 40 {
		t.Fatalf("%d batches: the test needs many", st.Batches)
	}
	checkNodes(t, s, hs, datas, "after writes through reused arenas")
	// Without reuse: one per MiB stored and one per batch and worker
	// (~70 here); with it the arenas of the largest batch.
	if limit := int64(arenaKeep); made > limit {
		t.Fatalf("the writer allocated %d arenas for %d batches; want ≤ %d", made, st.Batches, limit)
	}
	if kept := s.arenas.kept(); kept > arenaKeep {
		t.Fatalf("%d arenas kept, past the bound %d", kept, arenaKeep)
	}
}
