package prolly

import (
	"bytes"
	"context"
	"fmt"
)

// Edit is one change of a Mutate batch: a put of Value under Key, or, with
// Delete, the removal of Key.
type Edit struct {
	Key    []byte
	Value  []byte
	Delete bool
}

// Mutate applies edits, sorted by strictly increasing key, to the tree at r
// and returns the new root. Puts of the value already stored and deletes of
// absent keys are no-ops; a batch of no-ops returns r itself.
//
// It re-chunks only the touched paths, level by level from the leaves up. At
// each level a window starts at the old node holding the first pending
// change, replays that node from its start (so the splitter state equals a
// from-scratch build's), applies the changes, and ends as soon as a new
// boundary falls on an old node's end: from there both trees cut the same
// nodes until the next change. Each window becomes one change one level up:
// "replace the entries for these old nodes by the entries of these new
// nodes". Untouched subtrees are kept by address and never read. Cost for k
// scattered edits: about k·1.1 nodes read and written per level.
//
// Keys and values are copied into the new nodes; the caller may reuse edits.
func (e *Engine) Mutate(ctx context.Context, r Root, edits []Edit) (Root, error) {
	for i := 1; i < len(edits); i++ {
		if bytes.Compare(edits[i-1].Key, edits[i].Key) >= 0 {
			return Root{}, fmt.Errorf("mutate: edit %d key %x not above edit %d key %x: %w", i, edits[i].Key, i-1, edits[i-1].Key, ErrUnsorted)
		}
	}
	root, err := e.loadRoot(ctx, r)
	if err != nil {
		return Root{}, err
	}
	if len(edits) == 0 {
		return r, nil
	}
	m := &mutation{e: e, ctx: ctx, root: root, memo: make(map[Hash]*Node), pre: make(map[Hash]*Node)}
	spans := make([]span, len(edits))
	for i := range edits {
		ed := &edits[i]
		sp := span{lo: ed.Key, loSet: true, loIncl: true, hi: ed.Key, hiSet: true}
		if !ed.Delete {
			sp.items = []item{{key: ed.Key, val: ed.Value, count: 1, digest: e.rowHash(ed.Key, ed.Value)}}
		}
		spans[i] = sp
	}
	for level := 0; ; level++ {
		if err := ctx.Err(); err != nil {
			return Root{}, err
		}
		if level > MaxLevel {
			return Root{}, fmt.Errorf("mutate: tree exceeds %d levels", MaxLevel)
		}
		out, err := m.level(level, spans, level >= root.Level())
		if err != nil {
			return Root{}, err
		}
		if len(out) == 0 {
			return r, nil // every edit was a no-op
		}
		if level < root.Level() {
			spans = out
			continue
		}
		// At and above the old root level the level has one window
		// covering it entirely: its items are all the level's nodes.
		if len(out) != 1 || out[0].loSet || out[0].hiSet {
			return Root{}, fmt.Errorf("mutate: level %d above the old root produced %d partial windows", level, len(out)) // a bug
		}
		items := out[0].items
		switch len(items) {
		case 0:
			return e.putEmpty(ctx)
		case 1:
			return m.canonical(items[0].ref)
		}
		spans = out
	}
}

// span replaces the old items of one level whose keys lie in its range by
// items, inserted where the removed ones were. The range's lower end is
// exclusive unless loIncl; unset ends are unbounded. Items lie above the
// lower end and below the next old item kept, but may lie above hi: a window
// that ends right after keys inserted between two old nodes replaced only
// the first of them.
type span struct {
	lo, hi       []byte
	loSet, hiSet bool
	loIncl       bool
	// none marks an empty range: the items go in right after lo (or first,
	// without lo) and no old item is removed.
	none  bool
	items []item
}

// reaches reports whether key is at or past the span's lower end.
func (s *span) reaches(key []byte) bool {
	if !s.loSet {
		return true
	}
	c := bytes.Compare(key, s.lo)
	return c > 0 || (c == 0 && s.loIncl)
}

// covers reports whether key is inside the span's range.
func (s *span) covers(key []byte) bool {
	return !s.none && s.reaches(key) && (!s.hiSet || bytes.Compare(key, s.hi) <= 0)
}

type mutation struct {
	e    *Engine
	ctx  context.Context
	root *Node
	memo map[Hash]*Node // internal nodes of the old tree read so far
	pre  map[Hash]*Node // nodes read ahead for the current chunk of spans
}

func (m *mutation) load(parent *Node, i int) (*Node, error) {
	h := parent.Child(i)
	if n, ok := m.memo[h]; ok {
		return n, nil
	}
	if n, ok := m.pre[h]; ok {
		return n, nil
	}
	n, err := m.e.loadChild(m.ctx, parent, i)
	if err != nil {
		return nil, err
	}
	if !n.IsLeaf() {
		m.memo[h] = n
	}
	return n, nil
}

// prefetchSpans is how many spans' start nodes one read-ahead fetches.
const prefetchSpans = 2048

// prefetch reads, level by level with one NodeStore.GetMany each (parallel
// in stores that can), the nodes at level where the windows for spans will
// start, and the internal nodes above them. It follows the choice
// levelCursor.seek makes, so the window loop then finds them in memory;
// nodes a window reads beyond its start are still read one at a time.
func (m *mutation) prefetch(level int, spans []span) error {
	if level >= m.root.Level() || m.root.Len() == 0 {
		return nil
	}
	clear(m.pre)
	at := make([]*Node, len(spans))
	for i := range at {
		at[i] = m.root
	}
	for l := m.root.Level(); l > level; l-- {
		var hs []Hash
		want := make([]Hash, len(spans))
		seen := make(map[Hash]bool)
		for i := range spans {
			n, sp := at[i], &spans[i]
			j := 0
			if sp.loSet {
				j = min(n.search(sp.lo, !sp.loIncl), n.Len()-1)
			}
			h := n.Child(j)
			want[i] = h
			_, inMemo := m.memo[h]
			if !inMemo && !seen[h] {
				seen[h] = true
				hs = append(hs, h)
			}
		}
		if len(hs) > 0 {
			nodes, err := m.e.loadMany(m.ctx, hs)
			if err != nil {
				return err
			}
			for j, n := range nodes {
				if n.Level() != l-1 {
					return fmt.Errorf("node %s: level %d under a level %d parent: %w", hs[j].Short(), n.Level(), l, ErrCorruptNode)
				}
				if n.IsLeaf() {
					m.pre[hs[j]] = n
				} else {
					m.memo[hs[j]] = n
				}
			}
		}
		for i, h := range want {
			if n, ok := m.memo[h]; ok {
				at[i] = n
			} else {
				at[i] = m.pre[h]
			}
		}
	}
	return nil
}

// canonical strips single-entry internal roots.
func (m *mutation) canonical(h Hash) (Root, error) {
	for {
		n, err := m.e.load(m.ctx, h)
		if err != nil {
			return Root{}, err
		}
		// INVARIANT: a root is a leaf or an internal node with ≥ 2 entries.
		if n.IsLeaf() || n.Len() > 1 {
			return Root{Hash: h, Spec: m.e.id}, nil
		}
		h = n.Child(0)
	}
}

// levelCursor walks the nodes of one level of the old tree, left to right.
type levelCursor struct {
	m         *mutation
	stack     []frame // old root first, a node of the level last
	exhausted bool    // past the last item of the level
	j         int     // next item of the current node
}

func (m *mutation) newLevelCursor(level int) *levelCursor {
	c := &levelCursor{m: m}
	if level > m.root.Level() || m.root.Len() == 0 {
		c.exhausted = true // the old tree has no items at this level
		return c
	}
	// Frames from the root down to the level are filled by seek.
	c.stack = make([]frame, m.root.Level()-level+1)
	c.stack[0] = frame{n: m.root, i: -1}
	return c
}

func (c *levelCursor) node() *Node { return c.stack[len(c.stack)-1].n }

// seek moves to the start of the node holding the first item the span
// reaches, or of the level's last node if no item does. It returns the last
// key of the node before that one (ok=false at the level's first node).
// Seeks only move forward: spans come sorted.
func (c *levelCursor) seek(sp *span) (prev []byte, ok bool, err error) {
	if c.exhausted {
		return nil, false, nil
	}
	last := len(c.stack) - 1
	d := 0
	if c.stack[0].i >= 0 {
		// Finger search: climb while the target is past the node's end.
		d = last - 1
		for d > 0 && !sp.reaches(c.stack[d].n.LastKey()) {
			d--
		}
	}
	for ; d < last; d++ {
		f := &c.stack[d]
		i := max(f.i, 0)
		for i < f.n.Len()-1 && !sp.reaches(f.n.Key(i)) {
			i++ // linear from the finger: spans are usually near
		}
		f.i = i
		child, err := c.m.load(f.n, i)
		if err != nil {
			return nil, false, err
		}
		c.stack[d+1] = frame{n: child}
	}
	c.j = 0
	for d := last - 1; d >= 0; d-- {
		if f := &c.stack[d]; f.i > 0 {
			return f.n.Key(f.i - 1), true, nil
		}
	}
	return nil, false, nil
}

// lastNode reports whether the current node is the level's last.
func (c *levelCursor) lastNode() bool {
	for d := 0; d < len(c.stack)-1; d++ {
		if f := &c.stack[d]; f.i < f.n.Len()-1 {
			return false
		}
	}
	return true
}

// nextNode moves to the first item of the next node of the level.
func (c *levelCursor) nextNode() error {
	d := len(c.stack) - 2
	for ; d >= 0; d-- {
		f := &c.stack[d]
		if f.i++; f.i < f.n.Len() {
			break
		}
	}
	if d < 0 {
		c.exhausted = true
		return nil
	}
	for ; d < len(c.stack)-1; d++ {
		child, err := c.m.load(c.stack[d].n, c.stack[d].i)
		if err != nil {
			return err
		}
		c.stack[d+1] = frame{n: child}
	}
	c.j = 0
	return nil
}

// oldItem returns item j of the current node.
func (c *levelCursor) oldItem(level int) item {
	n := c.node()
	if level == 0 {
		k, v := n.Key(c.j), n.Value(c.j)
		return item{key: k, val: v, count: 1, digest: c.m.e.rowHash(k, v)}
	}
	return item{key: n.Key(c.j), ref: n.Child(c.j), count: n.SubtreeCount(c.j), digest: n.SubtreeDigest(c.j)}
}

// level applies spans (sorted, disjoint) to one level of the old tree and
// returns the spans for the level above. With whole (the old root level and
// above), one window runs to the level's end, so its span lists every node
// of the new level.
func (m *mutation) level(level int, spans []span, whole bool) ([]span, error) {
	cur := m.newLevelCursor(level)
	type emitted struct {
		n *Node
		h Hash
	}
	var nodes []emitted
	var items []item
	w := newLevelWriter(m.e.params, level, func(n *Node, h Hash, entry item) error {
		nodes = append(nodes, emitted{n, h})
		items = append(items, entry)
		return nil
	})
	var out []span
	var passed []byte // last key of the last old node the window left
	passedAny := false
	// normalize steps over node ends, recording the last key left behind.
	normalize := func() error {
		for !cur.exhausted && cur.j == cur.node().Len() {
			passed, passedAny = cur.node().LastKey(), true
			if err := cur.nextNode(); err != nil {
				return err
			}
		}
		return nil
	}
	var lastEnd []byte // where the previous window ended on a boundary of its own
	lastEndOK := false
	prefetched := 0
	for si := 0; si < len(spans); {
		if err := m.ctx.Err(); err != nil {
			return nil, err
		}
		if si >= prefetched {
			prefetched = min(len(spans), si+prefetchSpans)
			if err := m.prefetch(level, spans[si:prefetched]); err != nil {
				return nil, err
			}
		}
		prev, prevOK, err := cur.seek(&spans[si])
		if err != nil {
			return nil, err
		}
		// The boundary before an old node may have been forced by its
		// oversized first item (splitter.before). If the first change is
		// at that item, the boundary may vanish: start one node earlier,
		// unless a window of ours just ended there on a natural boundary.
		if prevOK && !cur.exhausted && spans[si].reaches(cur.node().Key(0)) &&
			!(lastEndOK && bytes.Equal(lastEnd, prev)) {
			x0 := cur.oldItem(level)
			if itemSize(level, &x0) > m.e.params.max {
				cur.stack[0].i = -1 // fresh descent: the cursor moves back
				back := span{lo: prev, loSet: true, loIncl: true}
				if prev, prevOK, err = cur.seek(&back); err != nil {
					return nil, err
				}
			}
		}
		// INVARIANT: a window starts on a boundary of the new level: the
		// writer holds nothing and its splitter state is reset.
		if invariants && (w.pending() != 0 || w.sp.size != 0 || w.sp.count != 0) {
			panic(fmt.Sprintf("prolly: level %d window starts with %d pending items", level, w.pending()))
		}
		nodes, items = nodes[:0], nil
		passed, passedAny = nil, false
		changed, progressed := false, false
		for {
			// A window usually ends at the end of the node holding its
			// last change: check that before stepping into the next node,
			// so its read is saved. The level's last node never ends a
			// window this way: later spans would need it again.
			if !whole && progressed && w.pending() == 0 && !cur.exhausted &&
				cur.j == cur.node().Len() && !cur.lastNode() {
				passed, passedAny = cur.node().LastKey(), true
				break
			}
			if err := normalize(); err != nil {
				return nil, err
			}
			if cur.exhausted && si == len(spans) {
				if err := w.flush(); err != nil {
					return nil, err
				}
				break
			}
			// INVARIANT: a window ends only where a new boundary coincides
			// with an old node's start; the trees are identical from there
			// until the next change.
			if !whole && progressed && w.pending() == 0 && !cur.exhausted && cur.j == 0 {
				break
			}
			if si < len(spans) && (cur.exhausted || spans[si].reaches(cur.node().Key(cur.j))) {
				sp := &spans[si]
				removed := 0
				var old item
				for !cur.exhausted && sp.covers(cur.node().Key(cur.j)) {
					if removed == 0 && level == 0 {
						old = cur.oldItem(level)
					}
					removed++
					cur.j++
					if err := normalize(); err != nil {
						return nil, err
					}
				}
				switch {
				case level > 0:
					changed = true
				case removed == 0 && len(sp.items) == 0: // delete of an absent key
				case removed == 1 && len(sp.items) == 1 && bytes.Equal(old.val, sp.items[0].val): // same value
				default:
					changed = true
				}
				for i := range sp.items {
					if err := w.add(&sp.items[i]); err != nil {
						return nil, err
					}
				}
				progressed = true
				si++
				continue
			}
			it := cur.oldItem(level)
			if err := w.add(&it); err != nil {
				return nil, err
			}
			cur.j++
		}
		if passedAny {
			lastEnd, lastEndOK = passed, !cur.exhausted
		} else { // ended where it started
			lastEnd, lastEndOK = prev, prevOK && !cur.exhausted
		}
		if !changed {
			continue // the window rewrote identical nodes: drop them
		}
		for _, en := range nodes {
			if err := m.e.ns.Put(m.ctx, en.h, en.n.Bytes(), en.n); err != nil {
				return nil, fmt.Errorf("write node %s: %w", en.h.Short(), err)
			}
		}
		// The window replaced the old nodes it left behind: entries in
		// (prev, passed] one level up. A window that ends where it started
		// (an insert cut into nodes of its own) replaced none.
		out = append(out, span{lo: prev, loSet: prevOK, hi: passed, hiSet: !cur.exhausted,
			none: !passedAny && !cur.exhausted, items: items})
		if invariants {
			checkSpans(level+1, out)
		}
	}
	return out, nil
}

// checkSpans asserts that the spans for a level are sorted and disjoint in
// the old sequence, and that all their items, taken in order, strictly
// increase and lie above each span's lower end (invariants only). An item may
// lie above its span's upper end: a window that stops right after inserting
// keys between two old nodes replaces only the first of them.
func checkSpans(level int, spans []span) {
	var last []byte
	for i := range spans {
		sp := &spans[i]
		if i > 0 {
			prev := &spans[i-1]
			var overlap bool
			if prev.none { // an insertion point: the next span starts at or after it
				overlap = prev.loSet && (!sp.loSet || bytes.Compare(sp.lo, prev.lo) < 0)
			} else {
				overlap = !prev.hiSet || !sp.loSet || bytes.Compare(sp.lo, prev.hi) < 0
			}
			if overlap {
				panic(fmt.Sprintf("prolly: level %d spans %d and %d overlap", level, i-1, i))
			}
		}
		for j := range sp.items {
			k := sp.items[j].key
			if last != nil && bytes.Compare(last, k) >= 0 {
				panic(fmt.Sprintf("prolly: level %d span %d: item %x not above %x", level, i, k, last))
			}
			if !sp.reaches(k) {
				panic(fmt.Sprintf("prolly: level %d span %d: item %x below the span", level, i, k))
			}
			last = k
		}
	}
}
