package prolly

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// bytesStore is a MemStore that also takes nodes by their bytes
// (UncachedBytesPutter), decoding them itself, and counts how each node
// arrived.
type bytesStore struct {
	*MemStore
	byBytes, decoded int
}

func (s *bytesStore) PutUncachedBytes(ctx context.Context, h Hash, data []byte) error {
	n, err := DecodeNode(data)
	if err != nil {
		return fmt.Errorf("bytes put %s: %w", h.Short(), err)
	}
	if !n.IsLeaf() {
		return fmt.Errorf("bytes put %s: level %d node, only leaves come by their bytes", h.Short(), n.Level())
	}
	s.byBytes++
	return s.MemStore.Put(ctx, h, data, n)
}

func (s *bytesStore) Put(ctx context.Context, h Hash, data []byte, n *Node) error {
	s.decoded++
	return s.MemStore.Put(ctx, h, data, n)
}

// TestBuildLeavesByBytes: a store that takes nodes by their bytes gets
// every leaf that way (the builder does not parse what it just encoded,
// issue 24 item 5), except a single-leaf tree's root, and the tree is
// the one a plain store gets, node for node.
func TestBuildLeavesByBytes(t *testing.T) {
	for _, n := range []int{0, 1, 2, 100, 5000, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			m := randModel(rng, n, 10*n+10, 60)
			plain, pms := newTestEngine(t)
			want := m.build(t, plain)
			bs := &bytesStore{MemStore: NewMemStore(MemStoreOptions{Copy: true, Verify: true})}
			e := NewDefaultEngine(bs)
			got := m.build(t, e)
			if got != want {
				t.Fatalf("root %s, want %s (the plain store's)", got.Hash.Short(), want.Hash.Short())
			}
			mustCheck(t, e, got)
			if err := sameModel(contents(t, e, got), m); err != nil {
				t.Fatal(err)
			}
			if got, _ := bs.Len(); got != func() int { n, _ := pms.Len(); return n }() {
				t.Fatalf("%d nodes stored, the plain store's differ", got)
			}
			st, err := e.Stats(t.Context(), got)
			if err != nil {
				t.Fatal(err)
			}
			leaves := st.Nodes[0]
			if leaves > 1 && bs.byBytes != leaves {
				t.Fatalf("%d leaves put by their bytes, want all %d (%d decoded puts)", bs.byBytes, leaves, bs.decoded)
			}
			if leaves <= 1 && bs.byBytes != 0 {
				t.Fatalf("a single-leaf tree's root came by its bytes (%d): it must be put decoded", bs.byBytes)
			}
		})
	}
}
