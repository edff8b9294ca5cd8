package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// MirrorBucket is one level-0 bucket as the mirror cuts it: the rows from Lo
// (inclusive; nil for the first bucket) up to the next bucket's Lo, and
// their digest.
type MirrorBucket struct {
	Lo     []byte
	Digest rowhash.Digest
}

// BucketDigester is implemented by a MirrorTable that can choose its own
// level-0 buckets and digest them in one pass (TreeTable does, from the
// Prolly tree's internal entries). VerifyTable prefers it to Bounds plus
// one Digest per bucket.
type BucketDigester interface {
	// Buckets splits the table into consecutive key ranges of about
	// targetRows rows each and returns them in key order with their
	// digests. The first bucket's Lo is nil; later ones are strictly
	// ascending existing keys.
	Buckets(ctx context.Context, targetRows int) ([]MirrorBucket, error)
}

// TreeTable is the MirrorTable of one table at one version: a Prolly root
// read through an engine whose internal entries carry (count, Σ row hash).
// Digests, bounds and buckets come from those entries; rows are hashed only
// by KeyHashes (the dirty buckets, or hash buckets for composite keys) and
// for a table that fits in a single leaf. It is safe for concurrent use if
// the engine's store is.
type TreeTable struct {
	eng  *prolly.Engine
	root prolly.Root
	hash rowhash.ID
}

// NewTreeTable returns the MirrorTable of root read through eng. The row
// hash is the one named by the engine's spec; it must be a hash verify
// can compute in PostgreSQL.
func NewTreeTable(eng *prolly.Engine, root prolly.Root) (*TreeTable, error) {
	id, err := rowhash.Parse(eng.Spec().RowHash)
	if err != nil {
		return nil, fmt.Errorf("mirror tree: its digests use row hash %q: %w", eng.Spec().RowHash, err)
	}
	if root.Spec != eng.SpecID() {
		return nil, fmt.Errorf("mirror tree: root %s was built with another spec than its engine's", root.Hash.Short())
	}
	return &TreeTable{eng: eng, root: root, hash: id}, nil
}

// MirrorAt returns the MirrorTable of a mirror table at the version t
// shows (mirror.Mirror.TreeAt).
func MirrorAt(t *mirror.Tree) (*TreeTable, error) {
	tt, err := NewTreeTable(t.Engine(), t.Root)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", t.Table, t.Version.EndLSN, err)
	}
	return tt, nil
}

// Hash is the row hash the tree's digests are kept under.
func (t *TreeTable) Hash() rowhash.ID { return t.hash }

// Count is the number of rows, from the root's subtree counts.
func (t *TreeTable) Count(ctx context.Context) (uint64, error) {
	return t.eng.Count(ctx, t.root)
}

// Digest returns (count, Σ H) of the rows in [lo, hi) in O(height) node
// reads (prolly.Engine.DigestRange; the rows of the two boundary leaves
// are hashed).
func (t *TreeTable) Digest(ctx context.Context, lo, hi []byte) (rowhash.Digest, error) {
	d, err := t.eng.DigestRange(ctx, t.root, lo, hi)
	if err != nil {
		return rowhash.Digest{}, err
	}
	return rowhash.Digest{Count: d.Count, Sum: d.Sum}, nil
}

// Bounds returns up to n quantile keys, each found by position in
// O(height) (prolly.Engine.At).
func (t *TreeTable) Bounds(ctx context.Context, n int) ([][]byte, error) {
	total, err := t.Count(ctx)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for i := 1; i <= n; i++ {
		off := uint64(i) * total / uint64(n+1)
		if off == 0 || off >= total {
			continue
		}
		c, err := t.eng.At(ctx, t.root, off)
		if err != nil {
			return nil, err
		}
		if !c.Next() {
			if err := c.Err(); err != nil {
				return nil, err
			}
			continue
		}
		if k := c.Key(); len(out) == 0 || bytes.Compare(out[len(out)-1], k) < 0 {
			out = append(out, slices.Clone(k))
		}
	}
	return out, nil
}

// KeyHashes hashes every row in [lo, hi), in key order.
func (t *TreeTable) KeyHashes(ctx context.Context, lo, hi []byte, fn func(key []byte, h uint64) error) error {
	c, err := t.eng.Range(ctx, t.root, lo, hi)
	if err != nil {
		return err
	}
	for c.Next() {
		if err := fn(c.Key(), t.hash.Sum(c.Value())); err != nil {
			return err
		}
	}
	return c.Err()
}

// Buckets cuts the table into buckets of at least targetRows rows (and at
// most one leaf more), cutting only between leaves, in one walk of the
// tree's internal nodes: a subtree that lies inside one bucket contributes
// the (count, Σ H) its parent entry carries, so no row is hashed (except
// when the whole table is one leaf). The walk reads each level-1 node that
// a cut can fall in and the first leaf of each new bucket (for its key),
// those leaves batched per level-1 node: O(buckets · height) node reads in
// all.
func (t *TreeTable) Buckets(ctx context.Context, targetRows int) ([]MirrorBucket, error) {
	if targetRows < 1 {
		return nil, fmt.Errorf("buckets: target %d rows", targetRows)
	}
	w := bucketWalk{t: t, target: uint64(targetRows), out: []MirrorBucket{{}}}
	if t.root.Hash == t.eng.EmptyRoot().Hash {
		return w.out, nil
	}
	root, err := t.load(ctx, t.root.Hash, -1)
	if err != nil {
		return nil, err
	}
	if root.IsLeaf() {
		cur := &w.out[0].Digest
		for i := range root.Len() {
			*cur = cur.Add(t.hash.Sum(root.Value(i)))
		}
		return w.out, nil
	}
	if err := w.node(ctx, root); err != nil {
		return nil, err
	}
	return w.out, nil
}

// load reads one node and checks its level (want < 0: any).
func (t *TreeTable) load(ctx context.Context, h prolly.Hash, want int) (*prolly.Node, error) {
	n, err := t.eng.Store().Get(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("read node %s: %w", h.Short(), err)
	}
	if want >= 0 && n.Level() != want {
		return nil, fmt.Errorf("node %s: level %d where %d was expected: %w", h.Short(), n.Level(), want, prolly.ErrCorruptNode)
	}
	return n, nil
}

type bucketWalk struct {
	t      *TreeTable
	target uint64
	out    []MirrorBucket
}

func (w *bucketWalk) cur() *rowhash.Digest { return &w.out[len(w.out)-1].Digest }

func (w *bucketWalk) add(count, sum uint64) {
	c := w.cur()
	c.Count += count
	c.Sum += sum
}

// node adds internal node n's rows to the buckets, cutting new buckets
// where the current one is full.
func (w *bucketWalk) node(ctx context.Context, n *prolly.Node) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n.Level() == 1 {
		return w.leaves(ctx, n)
	}
	for i := range n.Len() {
		c := n.SubtreeCount(i)
		// No cut can fall inside or before this subtree: a cut happens
		// before a leaf only when the current bucket already holds
		// target rows.
		if w.cur().Count+c < w.target {
			w.add(c, n.SubtreeDigest(i))
			continue
		}
		child, err := w.t.load(ctx, n.Child(i), n.Level()-1)
		if err != nil {
			return err
		}
		if err := w.node(ctx, child); err != nil {
			return err
		}
	}
	return nil
}

// leaves adds the leaves under level-1 node n: each leaf goes wholly into
// the current bucket, or starts a new one when the current is full. The
// first keys of the leaves that start buckets are read in one GetMany.
func (w *bucketWalk) leaves(ctx context.Context, n *prolly.Node) error {
	var starts []int
	count := w.cur().Count
	for i := range n.Len() {
		if count >= w.target {
			starts = append(starts, i)
			count = 0
		}
		count += n.SubtreeCount(i)
	}
	var firsts []*prolly.Node
	if len(starts) > 0 {
		hs := make([]prolly.Hash, len(starts))
		for j, i := range starts {
			hs[j] = n.Child(i)
		}
		var err error
		if firsts, err = w.t.eng.Store().GetMany(ctx, hs); err != nil {
			return fmt.Errorf("read %d leaves: %w", len(hs), err)
		}
		if len(firsts) != len(hs) {
			return fmt.Errorf("read %d leaves: store returned %d", len(hs), len(firsts))
		}
	}
	next := 0
	for i := range n.Len() {
		if next < len(starts) && starts[next] == i {
			leaf := firsts[next]
			next++
			if !leaf.IsLeaf() || leaf.Len() == 0 {
				return fmt.Errorf("node %s: level %d with %d entries under a level 1 parent: %w", n.Child(i).Short(), leaf.Level(), leaf.Len(), prolly.ErrCorruptNode)
			}
			lo := leaf.Key(0)
			if prev := w.out[len(w.out)-1].Lo; prev != nil && bytes.Compare(prev, lo) >= 0 {
				return errors.New("leaf first keys not ascending")
			}
			w.out = append(w.out, MirrorBucket{Lo: slices.Clone(lo)})
		}
		w.add(n.SubtreeCount(i), n.SubtreeDigest(i))
	}
	return nil
}

// RangeDigester is implemented by a MirrorTable that digests consecutive
// key ranges at bounds the caller chooses, in one pass (TreeTable does),
// and knows its first and last keys. VerifyTable uses it for fixed-width
// buckets of integer keys, whose level-0 query in PostgreSQL is cheaper
// than bucketing by the mirror's own keys.
type RangeDigester interface {
	// DigestsBetween returns len(bounds)+1 digests: of the keys below
	// bounds[0], of each [bounds[i-1], bounds[i]), and of the keys from the
	// last bound on. bounds must be strictly ascending.
	DigestsBetween(ctx context.Context, bounds [][]byte) ([]rowhash.Digest, error)
	// FirstLast returns the smallest and largest keys (nil for an empty
	// table).
	FirstLast(ctx context.Context) (first, last []byte, err error)
}

// FirstLast returns the smallest and largest keys in O(height).
func (t *TreeTable) FirstLast(ctx context.Context) ([]byte, []byte, error) {
	n, err := t.Count(ctx)
	if err != nil || n == 0 {
		return nil, nil, err
	}
	var out [2][]byte
	for i, off := range []uint64{0, n - 1} {
		c, err := t.eng.At(ctx, t.root, off)
		if err != nil {
			return nil, nil, err
		}
		if !c.Next() {
			return nil, nil, fmt.Errorf("row %d of %d: %w", off, n, errors.Join(c.Err(), errors.New("cursor ended early")))
		}
		out[i] = slices.Clone(c.Key())
	}
	return out[0], out[1], nil
}

// DigestsBetween digests the ranges between bounds in one walk: a
// subtree whose keys all fall in one range adds the (count, Σ H) of its
// parent entry; only the subtrees a bound cuts are read, and only the
// rows of the leaves a bound cuts are hashed (about one leaf per bound).
func (t *TreeTable) DigestsBetween(ctx context.Context, bounds [][]byte) ([]rowhash.Digest, error) {
	for i := 1; i < len(bounds); i++ {
		if bytes.Compare(bounds[i-1], bounds[i]) >= 0 {
			return nil, fmt.Errorf("digests between bounds: not strictly ascending at %d", i)
		}
	}
	out := make([]rowhash.Digest, len(bounds)+1)
	if t.root.Hash == t.eng.EmptyRoot().Hash {
		return out, nil
	}
	root, err := t.load(ctx, t.root.Hash, -1)
	if err != nil {
		return nil, err
	}
	var walk func(n *prolly.Node, prev []byte) error
	walk = func(n *prolly.Node, prev []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n.IsLeaf() {
			for i := range n.Len() {
				b := BoundaryBucket(n.Key(i), bounds)
				out[b] = out[b].Add(t.hash.Sum(n.Value(i)))
			}
			return nil
		}
		for i := range n.Len() {
			// Child i holds the keys in (prev, Key(i)] (prev nil: unbounded).
			b := BoundaryBucket(n.Key(i), bounds)
			if b == 0 || (prev != nil && bytes.Compare(prev, bounds[b-1]) >= 0) {
				out[b].Count += n.SubtreeCount(i)
				out[b].Sum += n.SubtreeDigest(i)
			} else {
				child, err := t.load(ctx, n.Child(i), n.Level()-1)
				if err != nil {
					return err
				}
				if err := walk(child, prev); err != nil {
					return err
				}
			}
			prev = n.Key(i)
		}
		return nil
	}
	if err := walk(root, nil); err != nil {
		return nil, err
	}
	return out, nil
}
