package prolly

import (
	"bytes"
	"context"
	"fmt"
)

// Get returns the value stored under key. The value aliases node memory and
// must not be modified; it stays valid (nodes are immutable).
func (e *Engine) Get(ctx context.Context, r Root, key []byte) ([]byte, bool, error) {
	n, err := e.loadRoot(ctx, r)
	if err != nil {
		return nil, false, err
	}
	for !n.IsLeaf() {
		i := n.search(key, false)
		if i == n.Len() {
			return nil, false, nil
		}
		if n, err = e.loadChild(ctx, n, i); err != nil {
			return nil, false, err
		}
	}
	i := n.search(key, false)
	if i < n.Len() && bytes.Equal(n.Key(i), key) {
		return n.Value(i), true, nil
	}
	return nil, false, nil
}

// Count returns the number of rows of the tree, in one node read.
func (e *Engine) Count(ctx context.Context, r Root) (uint64, error) {
	n, err := e.loadRoot(ctx, r)
	if err != nil {
		return 0, err
	}
	return n.TreeCount(), nil
}

// GetMany looks up keys, which must be sorted (ascending, duplicates
// allowed), and calls fn(i, value, found) for each keys[i] in order. It walks
// the tree level by level, reading each distinct node once and each level's
// nodes in one NodeStore.GetMany, so a store can fetch leaves in parallel.
// Values alias node memory and must not be modified.
func (e *Engine) GetMany(ctx context.Context, r Root, keys [][]byte, fn func(i int, value []byte, found bool) error) error {
	for i := 1; i < len(keys); i++ {
		if bytes.Compare(keys[i-1], keys[i]) > 0 {
			return fmt.Errorf("get many: key %d (%x) below key %d: %w", i, keys[i], i-1, ErrUnsorted)
		}
	}
	root, err := e.loadRoot(ctx, r)
	if err != nil {
		return err
	}
	// group: keys[lo:hi] all fall inside node n.
	type group struct {
		n      *Node
		lo, hi int
	}
	groups := []group{{root, 0, len(keys)}}
	var next []group
	var hs []Hash
	for len(groups) > 0 && !groups[0].n.IsLeaf() {
		next, hs = next[:0], hs[:0]
		var pending []group // children named by hs, n filled in after the read
		for _, g := range groups {
			i := 0
			for k := g.lo; k < g.hi; {
				i += g.n.searchFrom(i, keys[k])
				if i == g.n.Len() {
					break // keys[k:g.hi] are above the tree's last key: absent
				}
				last := g.n.Key(i)
				end := k + 1
				for end < g.hi && bytes.Compare(keys[end], last) <= 0 {
					end++
				}
				pending = append(pending, group{lo: k, hi: end})
				hs = append(hs, g.n.Child(i))
				k = end
			}
		}
		nodes, err := e.loadMany(ctx, hs)
		if err != nil {
			return err
		}
		level := groups[0].n.Level()
		for j := range pending {
			if nodes[j].Level() != level-1 {
				return fmt.Errorf("node %s: level %d under a level %d parent: %w", hs[j].Short(), nodes[j].Level(), level, ErrCorruptNode)
			}
			pending[j].n = nodes[j]
			next = append(next, pending[j])
		}
		groups, next = next, groups
	}
	k := 0
	for _, g := range groups {
		for ; k < g.lo; k++ {
			if err := fn(k, nil, false); err != nil {
				return err
			}
		}
		i := 0
		for ; k < g.hi; k++ {
			i += g.n.searchFrom(i, keys[k])
			var err error
			if i < g.n.Len() && bytes.Equal(g.n.Key(i), keys[k]) {
				err = fn(k, g.n.Value(i), true)
			} else {
				err = fn(k, nil, false)
			}
			if err != nil {
				return err
			}
		}
	}
	for ; k < len(keys); k++ {
		if err := fn(k, nil, false); err != nil {
			return err
		}
	}
	return nil
}

// searchFrom is search(key, false) restricted to entries from i on; it
// returns the offset from i.
func (n *Node) searchFrom(i int, key []byte) int {
	if i < n.n && bytes.Compare(n.Key(i), key) >= 0 {
		return 0 // sorted probes usually stay in place
	}
	if n.pfx != nil {
		return n.searchIndexed(i, key, false) - i
	}
	lo, hi := i, n.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(n.Key(m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - i
}

type frame struct {
	n *Node
	i int
	// pre holds children i+1 … of an internal frame read ahead in one
	// GetMany (scans only); preFrom is the child index of pre[0].
	pre     []*Node
	preFrom int
}

// prefetch is how many leaves a scanning cursor reads ahead in one GetMany.
const prefetch = 32

// Cursor iterates the rows of one tree in key order, forward, within an
// optional [start, end) bound. Use it as
//
//	for c.Next() { use(c.Key(), c.Value()) }
//	if err := c.Err(); err != nil { … }
//
// Key and Value alias node memory and must not be modified. A Cursor is not
// safe for concurrent use; it holds the context it was opened with.
type Cursor struct {
	e      *Engine
	ctx    context.Context
	stack  []frame // root first, leaf last
	end    []byte
	hasEnd bool
	fresh  bool // positioned on a row Next has not returned yet
	done   bool
	err    error
}

// Range opens a cursor over the rows with start <= key < end; a nil start or
// end leaves that side unbounded.
func (e *Engine) Range(ctx context.Context, r Root, start, end []byte) (*Cursor, error) {
	root, err := e.loadRoot(ctx, r)
	if err != nil {
		return nil, err
	}
	c := &Cursor{e: e, ctx: ctx, end: end, hasEnd: end != nil}
	c.stack = append(c.stack, frame{n: root})
	if err := c.seek(start); err != nil {
		return nil, err
	}
	return c, nil
}

// At opens a cursor on the row at position offset (0-based, in key order),
// in O(height) node reads using subtree counts. A cursor at offset ≥ Count
// is exhausted.
func (e *Engine) At(ctx context.Context, r Root, offset uint64) (*Cursor, error) {
	n, err := e.loadRoot(ctx, r)
	if err != nil {
		return nil, err
	}
	c := &Cursor{e: e, ctx: ctx}
	if offset >= n.TreeCount() {
		c.stack = append(c.stack, frame{n: n, i: n.Len()})
		c.done = true
		return c, nil
	}
	for !n.IsLeaf() {
		i := 0
		for ; i < n.Len()-1; i++ {
			sc := n.SubtreeCount(i)
			if offset < sc {
				break
			}
			offset -= sc
		}
		c.stack = append(c.stack, frame{n: n, i: i})
		if n, err = e.loadChild(ctx, n, i); err != nil {
			return nil, err
		}
	}
	c.stack = append(c.stack, frame{n: n, i: int(offset)})
	c.fresh = true
	return c, nil
}

// Seek repositions the cursor on the first row with key >= key (within the
// end bound); the next call to Next returns it.
func (c *Cursor) Seek(key []byte) error {
	if c.err != nil {
		return c.err
	}
	c.stack = c.stack[:1]
	c.stack[0].i, c.stack[0].pre = 0, nil
	c.done, c.fresh = false, false
	if err := c.seek(key); err != nil {
		c.err = err
		return err
	}
	return nil
}

// seek descends from the root frame to the first row >= key.
func (c *Cursor) seek(key []byte) error {
	for {
		f := &c.stack[len(c.stack)-1]
		f.i = 0
		if key != nil {
			f.i = f.n.search(key, false)
		}
		if f.i == f.n.Len() {
			c.done = true // every key is below key
			return nil
		}
		if f.n.IsLeaf() {
			c.fresh = true
			c.checkEnd()
			return nil
		}
		child, err := c.e.loadChild(c.ctx, f.n, f.i)
		if err != nil {
			return err
		}
		c.stack = append(c.stack, frame{n: child})
	}
}

func (c *Cursor) checkEnd() {
	if c.hasEnd && !c.done {
		f := &c.stack[len(c.stack)-1]
		if bytes.Compare(f.n.Key(f.i), c.end) >= 0 {
			c.done = true
		}
	}
}

// Next moves to the next row and reports whether there is one.
func (c *Cursor) Next() bool {
	if c.done || c.err != nil {
		return false
	}
	if c.fresh {
		c.fresh = false
		return true
	}
	leaf := &c.stack[len(c.stack)-1]
	leaf.i++
	if leaf.i < leaf.n.Len() {
		c.checkEnd()
		return !c.done
	}
	if err := c.nextLeaf(); err != nil {
		c.err = err
		return false
	}
	if !c.done {
		c.checkEnd()
	}
	return !c.done
}

// nextLeaf moves the cursor to the first row of the next leaf, or marks it
// done at the end of the tree.
func (c *Cursor) nextLeaf() error {
	d := len(c.stack) - 2 // deepest internal frame
	for d >= 0 {
		f := &c.stack[d]
		f.i++
		if f.i < f.n.Len() {
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
		child, err := c.child(f)
		if err != nil {
			return err
		}
		c.stack[d+1] = frame{n: child}
	}
	return nil
}

// child returns child f.i, reading ahead a batch of leaves when f is a
// level-1 node and the cursor is scanning.
func (c *Cursor) child(f *frame) (*Node, error) {
	if k := f.i - f.preFrom; k >= 0 && k < len(f.pre) {
		return f.pre[k], nil
	}
	if f.n.Level() != 1 {
		return c.e.loadChild(c.ctx, f.n, f.i)
	}
	hs := make([]Hash, 0, prefetch)
	for j := f.i; j < f.n.Len() && len(hs) < prefetch; j++ {
		if c.hasEnd && j > f.i && bytes.Compare(f.n.Key(j-1), c.end) >= 0 {
			break // leaves from here on start at or past end
		}
		hs = append(hs, f.n.Child(j))
	}
	nodes, err := c.e.loadMany(c.ctx, hs)
	if err != nil {
		return nil, err
	}
	for j, n := range nodes {
		if !n.IsLeaf() {
			return nil, fmt.Errorf("node %s: level %d under a level 1 parent: %w", hs[j].Short(), n.Level(), ErrCorruptNode)
		}
	}
	f.pre, f.preFrom = nodes, f.i
	return nodes[0], nil
}

// Key returns the current row's key.
func (c *Cursor) Key() []byte {
	f := &c.stack[len(c.stack)-1]
	return f.n.Key(f.i)
}

// Value returns the current row's value.
func (c *Cursor) Value() []byte {
	f := &c.stack[len(c.stack)-1]
	return f.n.Value(f.i)
}

// Err returns the error that stopped the cursor, if any.
func (c *Cursor) Err() error { return c.err }
