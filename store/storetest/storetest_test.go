package storetest_test

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/store/storetest"
)

// memBacking: the store is its own backing; Corrupt flips a byte of the
// stored bytes in place (Get hands out the stored node without Copy), which
// Verify catches.
type memBacking struct{ s *prolly.MemStore }

func (b *memBacking) Open(*testing.T) prolly.NodeStore {
	b.s = prolly.NewMemStore(prolly.MemStoreOptions{Verify: true})
	return b.s
}
func (b *memBacking) Reopen(*testing.T) prolly.NodeStore { return b.s }
func (b *memBacking) Corrupt(t *testing.T, h addr.Hash) {
	n, err := b.s.Get(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	data := n.Bytes()
	data[len(data)-1] ^= 0xff
}

func TestMemStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Backing { return &memBacking{} })
}

// badgerBacking: a data directory; Reopen closes and opens it again;
// Corrupt rewrites the node's value in Badger.
type badgerBacking struct {
	dir string
	db  *store.DB
	ns  *store.NodeStore[*prolly.Node]
}

func (b *badgerBacking) open(t *testing.T) prolly.NodeStore {
	db, err := store.Open(store.Options{Dir: b.dir, CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	b.db = db
	b.ns = store.NewNodeStore[*prolly.Node](db, prolly.NodeCodec{})
	t.Cleanup(func() { b.close(t) })
	return b.ns
}

func (b *badgerBacking) close(t *testing.T) {
	if b.db == nil {
		return
	}
	if err := b.ns.Close(context.Background()); err != nil {
		t.Error(err)
	}
	if err := b.db.Close(); err != nil {
		t.Error(err)
	}
	b.db = nil
}

func (b *badgerBacking) Open(t *testing.T) prolly.NodeStore {
	b.dir = t.TempDir()
	return b.open(t)
}

func (b *badgerBacking) Reopen(t *testing.T) prolly.NodeStore {
	b.close(t)
	return b.open(t)
}

func (b *badgerBacking) Corrupt(t *testing.T, h addr.Hash) {
	key := append([]byte{store.PrefixNode}, h[:]...)
	// Tag 1 (no compression) and bytes that hash elsewhere.
	if err := b.db.Badger().Update(func(txn *badger.Txn) error {
		return txn.Set(key, []byte{1, 'x', 'y', 'z'})
	}); err != nil {
		t.Fatal(err)
	}
}

func TestBadgerStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Backing { return &badgerBacking{} })
}
