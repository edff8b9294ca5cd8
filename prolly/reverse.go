package prolly

import (
	"bytes"
	"context"
)

// ReverseCursor iterates the rows of one tree in descending key order
// within an optional [start, end) bound: what an ORDER BY key DESC under
// a LIMIT reads (PostgreSQL's Index Scan Backward), each leaf once. Use
// it as Cursor:
//
//	for c.Next() { use(c.Key(), c.Value()) }
//	if err := c.Err(); err != nil { … }
//
// Key and Value alias node memory and must not be modified. It is not
// safe for concurrent use; it holds the context it was opened with.
type ReverseCursor struct {
	e     *Engine
	ctx   context.Context
	stack []frame // root first, leaf last
	start []byte
	fresh bool // positioned on a row Next has not returned yet
	done  bool
	err   error
}

// RangeDesc opens a cursor over the rows with start <= key < end, from
// the largest key down; a nil start or end leaves that side unbounded.
func (e *Engine) RangeDesc(ctx context.Context, r Root, start, end []byte) (*ReverseCursor, error) {
	root, err := e.loadRoot(ctx, r)
	if err != nil {
		return nil, err
	}
	c := &ReverseCursor{e: e, ctx: ctx, start: start}
	c.stack = append(c.stack, frame{n: root})
	if err := c.seekBelow(end); err != nil {
		return nil, err
	}
	return c, nil
}

// seekBelow descends from the root frame to the last row < end (the
// last row when end is nil).
func (c *ReverseCursor) seekBelow(end []byte) error {
	for {
		f := &c.stack[len(c.stack)-1]
		if f.n.Len() == 0 {
			c.done = true // the empty tree
			return nil
		}
		if f.n.IsLeaf() {
			f.i = f.n.Len() - 1
			if end != nil {
				f.i = f.n.search(end, false) - 1 // the first key >= end, then the one before
			}
			if f.i < 0 {
				// Every key of this leaf is >= end: the rows below end,
				// if any, are the previous leaf's.
				if err := c.prevLeaf(); err != nil {
					return err
				}
				if c.done {
					return nil
				}
			}
			c.fresh = true
			c.checkStart()
			return nil
		}
		// A child's separator is its largest key: the first child whose
		// largest key is >= end holds the last keys below end (or none,
		// when its smallest is >= end too: the previous leaf has them).
		f.i = f.n.Len() - 1
		if end != nil {
			if i := f.n.search(end, false); i < f.n.Len() {
				f.i = i
			}
		}
		child, err := c.e.loadChild(c.ctx, f.n, f.i)
		if err != nil {
			return err
		}
		c.stack = append(c.stack, frame{n: child})
	}
}

// checkStart ends the cursor once its row is below start.
func (c *ReverseCursor) checkStart() {
	if c.start != nil && !c.done {
		f := &c.stack[len(c.stack)-1]
		if bytes.Compare(f.n.Key(f.i), c.start) < 0 {
			c.done = true
		}
	}
}

// Next moves to the previous row in key order and reports whether there
// is one.
func (c *ReverseCursor) Next() bool {
	if c.done || c.err != nil {
		return false
	}
	if c.fresh {
		c.fresh = false
		return true
	}
	leaf := &c.stack[len(c.stack)-1]
	leaf.i--
	if leaf.i < 0 {
		if err := c.prevLeaf(); err != nil {
			c.err = err
			return false
		}
	}
	c.checkStart()
	return !c.done
}

// prevLeaf moves the cursor to the last row of the previous leaf, or
// marks it done at the start of the tree.
func (c *ReverseCursor) prevLeaf() error {
	d := len(c.stack) - 2 // deepest internal frame
	for d >= 0 {
		f := &c.stack[d]
		f.i--
		if f.i >= 0 {
			break
		}
		d--
	}
	if d < 0 {
		c.done = true
		return nil
	}
	for ; d < len(c.stack)-1; d++ {
		f := &c.stack[d]
		child, err := c.e.loadChild(c.ctx, f.n, f.i)
		if err != nil {
			return err
		}
		c.stack[d+1] = frame{n: child, i: child.Len() - 1}
	}
	return nil
}

// Key returns the current row's key.
func (c *ReverseCursor) Key() []byte {
	f := &c.stack[len(c.stack)-1]
	return f.n.Key(f.i)
}

// Value returns the current row's value.
func (c *ReverseCursor) Value() []byte {
	f := &c.stack[len(c.stack)-1]
	return f.n.Value(f.i)
}

// Err returns the error that stopped the cursor, if any.
func (c *ReverseCursor) Err() error { return c.err }
