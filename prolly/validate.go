package prolly

import (
	"bytes"
	"context"
	"fmt"
)

// Check walks the whole tree at r and verifies every structural invariant:
// each node hashes to its address and decodes; levels fall by one towards
// the leaves; keys strictly increase across the tree; an internal entry's
// key is its child's last key and its count and digest equal the child's;
// internal nodes hold ≥ 2 entries except the last node of a level; the root
// is canonical (no single-entry internal root); and rebuilding the rows from
// scratch gives the same root hash, which pins every node boundary. It reads
// every node: O(N). Tests run it after every mutation; an fsck can too.
func (e *Engine) Check(ctx context.Context, r Root) error {
	root, err := e.loadRoot(ctx, r)
	if err != nil {
		return err
	}
	if got := root.Hash(); got != r.Hash {
		return fmt.Errorf("check %s: root bytes hash to %s", r, got.Short())
	}
	if !root.IsLeaf() && root.Len() < 2 {
		return fmt.Errorf("check %s: root is an internal node with %d entry", r, root.Len())
	}
	c := &checker{e: e, ctx: ctx, b: e.rebuilder(ctx), single: make(map[int]bool)}
	if _, _, err := c.walk(root, r.Hash); err != nil {
		return fmt.Errorf("check %s: %w", r, err)
	}
	re, err := c.b.Finish()
	if err != nil {
		return fmt.Errorf("check %s: rebuild: %w", r, err)
	}
	if re.Hash != r.Hash {
		return fmt.Errorf("check %s: rebuilding its rows from scratch gives root %s: boundaries are not canonical", r, re.Hash.Short())
	}
	return nil
}

type checker struct {
	e       *Engine
	ctx     context.Context
	b       *Builder
	prev    []byte
	started bool
	single  map[int]bool // a level has had a single-entry internal node
}

// walk checks the subtree at n (address h) and returns its row count and digest.
func (c *checker) walk(n *Node, h Hash) (uint64, uint64, error) {
	if c.single[n.Level()] {
		return 0, 0, fmt.Errorf("node %s follows a single-entry node at level %d", h.Short(), n.Level())
	}
	if !n.IsLeaf() && n.Len() == 1 {
		c.single[n.Level()] = true
	}
	if n.IsLeaf() {
		var digest uint64
		for i := 0; i < n.Len(); i++ {
			k, v := n.Key(i), n.Value(i)
			if c.started && bytes.Compare(c.prev, k) >= 0 {
				return 0, 0, fmt.Errorf("leaf %s: key %x not above previous key %x", h.Short(), k, c.prev)
			}
			c.started = true
			c.prev = append(c.prev[:0], k...)
			digest += c.e.rowHash(k, v)
			if err := c.b.Add(k, v); err != nil {
				return 0, 0, err
			}
		}
		return uint64(n.Len()), digest, nil
	}
	var count, digest uint64
	for i := 0; i < n.Len(); i++ {
		ch := n.Child(i)
		child, err := c.e.loadChild(c.ctx, n, i)
		if err != nil {
			return 0, 0, err
		}
		if got := child.Hash(); got != ch {
			return 0, 0, fmt.Errorf("node %s: bytes hash to %s", ch.Short(), got.Short())
		}
		if child.Len() == 0 {
			return 0, 0, fmt.Errorf("node %s: empty child of %s", ch.Short(), h.Short())
		}
		if !bytes.Equal(child.LastKey(), n.Key(i)) {
			return 0, 0, fmt.Errorf("node %s entry %d: key %x, child's last key %x", h.Short(), i, n.Key(i), child.LastKey())
		}
		cc, cd, err := c.walk(child, ch)
		if err != nil {
			return 0, 0, err
		}
		if cc != n.SubtreeCount(i) || cd != n.SubtreeDigest(i) {
			return 0, 0, fmt.Errorf("node %s entry %d: count/digest %d/%x, child sums %d/%x", h.Short(), i, n.SubtreeCount(i), n.SubtreeDigest(i), cc, cd)
		}
		count += cc
		digest += cd
	}
	return count, digest, nil
}

// rebuilder returns a Builder that computes hashes without storing nodes.
func (e *Engine) rebuilder(ctx context.Context) *Builder {
	scratch := &Engine{ns: discardStore{}, spec: e.spec, id: e.id, rowHash: e.rowHash,
		params: e.params, empty: e.empty, emptyH: e.emptyH}
	return scratch.NewBuilder(ctx)
}

// discardStore accepts writes and forgets them.
type discardStore struct{}

func (discardStore) Get(_ context.Context, h Hash) (*Node, error) {
	return nil, fmt.Errorf("discard store get %s: %w", h.Short(), ErrNotFound)
}
func (discardStore) GetMany(_ context.Context, hs []Hash) ([]*Node, error) {
	return nil, fmt.Errorf("discard store get %d nodes: %w", len(hs), ErrNotFound)
}
func (discardStore) Put(context.Context, Hash, []byte, *Node) error { return nil }
func (discardStore) Flush(context.Context) error                    { return nil }
