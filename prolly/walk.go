package prolly

import (
	"context"
	"fmt"
)

// Walk calls visit with the address and level of every node reachable from
// r, each parent before its children. When visit returns false for a node,
// Walk does not descend into it: a mark phase of garbage collection returns
// false for nodes it has already marked, so subtrees shared between versions
// are walked once. Leaves are visited by address from their parent's entries
// and never read, so a walk reads only internal nodes (about 1/70 of a tree
// of small rows); each node's children are read in one GetMany.
func (e *Engine) Walk(ctx context.Context, r Root, visit func(h Hash, level int) (bool, error)) error {
	root, err := e.loadRoot(ctx, r)
	if err != nil {
		return err
	}
	descend, err := visit(r.Hash, root.Level())
	if err != nil || !descend {
		return err
	}
	return e.walk(ctx, root, visit)
}

func (e *Engine) walk(ctx context.Context, n *Node, visit func(Hash, int) (bool, error)) error {
	if n.IsLeaf() {
		return nil
	}
	var next []Hash
	for i := 0; i < n.Len(); i++ {
		h := n.Child(i)
		descend, err := visit(h, n.Level()-1)
		if err != nil {
			return err
		}
		if descend && n.Level() > 1 {
			next = append(next, h)
		}
	}
	if len(next) == 0 {
		return nil
	}
	children, err := e.loadMany(ctx, next)
	if err != nil {
		return err
	}
	for i, c := range children {
		if c.Level() != n.Level()-1 {
			return fmt.Errorf("node %s: level %d under a level %d parent: %w", next[i].Short(), c.Level(), n.Level(), ErrCorruptNode)
		}
		if err := e.walk(ctx, c, visit); err != nil {
			return err
		}
	}
	return nil
}
