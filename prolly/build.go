package prolly

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/addr"
	inv "github.com/sidecar-dev/sidecar/internal/invariants"
	"github.com/sidecar-dev/sidecar/internal/prefault"
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
	// bytesSink, if set, receives finished nodes instead of sink, as
	// their encoding alone: the node is not parsed (nor indexed) here.
	// Builder sets it for leaves when the store takes them by their bytes
	// (UncachedBytesPutter).
	bytesSink func(data []byte, h Hash, entry item) error
	// slab is what is left of the bytes leafBytes cuts leaves from.
	slab []byte
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
	var b []byte
	if w.bytesSink != nil && n > 0 {
		b = w.leafBytes(size)
	} else {
		b = make([]byte, size)
	}
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
	if w.bytesSink != nil && n > 0 {
		// The parent entry's key is the last key, read where it was just
		// written; b is never written again.
		ks := headerSize + n*offSize
		var start uint32
		if n > 1 {
			start = w.keyEnds[n-2]
		}
		end := w.keyEnds[n-1]
		last := b[ks+int(start) : ks+int(end) : ks+int(end)]
		if invariants {
			node, err := parseNode(b)
			if err != nil {
				return fmt.Errorf("encode level %d node: %w", w.level, err) // a bug, never data
			}
			checkEntrySums(node, w.count, w.digest)
			inv.Check(bytes.Equal(node.LastKey(), last), "level %d node: entry key %x, last key %x", w.level, last, node.LastKey())
		}
		entry := item{key: last, ref: addr.Of(b), count: w.count, digest: w.digest}
		w.reset()
		return w.bytesSink(b, entry.ref, entry)
	}
	node, err := parseNode(b)
	if err != nil {
		return fmt.Errorf("encode level %d node: %w", w.level, err) // a bug, never data
	}
	// INVARIANT: a parent entry names its child by address and carries the
	// child's last key and the sums of its rows' counts and digests.
	if invariants {
		checkEntrySums(node, w.count, w.digest)
	}
	entry := item{key: node.LastKey(), ref: addr.Of(b), count: w.count, digest: w.digest}
	w.reset()
	return w.sink(node, entry.ref, entry)
}

// leafSlab is how many bytes of leaf encodings a level writer taking
// leaves by their bytes allocates at once.
const leafSlab = 256 << 10

// leafBytes returns size fresh bytes for a leaf going to bytesSink, cut
// from a slab of leafSlab bytes mapped in one call (internal/prefault):
// a 10M-row build encodes ~1 GB of leaves, each a page or two of fresh
// memory that faulted page by page (~10-15 µs each on this VM). Slices
// are never reused, so a leaf's bytes stay fresh for the store; a slab
// lives until the store wrote (and dropped) every leaf in it. Only leaves
// taken by their bytes come from slabs: a node kept decoded in a cache
// must not keep a whole slab alive.
func (w *levelWriter) leafBytes(size int) []byte {
	if size > leafSlab/4 {
		return make([]byte, size)
	}
	if len(w.slab) < size {
		w.slab = make([]byte, leafSlab)
		prefault.Write(w.slab)
	}
	b := w.slab[:size:size]
	w.slab = w.slab[size:]
	return b
}

// reset empties the level's buffers after a node was emitted.
func (w *levelWriter) reset() {
	w.keys, w.vals = w.keys[:0], w.vals[:0]
	w.keyEnds, w.valEnds = w.keyEnds[:0], w.valEnds[:0]
	w.refs, w.counts, w.digests = w.refs[:0], w.counts[:0], w.digests[:0]
	w.count, w.digest = 0, 0
}

// checkEntrySums asserts that the count and digest a parent entry will carry
// are those of the node's own items (invariants builds only).
func checkEntrySums(n *Node, count, digest uint64) {
	var c, d uint64
	for i := 0; i < n.Len(); i++ {
		if n.IsLeaf() {
			c++
			continue
		}
		c += n.SubtreeCount(i)
		d += n.SubtreeDigest(i)
	}
	inv.Check(c == count, "level %d node: entry count %d, items hold %d", n.Level(), count, c)
	inv.Check(n.IsLeaf() || d == digest, "level %d node: entry digest %x, items hold %x", n.Level(), digest, d)
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
		emitted := func(h Hash, entry item) error {
			b.emitted[lv]++
			b.last[lv] = h
			if lv+1 > MaxLevel {
				return fmt.Errorf("build: tree exceeds %d levels", MaxLevel)
			}
			return b.level(lv + 1).add(&entry)
		}
		w := newLevelWriter(b.e.params, lv, func(n *Node, h Hash, entry item) error {
			if err := put(b.ctx, h, n.Bytes(), n); err != nil {
				return fmt.Errorf("write node %s: %w", h.Short(), err)
			}
			return emitted(h, entry)
		})
		if bp, ok := b.e.ns.(UncachedBytesPutter); ok && lv == 0 {
			// Leaves by their bytes: nobody reads them during the build.
			w.bytesSink = func(data []byte, h Hash, entry item) error {
				if err := bp.PutUncachedBytes(b.ctx, h, data); err != nil {
					return fmt.Errorf("write node %s: %w", h.Short(), err)
				}
				return emitted(h, entry)
			}
		}
		b.levels = append(b.levels, w)
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
			// without a parent entry, decoded (Put caches it).
			w.bytesSink = nil
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
