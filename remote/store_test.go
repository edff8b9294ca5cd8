package remote

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/s3test"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store/storetest"
)

// newTestClient returns a client of a fresh prefix on srv.
func newTestClient(t *testing.T, srv *s3test.Server, prefix string) *Client {
	t.Helper()
	loc, err := ParseURL(srv.URL(prefix))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(Config{Location: loc, Endpoint: "http://" + srv.Endpoint, Region: "us-east-1", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey, RetryBase: 10 * 1e6})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// remoteBacking: packs on the S3 server; each (re)open is a new Store with
// an empty local cache that knows the packs uploaded so far (what a
// manifest gives), so every read after Reopen is a remote fetch.
type remoteBacking struct {
	srv   *s3test.Server
	c     *Client
	store *Store
}

func (b *remoteBacking) Open(t *testing.T) prolly.NodeStore {
	b.c = newTestClient(t, b.srv, t.Name())
	b.store = NewStore(b.c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	return b.store
}

func (b *remoteBacking) Reopen(t *testing.T) prolly.NodeStore {
	packs := b.store.Packs()
	b.store = NewStore(b.c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	if err := b.store.AddPacks(t.Context(), packs); err != nil {
		t.Fatal(err)
	}
	return b.store
}

// Corrupt flips a byte inside h's body in the gateway's file of its pack.
func (b *remoteBacking) Corrupt(t *testing.T, h addr.Hash) {
	b.store.mu.RLock()
	l, ok := b.store.index[h]
	name := b.store.packs[l.pack].Name
	b.store.mu.RUnlock()
	if !ok {
		t.Fatalf("node %s is in no pack", h.Short())
	}
	path := filepath.Join(b.srv.Dir, b.srv.Bucket, b.c.loc.key(name))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[l.off+int64(l.n)/2] ^= 0x55
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestStoreConformance(t *testing.T) {
	srv := s3test.Start(t)
	storetest.Run(t, func(*testing.T) storetest.Backing { return &remoteBacking{srv: srv} })
	t.Logf("requests: %d PUT, %d GET", srv.Requests("PUT"), srv.Requests("GET"))
}
