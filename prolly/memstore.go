package prolly

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sidecar-dev/sidecar/addr"
)

// MemStoreOptions tune MemStore for tests.
type MemStoreOptions struct {
	// Copy makes Get and GetMany return a node freshly decoded from a copy of
	// the stored bytes, so callers that hold on to or scribble over returned
	// memory cannot affect the store, and no caller can rely on getting the
	// same *Node twice.
	Copy bool
	// Verify re-hashes the stored bytes on every read and fails if they no
	// longer match their address: it catches writers that modify a buffer
	// after handing it to Put.
	Verify bool
}

// MemStore is an in-memory NodeStore, safe for concurrent use. It counts
// reads and writes so tests and benchmarks can assert costs.
type MemStore struct {
	opts   MemStoreOptions
	mu     sync.RWMutex
	nodes  map[Hash]*Node
	bytes  int64
	reads  atomic.Int64
	writes atomic.Int64
}

// NewMemStore returns an empty store.
func NewMemStore(opts MemStoreOptions) *MemStore {
	return &MemStore{opts: opts, nodes: make(map[Hash]*Node)}
}

// Get returns the node at h or an error wrapping ErrNotFound.
func (s *MemStore) Get(ctx context.Context, h Hash) (*Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.reads.Add(1)
	s.mu.RLock()
	n, ok := s.nodes[h]
	s.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("memstore get %s: %w", h.Short(), ErrNotFound)
	}
	if s.opts.Verify && addr.Of(n.Bytes()) != h {
		return nil, fmt.Errorf("memstore get %s: stored bytes no longer hash to their address: %w", h.Short(), ErrCorruptNode)
	}
	if s.opts.Copy {
		c, err := DecodeNode(bytes.Clone(n.Bytes()))
		if err != nil {
			return nil, fmt.Errorf("memstore get %s: %w", h.Short(), err)
		}
		return c, nil
	}
	return n, nil
}

// GetMany returns the nodes at hs in order.
func (s *MemStore) GetMany(ctx context.Context, hs []Hash) ([]*Node, error) {
	out := make([]*Node, len(hs))
	for i, h := range hs {
		n, err := s.Get(ctx, h)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// Put stores n under h. It retains data (the NodeStore contract forbids
// modifying it afterwards) and checks that h is data's address.
func (s *MemStore) Put(ctx context.Context, h Hash, data []byte, n *Node) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.opts.Verify && addr.Of(data) != h {
		return fmt.Errorf("memstore put %s: bytes hash to %s", h.Short(), addr.Of(data).Short())
	}
	s.writes.Add(1)
	s.mu.Lock()
	if _, ok := s.nodes[h]; !ok {
		s.nodes[h] = n
		s.bytes += int64(len(data))
	}
	s.mu.Unlock()
	return nil
}

// Flush does nothing: memory is as durable as MemStore gets.
func (s *MemStore) Flush(context.Context) error { return nil }

// Reads returns the number of nodes read so far (Get, and each node of GetMany).
func (s *MemStore) Reads() int64 { return s.reads.Load() }

// Writes returns the number of Put calls so far.
func (s *MemStore) Writes() int64 { return s.writes.Load() }

// ResetCounters zeroes Reads and Writes.
func (s *MemStore) ResetCounters() { s.reads.Store(0); s.writes.Store(0) }

// Len returns the number of distinct nodes held, and their encoded bytes.
func (s *MemStore) Len() (nodes int, bytes int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.nodes), s.bytes
}
