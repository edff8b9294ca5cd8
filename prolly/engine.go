package prolly

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrSpecMismatch is returned when a Root was built under another Spec than
// the Engine's: its nodes may be valid but their boundaries and digests mean
// something else, so the tree must not be read, diffed or extended.
var ErrSpecMismatch = errors.New("prolly root built under another spec")

// Root is what callers persist to name a tree: the root node's address and
// the SpecID it was built under.
type Root struct {
	Hash Hash
	Spec SpecID
}

// String returns "hash@spec" for logs.
func (r Root) String() string { return r.Hash.Short() + "@" + r.Spec.String() }

// Engine binds a NodeStore to a Spec and a row hash. All tree operations
// (build, read, mutate, diff, merge, digest) are methods on it and take the
// Root to work on; an Engine holds no per-tree state and is safe for
// concurrent use. Trees are immutable: operations that change a tree write
// new nodes and return a new Root.
type Engine struct {
	ns      NodeStore
	spec    Spec
	id      SpecID
	rowHash func(key, value []byte) uint64
	params  *splitParams
	empty   *Node
	emptyH  Hash
	// last is the root node read last: reads mostly go to one version
	// (HEAD), so a descent starts from a pointer instead of a cache lookup
	// and, through the weak pointers nodes keep to their decoded children
	// (Node.kids), reaches the leaf without the store while the nodes on
	// the path are resident. It pins one node: children are weak.
	last atomic.Pointer[pinnedRoot]
}

type pinnedRoot struct {
	h Hash
	n *Node
}

// NewEngine returns an engine over ns. rowHash.ID must equal spec.RowHash.
func NewEngine(ns NodeStore, spec Spec, rowHash RowHash) (*Engine, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if rowHash.ID != spec.RowHash || rowHash.Fn == nil {
		return nil, fmt.Errorf("prolly engine: row hash %q does not match spec row hash %q", rowHash.ID, spec.RowHash)
	}
	data := encodeEmptyLeaf()
	empty, err := parseNode(data)
	if err != nil {
		return nil, fmt.Errorf("prolly engine: empty leaf: %w", err)
	}
	return &Engine{
		ns:      ns,
		spec:    spec,
		id:      spec.ID(),
		rowHash: rowHash.Fn,
		params:  newSplitParams(spec),
		empty:   empty,
		emptyH:  empty.Hash(),
	}, nil
}

// NewDefaultEngine is NewEngine(ns, DefaultSpec(), DefaultRowHash()).
func NewDefaultEngine(ns NodeStore) *Engine {
	e, err := NewEngine(ns, DefaultSpec(), DefaultRowHash())
	if err != nil {
		panic(err) // the default spec is valid by construction
	}
	return e
}

// Spec returns the engine's spec.
func (e *Engine) Spec() Spec { return e.spec }

// SpecID returns the engine's spec id.
func (e *Engine) SpecID() SpecID { return e.id }

// Store returns the node store.
func (e *Engine) Store() NodeStore { return e.ns }

// EmptyRoot returns the root of the empty tree: an empty leaf. It is served
// without touching the store; Build and Mutate also write it when they
// produce it, so every root a caller persists is resolvable in the store.
func (e *Engine) EmptyRoot() Root { return Root{Hash: e.emptyH, Spec: e.id} }

// RowHash returns the row hash of the engine's spec, for callers that digest
// rows outside the tree (verify/).
func (e *Engine) RowHash(key, value []byte) uint64 { return e.rowHash(key, value) }

func (e *Engine) check(r Root) error {
	if r.Spec != e.id {
		return fmt.Errorf("%w: root %s, engine spec %s", ErrSpecMismatch, r, e.id)
	}
	return nil
}

// load returns the node at h.
func (e *Engine) load(ctx context.Context, h Hash) (*Node, error) {
	if h == e.emptyH {
		return e.empty, nil
	}
	n, err := e.ns.Get(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("read node %s: %w", h.Short(), err)
	}
	return n, nil
}

// loadMany returns the nodes at hs, in order, through one NodeStore.GetMany.
func (e *Engine) loadMany(ctx context.Context, hs []Hash) ([]*Node, error) {
	ns, err := e.ns.GetMany(ctx, hs)
	if err != nil {
		return nil, fmt.Errorf("read %d nodes: %w", len(hs), err)
	}
	if len(ns) != len(hs) {
		return nil, fmt.Errorf("read %d nodes: store returned %d", len(hs), len(ns))
	}
	return ns, nil
}

// loadChild reads child i of internal node p and checks that it sits one
// level below it, so that corrupt or mismatched stores cannot send a walk
// into a loop or past a leaf.
func (e *Engine) loadChild(ctx context.Context, p *Node, i int) (*Node, error) {
	if c := p.child(i); c != nil {
		return c, nil
	}
	c, err := e.load(ctx, p.Child(i))
	if err != nil {
		return nil, err
	}
	if c.Level() != p.Level()-1 {
		return nil, fmt.Errorf("node %s: level %d under a level %d parent: %w", p.Child(i).Short(), c.Level(), p.Level(), ErrCorruptNode)
	}
	p.setChild(i, c)
	return c, nil
}

// Unpin forgets the pinned root node (see Engine.last), so that nothing
// decoded survives outside the store's cache: benchmarks of cold reads call
// it together with the store's cache clear.
func (e *Engine) Unpin() { e.last.Store(nil) }

// loadRoot checks r's spec and reads its node.
func (e *Engine) loadRoot(ctx context.Context, r Root) (*Node, error) {
	if err := e.check(r); err != nil {
		return nil, err
	}
	if p := e.last.Load(); p != nil && p.h == r.Hash {
		return p.n, nil
	}
	n, err := e.load(ctx, r.Hash)
	if err != nil {
		return nil, err
	}
	e.last.Store(&pinnedRoot{h: r.Hash, n: n})
	return n, nil
}
