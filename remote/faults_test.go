package remote

import (
	"fmt"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/s3test"
	"github.com/sidecar-dev/sidecar/prolly"
)

// buildTree writes n keys through ns and returns the root and its leaves.
func buildTree(t *testing.T, ns prolly.NodeStore, n int) (prolly.Root, []addr.Hash) {
	t.Helper()
	e := prolly.NewDefaultEngine(ns)
	b := e.NewBuilder(t.Context())
	for i := range n {
		if err := b.Add(fmt.Appendf(nil, "k%08d", i), fmt.Appendf(nil, "value %d", i*7)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	var leaves []addr.Hash
	if err := e.Walk(t.Context(), r, func(h addr.Hash, level int) (bool, error) {
		if level == 0 {
			leaves = append(leaves, h)
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	return r, leaves
}

// TestStoreFaults uploads through injected 503s, reads through a server
// restart and more 503s, and fetches a pack's leaves in few ranged GETs.
func TestStoreFaults(t *testing.T) {
	srv := s3test.Start(t)
	c := newTestClient(t, srv, "faults")
	s := NewStore(c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	r, leaves := buildTree(t, s, 20000)
	srv.FailNext(3)
	puts := srv.Requests("PUT")
	if err := s.Flush(t.Context()); err != nil {
		t.Fatalf("flush through 3 injected 503s: %v", err)
	}
	if got := srv.Requests("PUT") - puts; got != 4 {
		t.Fatalf("%d PUT requests for one pack through 3 failures, want 4", got)
	}
	if st := s.Stats(); st.Packs != 1 {
		t.Fatalf("%d packs after one flush", st.Packs)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	r2 := NewStore(c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	srv.FailNext(2)
	if err := r2.AddPacks(t.Context(), s.Packs()); err != nil {
		t.Fatal(err)
	}
	gets := srv.Requests("GET")
	got, err := r2.GetMany(t.Context(), leaves)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range leaves {
		if addr.Of(got[i].Bytes()) != h {
			t.Fatalf("leaf %d wrong", i)
		}
	}
	ranged := srv.Requests("GET") - gets
	t.Logf("%d leaves of one pack (%d bytes) in %d ranged GETs", len(leaves), s.Packs()[0].Bytes, ranged)
	if ranged > 2 {
		t.Fatalf("%d ranged GETs for the leaves of one pack, want neighbours merged into 1", ranged)
	}
	n, err := prolly.NewDefaultEngine(r2).Count(t.Context(), r)
	if err != nil || n != 20000 {
		t.Fatalf("count after restart: %d, %v", n, err)
	}
	// A server that stays down: the error names the object, after retries.
	srv.FailNext(100)
	r3 := NewStore(c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	if err := r3.AddPacks(t.Context(), s.Packs()); err == nil {
		t.Fatal("AddPacks succeeded against a server answering only 503")
	} else {
		t.Logf("down server: %v", err)
	}
	srv.FailNext(0)
}
