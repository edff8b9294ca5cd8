package prolly

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/sidecar-dev/sidecar/addr"
)

// item is one entry of a level: a row (level 0) or a child reference.
type item struct {
	key    []byte
	val    []byte // leaves
	ref    Hash   // internal levels
	count  uint64 // rows below (1 for a row)
	digest uint64 // Σ rowhash below (rowhash(key, val) for a row)
}

// itemSize is the number of bytes an item adds to its node's encoding; it is
// what the splitter measures.
func itemSize(level int, it *item) int {
	if level == 0 {
		return len(it.key) + len(it.val) + 2*offSize
	}
	return len(it.key) + offSize + entrySize
}

// levelWriter accumulates the items of one level and cuts them into nodes.
// Buffers are reused across nodes; every emitted node gets fresh bytes,
// because the store may retain them.
type levelWriter struct {
	level   int
	sp      splitter
	keys    []byte
	vals    []byte
	keyEnds []uint32
	valEnds []uint32
	refs    []byte
	counts  []uint64
	digests []uint64
	count   uint64
	digest  uint64
	// sink receives every finished node and the parent entry naming it.
	sink func(n *Node, h Hash, entry item) error
}

func newLevelWriter(p *splitParams, level int, sink func(*Node, Hash, item) error) *levelWriter {
	return &levelWriter{level: level, sp: newSplitter(p, level), sink: sink}
}

// pending returns the number of items not yet in an emitted node.
func (w *levelWriter) pending() int { return len(w.keyEnds) }

// add appends it, emitting a node before it (oversized item) or after it
// (boundary) as the splitter decides.
func (w *levelWriter) add(it *item) error {
	size := itemSize(w.level, it)
	if w.sp.before(size) {
		w.sp.reset()
		if err := w.emit(); err != nil {
			return err
		}
	}
	w.keys = append(w.keys, it.key...)
	w.keyEnds = append(w.keyEnds, uint32(len(w.keys)))
	if w.level == 0 {
		w.vals = append(w.vals, it.val...)
		w.valEnds = append(w.valEnds, uint32(len(w.vals)))
	} else {
		w.refs = append(w.refs, it.ref[:]...)
		w.counts = append(w.counts, it.count)
		w.digests = append(w.digests, it.digest)
	}
	w.count += it.count
	w.digest += it.digest
	if w.sp.after(it.key, size) {
		return w.emit()
	}
	return nil
}

// flush emits the pending items, if any, as the level's last node.
func (w *levelWriter) flush() error {
	w.sp.reset()
	if w.pending() == 0 {
		return nil
	}
	return w.emit()
}

func (w *levelWriter) emit() error {
	n := len(w.keyEnds)
	size := headerSize + n*offSize + len(w.keys)
	if w.level == 0 {
		size += n*offSize + len(w.vals)
	} else {
		size += n * entrySize
	}
	// INVARIANT: every node gets fresh bytes: the store may keep them, and
	// the writer's buffers are reused for the next node.
	b := make([]byte, size)
	b[0] = FormatVersion
	b[1] = byte(w.level)
	le.PutUint32(b[2:], uint32(n))
	p := headerSize
	for _, e := range w.keyEnds {
		le.PutUint32(b[p:], e)
		p += offSize
	}
	p += copy(b[p:], w.keys)
	if w.level == 0 {
		for _, e := range w.valEnds {
			le.PutUint32(b[p:], e)
			p += offSize
		}
		copy(b[p:], w.vals)
	} else {
		p += copy(b[p:], w.refs)
		for _, c := range w.counts {
			le.PutUint64(b[p:], c)
			p += 8
		}
		for _, d := range w.digests {
			le.PutUint64(b[p:], d)
			p += 8
		}
	}
	node, err := parseNode(b)
	if err != nil {
		return fmt.Errorf("encode level %d node: %w", w.level, err) // a bug, never data
	}
	// INVARIANT: a parent entry names its child by address and carries the
	// child's last key and the sums of its rows' counts and digests.
	entry := item{key: node.LastKey(), ref: addr.Of(b), count: w.count, digest: w.digest}
	w.keys, w.vals = w.keys[:0], w.vals[:0]
	w.keyEnds, w.valEnds = w.keyEnds[:0], w.valEnds[:0]
	w.refs, w.counts, w.digests = w.refs[:0], w.counts[:0], w.digests[:0]
	w.count, w.digest = 0, 0
	return w.sink(node, entry.ref, entry)
}

func encodeEmptyLeaf() []byte {
	b := make([]byte, headerSize)
	b[0] = FormatVersion
	return b
}

// ErrUnsorted is returned when keys handed to Builder.Add or Mutate are not
// strictly increasing.
var ErrUnsorted = errors.New("keys not strictly increasing")

// Builder builds a tree from rows added in strictly increasing key order. It
// streams: memory is O(height × node size) whatever the number of rows, and
// nodes go to the store as they are cut. A Builder is not safe for
// concurrent use; it is done after Finish or the first error.
type Builder struct {
	e       *Engine
	ctx     context.Context
	levels  []*levelWriter
	emitted []int  // nodes emitted per level
	last    []Hash // last node emitted per level
	prev    []byte
	started bool
	err     error
}

// NewBuilder starts a bulk build. ctx bounds the store writes.
func (e *Engine) NewBuilder(ctx context.Context) *Builder {
	b := &Builder{e: e, ctx: ctx}
	b.level(0)
	return b
}

func (b *Builder) level(l int) *levelWriter {
	for len(b.levels) <= l {
		lv := len(b.levels)
		put := b.e.ns.Put
		if up, ok := b.e.ns.(UncachedPutter); ok && lv == 0 {
			put = up.PutUncached // leaves: see UncachedPutter
		}
		b.levels = append(b.levels, newLevelWriter(b.e.params, lv, func(n *Node, h Hash, entry item) error {
			if err := put(b.ctx, h, n.Bytes(), n); err != nil {
				return fmt.Errorf("write node %s: %w", h.Short(), err)
			}
			b.emitted[lv]++
			b.last[lv] = h
			if lv+1 > MaxLevel {
				return fmt.Errorf("build: tree exceeds %d levels", MaxLevel)
			}
			return b.level(lv + 1).add(&entry)
		}))
		b.emitted = append(b.emitted, 0)
		b.last = append(b.last, Hash{})
	}
	return b.levels[l]
}

// Add appends a row. Keys must be strictly increasing. key and value are
// copied; the caller may reuse them.
func (b *Builder) Add(key, value []byte) error {
	if b.err != nil {
		return b.err
	}
	if b.started && bytes.Compare(b.prev, key) >= 0 {
		b.err = fmt.Errorf("build: key %x after %x: %w", key, b.prev, ErrUnsorted)
		return b.err
	}
	b.started = true
	b.prev = append(b.prev[:0], key...)
	it := item{key: key, val: value, count: 1, digest: b.e.rowHash(key, value)}
	if err := b.levels[0].add(&it); err != nil {
		b.err = err
	}
	return b.err
}

// Finish cuts the last nodes of every level and returns the canonical root:
// the lowest level with a single node (an empty leaf for no rows).
func (b *Builder) Finish() (Root, error) {
	if b.err != nil {
		return Root{}, b.err
	}
	b.err = errors.New("build: already finished")
	for l := 0; l < len(b.levels); l++ {
		w := b.levels[l]
		if b.emitted[l] == 0 {
			if w.pending() == 0 { // no rows at all
				return b.e.putEmpty(b.ctx)
			}
			// The pending items are the level's only node: the root. Cut it
			// without a parent entry.
			w.sink = func(n *Node, h Hash, _ item) error {
				if err := b.e.ns.Put(b.ctx, h, n.Bytes(), n); err != nil {
					return fmt.Errorf("write node %s: %w", h.Short(), err)
				}
				b.last[l] = h
				return nil
			}
			if err := w.flush(); err != nil {
				return Root{}, err
			}
			return Root{Hash: b.last[l], Spec: b.e.id}, nil
		}
		if err := w.flush(); err != nil {
			return Root{}, err
		}
		if b.emitted[l] == 1 {
			// INVARIANT: the root is canonical: never an internal node with
			// a single entry.
			return Root{Hash: b.last[l], Spec: b.e.id}, nil
		}
	}
	return Root{}, errors.New("build: no root level") // unreachable: the top level has emitted 0 nodes
}

// putEmpty writes the empty leaf and returns its root.
func (e *Engine) putEmpty(ctx context.Context) (Root, error) {
	if err := e.ns.Put(ctx, e.emptyH, e.empty.Bytes(), e.empty); err != nil {
		return Root{}, fmt.Errorf("write empty leaf: %w", err)
	}
	return e.EmptyRoot(), nil
}

// Build builds a tree from rows in strictly increasing key order; next
// returns ok=false after the last row.
func (e *Engine) Build(ctx context.Context, next func() (key, value []byte, ok bool, err error)) (Root, error) {
	b := e.NewBuilder(ctx)
	for {
		k, v, ok, err := next()
		if err != nil {
			return Root{}, fmt.Errorf("build: read row: %w", err)
		}
		if !ok {
			break
		}
		if err := b.Add(k, v); err != nil {
			return Root{}, err
		}
		if err := ctx.Err(); err != nil {
			return Root{}, err
		}
	}
	return b.Finish()
}

// Rows is a sequence of rows in strictly increasing key order, read by
// index, for [Engine.BuildParts]. The bytes must stay unchanged until
// BuildParts returns.
type Rows interface {
	Len() int
	Row(i int) (key, value []byte)
}

// partLeaf is one leaf that chunking a part on its own cut: rows
// [start, end) of the part.
type partLeaf struct {
	node       *Node
	h          Hash
	entry      item
	start, end int
}

type partResult struct {
	leaves []partLeaf
	err    error
}

// BuildParts builds the tree of the rows of parts, in order: each part's
// keys strictly increase, and every key of a part is below every key of
// the next. The root is byte-identical to adding every row to one Builder
// (TestBuildPartsMatchesBuilder checks it); the work of cutting and
// hashing leaves is spread over workers goroutines.
//
// Each part is first chunked on its own, as if the tree started there.
// The leaves are then stitched in order by one Builder: a part's rows are
// added one by one until the Builder's leaf level and the part's own
// chunking are both at a node boundary before the same row; from that row
// on both see the same rows from the same (reset) splitter state, so they
// cut the same leaves, and the part's leaves are taken as they are. Only
// the few rows of each seam are chunked twice. At most workers+1 parts'
// leaves are held in memory at once.
func (e *Engine) BuildParts(ctx context.Context, parts []Rows, workers int) (Root, error) {
	workers = max(workers, 1)
	results := make([]chan partResult, len(parts))
	for i := range results {
		results[i] = make(chan partResult, 1)
	}
	// INVARIANT: a slot is taken before a part is claimed, so the parts
	// holding slots are always the ones from the next to stitch on:
	// the part the stitcher waits for is never starved of a slot.
	slots := make(chan struct{}, workers+1)
	var next atomic.Int64
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	for range min(workers, len(parts)) {
		g.Go(func() error {
			for {
				select {
				case slots <- struct{}{}:
				case <-gctx.Done():
					return gctx.Err()
				}
				k := int(next.Add(1) - 1)
				if k >= len(parts) {
					<-slots
					return nil
				}
				leaves, err := e.chunkPart(gctx, parts[k])
				results[k] <- partResult{leaves, err}
				if err != nil {
					return err
				}
			}
		})
	}
	root, err := e.stitch(gctx, parts, results, slots)
	if err != nil {
		// Workers waiting for a slot stop. A worker's error cancels
		// gctx: report it, not the stitcher's cancelled write.
		cancel()
		if werr := g.Wait(); werr != nil && !errors.Is(werr, context.Canceled) {
			return Root{}, werr
		}
		return Root{}, err
	}
	if err := g.Wait(); err != nil {
		return Root{}, err
	}
	return root, nil
}

// chunkPart cuts rows into leaves as if the tree started at its first
// row, without storing them; the rows after its last boundary are left.
func (e *Engine) chunkPart(ctx context.Context, rows Rows) ([]partLeaf, error) {
	var out []partLeaf
	done := 0
	w := newLevelWriter(e.params, 0, func(n *Node, h Hash, entry item) error {
		end := done + int(entry.count)
		out = append(out, partLeaf{node: n, h: h, entry: entry, start: done, end: end})
		done = end
		return nil
	})
	var prev []byte
	for i := range rows.Len() {
		k, v := rows.Row(i)
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			return nil, fmt.Errorf("build: key %x after %x: %w", k, prev, ErrUnsorted)
		}
		prev = k
		it := item{key: k, val: v, count: 1, digest: e.rowHash(k, v)}
		if err := w.add(&it); err != nil {
			return nil, err
		}
		if i&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// stitch adds the parts to one Builder in order, taking each part's own
// leaves from the first row before which both chunkings are at a
// boundary.
func (e *Engine) stitch(ctx context.Context, parts []Rows, results []chan partResult, slots chan struct{}) (Root, error) {
	b := e.NewBuilder(ctx)
	for k, rows := range parts {
		var res partResult
		select {
		case res = <-results[k]:
		case <-ctx.Done():
			return Root{}, ctx.Err()
		}
		<-slots
		if res.err != nil {
			return Root{}, res.err
		}
		if err := b.addPart(rows, res.leaves); err != nil {
			return Root{}, err
		}
	}
	return b.Finish()
}

// addPart adds rows, whose own chunking cut leaves.
func (b *Builder) addPart(rows Rows, leaves []partLeaf) error {
	n := rows.Len()
	if n == 0 {
		return nil
	}
	lw := b.levels[0]
	li := 0 // leaves ending at or before j
	for j := 0; j < n; j++ {
		// INVARIANT: the splitter's state is a function of the rows since
		// the last boundary (pending() == 0 iff it is reset), so once both
		// chunkings are at a boundary before row j they agree from j on.
		if lw.pending() == 0 && (j == 0 || (li > 0 && leaves[li-1].end == j)) {
			if b.err != nil {
				return b.err
			}
			if k, _ := rows.Row(j); b.started && bytes.Compare(b.prev, k) >= 0 {
				b.err = fmt.Errorf("build: key %x after %x: %w", k, b.prev, ErrUnsorted)
				return b.err
			}
			for _, l := range leaves[li:] {
				if err := lw.sink(l.node, l.h, l.entry); err != nil {
					b.err = err
					return err
				}
			}
			tail := j
			if len(leaves) > li {
				tail = leaves[len(leaves)-1].end
			}
			if tail == n {
				k, _ := rows.Row(n - 1)
				b.prev = append(b.prev[:0], k...)
				b.started = true
				return nil
			}
			for i := tail; i < n; i++ {
				if err := b.Add(rows.Row(i)); err != nil {
					return err
				}
			}
			return nil
		}
		if err := b.Add(rows.Row(j)); err != nil {
			return err
		}
		for li < len(leaves) && leaves[li].end <= j+1 {
			li++
		}
	}
	return nil
}
