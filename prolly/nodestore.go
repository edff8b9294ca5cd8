package prolly

import (
	"context"

	"github.com/sidecar-dev/sidecar/addr"
)

// Hash is the content address of an encoded node (see package addr).
type Hash = addr.Hash

// ErrNotFound is returned by a NodeStore for an address it does not hold.
var ErrNotFound = addr.ErrNotFound

// NodeStore persists encoded nodes by content address and hands back decoded
// nodes. The Badger-backed implementation lives in package store; MemStore is
// the in-memory one used by tests and benchmarks of the tree alone.
//
// Implementations must be safe for concurrent use. A node whose bytes do not
// hash to its address must be reported as an error naming the address, never
// returned.
type NodeStore interface {
	// Get returns the decoded node at h, or an error wrapping ErrNotFound.
	Get(ctx context.Context, h Hash) (*Node, error)
	// GetMany returns the nodes at hs, in the order of hs, fetching in
	// parallel where the implementation can.
	GetMany(ctx context.Context, hs []Hash) ([]*Node, error)
	// Put stores a node: h is addr.Of(data), data its encoding, n its decoded
	// form (kept in the cache; n aliases data). Puts may be buffered; they are
	// visible to Get at once and durable after Flush. The store may retain
	// data and n: the engine never modifies data after Put, and callers of
	// Get must not modify what they get.
	Put(ctx context.Context, h Hash, data []byte, n *Node) error
	// Flush makes every earlier Put durable.
	Flush(ctx context.Context) error
}

// UncachedPutter is implemented by stores that can take a node without
// keeping its decoded form in their cache (store.NodeStore does). Builder
// writes leaves through it: a bulk build's leaves are rarely read again
// soon, and caching them would make the build's memory grow with the cache
// bound instead of staying O(height × node size).
type UncachedPutter interface {
	PutUncached(ctx context.Context, h Hash, data []byte, n *Node) error
}

// UncachedBytesPutter is implemented by stores that can take a node by its
// encoding alone, decoding it only if it is read before it is written
// (store.NodeStore does). Builder writes leaves through it when it can:
// parsing and indexing every leaf it just encoded, for a decoded form
// nobody reads, was ~0.7 s of a 10M-row copy's CPU. data is freshly
// allocated and never modified after the call.
type UncachedBytesPutter interface {
	PutUncachedBytes(ctx context.Context, h Hash, data []byte) error
}
