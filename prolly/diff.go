package prolly

import (
	"bytes"
	"context"
	"fmt"
)

// DiffKind says how a key differs between two trees.
type DiffKind uint8

// Kinds of difference.
const (
	Added   DiffKind = iota + 1 // only in to
	Removed                     // only in from
	Changed                     // in both, with different values
)

// String returns "added", "removed" or "changed".
func (k DiffKind) String() string {
	switch k {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Changed:
		return "changed"
	}
	return fmt.Sprintf("DiffKind(%d)", uint8(k))
}

// DiffEntry is one difference. From is the value in the from tree (nil when
// Added), To the value in the to tree (nil when Removed). Key and values
// alias node memory and must not be modified.
type DiffEntry struct {
	Kind     DiffKind
	Key      []byte
	From, To []byte
}

// DiffOptions restricts a diff to keys in [Start, End); nil leaves a side
// unbounded.
type DiffOptions struct {
	Start, End []byte
}

// Diff streams the differences between from and to in key order. It walks
// both trees together and, whenever both sides stand at the start of
// subtrees with the same address, skips them without reading them: the cost
// is O(k · height) node reads for k changed regions, independent of the
// trees' size.
func (e *Engine) Diff(ctx context.Context, from, to Root, opts DiffOptions) (*DiffIter, error) {
	if err := e.check(from); err != nil {
		return nil, err
	}
	if err := e.check(to); err != nil {
		return nil, err
	}
	d := &DiffIter{end: opts.End, hasEnd: opts.End != nil}
	d.a = diffSide{e: e, ctx: ctx}
	d.b = diffSide{e: e, ctx: ctx}
	if from.Hash == to.Hash {
		d.a.done, d.b.done = true, true
		return d, nil
	}
	if err := d.a.open(from.Hash, opts.Start); err != nil {
		return nil, err
	}
	if err := d.b.open(to.Hash, opts.Start); err != nil {
		return nil, err
	}
	return d, nil
}

// DiffIter is a streaming diff; see Engine.Diff. Use it as
//
//	for d.Next() { use(d.Entry()) }
//	if err := d.Err(); err != nil { … }
//
// It is not safe for concurrent use.
type DiffIter struct {
	a, b   diffSide // from, to
	end    []byte
	hasEnd bool
	cur    DiffEntry
	err    error
}

// Entry returns the current difference.
func (d *DiffIter) Entry() DiffEntry { return d.cur }

// Err returns the error that stopped the diff, if any.
func (d *DiffIter) Err() error { return d.err }

// Next moves to the next difference and reports whether there is one.
func (d *DiffIter) Next() bool {
	if d.err != nil {
		return false
	}
	ok, err := d.next()
	if err != nil {
		d.err = err
		return false
	}
	return ok
}

func (d *DiffIter) next() (bool, error) {
	a, b := &d.a, &d.b
	for {
		if err := a.ctx.Err(); err != nil {
			return false, err
		}
		d.bound(a)
		d.bound(b)
		switch {
		case a.done && b.done:
			return false, nil
		case a.done || b.done:
			s := a
			if a.done {
				s = b
			}
			if !s.atLeaf() {
				if err := d.prefetch(); err != nil {
					return false, err
				}
				if err := s.expand(); err != nil {
					return false, err
				}
				continue
			}
			k, v := s.item()
			if s == a {
				d.cur = DiffEntry{Kind: Removed, Key: k, From: v}
			} else {
				d.cur = DiffEntry{Kind: Added, Key: k, To: v}
			}
			s.consume(k)
			return true, nil
		}
		la, lb := a.level(), b.level()
		if la > 0 && la == lb && a.ref() == b.ref() {
			// INVARIANT: equal subtrees are skipped unread, on both sides.
			k := a.lastKey()
			a.consume(k)
			b.consume(k)
			continue
		}
		if la > 0 || lb > 0 {
			if err := d.prefetch(); err != nil {
				return false, err
			}
			if la >= lb {
				if err := a.expand(); err != nil {
					return false, err
				}
			}
			if lb >= la {
				if err := b.expand(); err != nil {
					return false, err
				}
			}
			continue
		}
		ka, va := a.item()
		kb, vb := b.item()
		switch c := bytes.Compare(ka, kb); {
		case c < 0:
			d.cur = DiffEntry{Kind: Removed, Key: ka, From: va}
			a.consume(ka)
			return true, nil
		case c > 0:
			d.cur = DiffEntry{Kind: Added, Key: kb, To: vb}
			b.consume(kb)
			return true, nil
		default:
			a.consume(ka)
			b.consume(kb)
			if !bytes.Equal(va, vb) {
				d.cur = DiffEntry{Kind: Changed, Key: ka, From: va, To: vb}
				return true, nil
			}
		}
	}
}

// bound marks a side done once its next element lies at or past the end key.
func (d *DiffIter) bound(s *diffSide) {
	if !d.hasEnd || s.done {
		return
	}
	if s.atLeaf() {
		if k, _ := s.item(); bytes.Compare(k, d.end) >= 0 {
			s.done = true
		}
	} else if s.lowerOK && bytes.Compare(s.lower, d.end) >= 0 {
		s.done = true // everything left is above a key already ≥ end
	}
}

// diffSide walks one tree lazily: its current element is entry i of the top
// frame, a row when that node is a leaf, else a whole unread subtree.
type diffSide struct {
	e       *Engine
	ctx     context.Context
	stack   []diffFrame
	done    bool
	lower   []byte // key of the last element consumed
	lowerOK bool
}

// open positions the side on the first row >= start (or on the root's first
// entry, unread, without start).
func (s *diffSide) open(h Hash, start []byte) error {
	n, err := s.e.load(s.ctx, h)
	if err != nil {
		return err
	}
	s.stack = append(s.stack[:0], diffFrame{n: n})
	if n.Len() == 0 {
		s.done = true
		return nil
	}
	if start == nil {
		return nil
	}
	for {
		f := &s.stack[len(s.stack)-1]
		f.i = f.n.search(start, false)
		if f.i == f.n.Len() {
			s.done = true
			return nil
		}
		if f.n.IsLeaf() {
			return nil
		}
		if err := s.expand(); err != nil {
			return err
		}
	}
}

func (s *diffSide) top() *diffFrame { return &s.stack[len(s.stack)-1] }

// level is 0 for a row, else one more than the level of the current
// subtree's root: elements at equal levels are comparable.
func (s *diffSide) level() int { return s.top().n.Level() }

func (s *diffSide) atLeaf() bool { return s.top().n.IsLeaf() }

func (s *diffSide) item() ([]byte, []byte) {
	f := s.top()
	return f.n.Key(f.i), f.n.Value(f.i)
}

func (s *diffSide) ref() Hash {
	f := s.top()
	return f.n.Child(f.i)
}

func (s *diffSide) lastKey() []byte {
	f := s.top()
	return f.n.Key(f.i)
}

// expand reads the current subtree (or takes it from the frame's
// read-ahead) and stands on its first entry.
func (s *diffSide) expand() error {
	f := s.top()
	var child *Node
	if f.i < len(f.pre) && f.pre[f.i] != nil {
		child, f.pre[f.i] = f.pre[f.i], nil
	} else {
		var err error
		if child, err = s.e.loadChild(s.ctx, f.n, f.i); err != nil {
			return err
		}
	}
	s.stack = append(s.stack, diffFrame{n: child})
	return nil
}

// consume steps past the current element, whose (last) key is k.
func (s *diffSide) consume(k []byte) {
	s.lower, s.lowerOK = k, true
	for len(s.stack) > 0 {
		f := s.top()
		if f.i++; f.i < f.n.Len() {
			return
		}
		s.stack = s.stack[:len(s.stack)-1]
	}
	s.done = true
}

// diffFrame is one node on a diffSide's path: entry i is the side's current
// element when the frame is on top. pre holds children read ahead, by
// index (nil where not read, taken out when expanded); children before
// ahead have been considered for read-ahead.
type diffFrame struct {
	n     *Node
	i     int
	pre   []*Node
	ahead int
}

// frameAt returns the side's frame whose node is at level, or nil.
func (s *diffSide) frameAt(level int) *diffFrame {
	if s.done || len(s.stack) == 0 {
		return nil
	}
	k := s.stack[0].n.Level() - level
	if k < 0 || k >= len(s.stack) {
		return nil
	}
	return &s.stack[k]
}

// prefetch reads ahead, in one NodeStore.GetMany (parallel, and one Badger
// transaction per worker instead of one per node), the children of each
// side's top node that the walk is going to open: those from the current
// entry on that have no equal child (same last key, same address) in the
// other side's node at the same level. Equal children are skipped unread
// by the walk, so nothing it fetches is wasted unless node boundaries moved
// between the trees. Children past the other node's last key are left for
// a later call, made when the walk reaches them (the other side then
// stands in its next node); with the other side done, every remaining
// child below the end bound is read ahead.
//
// It only saves round trips: what it reads is what expand would read one
// at a time. Called before each expansion; a frame is considered once per
// entry, so a warm walk pays one merge of two nodes' keys per node pair.
func (d *DiffIter) prefetch() error {
	var hs []Hash
	type want struct {
		f *diffFrame
		i int
	}
	var wants []want
	add := func(f *diffFrame, i int) {
		if f.pre == nil {
			f.pre = make([]*Node, f.n.Len())
		}
		wants = append(wants, want{f, i})
		hs = append(hs, f.n.Child(i))
	}
	for _, pair := range [2][2]*diffSide{{&d.a, &d.b}, {&d.b, &d.a}} {
		s, o := pair[0], pair[1]
		if s.done || len(s.stack) == 0 {
			continue
		}
		f := s.top()
		if f.n.IsLeaf() || f.i < f.ahead {
			continue
		}
		n := f.n
		if o.done {
			j := f.i
			for ; j < n.Len(); j++ {
				add(f, j)
				if d.hasEnd && bytes.Compare(n.Key(j), d.end) >= 0 {
					j++
					break // the children after this one start at or past end
				}
			}
			f.ahead = j
			continue
		}
		g := o.frameAt(n.Level())
		if g == nil {
			f.ahead = f.i + 1 // trees of different heights: no counterpart
			continue
		}
		m := g.n
		j, k := f.i, g.i
		for j < n.Len() && k < m.Len() {
			switch c := bytes.Compare(n.Key(j), m.Key(k)); {
			case c < 0:
				add(f, j)
				j++
			case c > 0:
				k++
			default:
				if n.Child(j) != m.Child(k) {
					add(f, j)
				}
				j++
				k++
			}
			if d.hasEnd && j > 0 && bytes.Compare(n.Key(j-1), d.end) >= 0 {
				j = n.Len() // children from j start at or past end
			}
		}
		f.ahead = max(j, f.i+1)
	}
	if len(hs) == 0 {
		return nil
	}
	nodes, err := d.a.e.loadMany(d.a.ctx, hs)
	if err != nil {
		return err
	}
	for j, w := range wants {
		if nodes[j].Level() != w.f.n.Level()-1 {
			return fmt.Errorf("node %s: level %d under a level %d parent: %w", hs[j].Short(), nodes[j].Level(), w.f.n.Level(), ErrCorruptNode)
		}
		w.f.pre[w.i] = nodes[j]
	}
	return nil
}
