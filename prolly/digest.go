package prolly

import (
	"bytes"
	"context"
)

// Digest summarises a set of rows: their number and Σ rowhash(key, value)
// mod 2^64. Sums compose: the digest of a union of disjoint ranges is the
// sum of their digests, which is what lets internal entries carry them.
type Digest struct {
	Count uint64
	Sum   uint64
}

// Add returns the digest of the union of two disjoint row sets.
func (d Digest) Add(o Digest) Digest { return Digest{d.Count + o.Count, d.Sum + o.Sum} }

// DigestRange returns the digest of the rows with start <= key < end (nil
// leaves a side unbounded). Children wholly inside the range contribute the
// (count, digest) their parent entry carries; only the nodes on the paths to
// the two ends are read and only the two boundary leaves are hashed: O(height)
// node reads at any tree size.
func (e *Engine) DigestRange(ctx context.Context, r Root, start, end []byte) (Digest, error) {
	n, err := e.loadRoot(ctx, r)
	if err != nil {
		return Digest{}, err
	}
	if start != nil && end != nil && bytes.Compare(start, end) >= 0 {
		return Digest{}, nil
	}
	return e.digestNode(ctx, n, nil, false, start, end)
}

// digestNode digests the rows of n inside [start, end); lo (when loOK) is an
// exclusive lower bound of n's keys: the last key of the subtree before it.
func (e *Engine) digestNode(ctx context.Context, n *Node, lo []byte, loOK bool, start, end []byte) (Digest, error) {
	var d Digest
	if n.IsLeaf() {
		i := 0
		if start != nil {
			i = n.search(start, false)
		}
		for ; i < n.Len(); i++ {
			k := n.Key(i)
			if end != nil && bytes.Compare(k, end) >= 0 {
				break
			}
			d.Count++
			d.Sum += e.rowHash(k, n.Value(i))
		}
		return d, nil
	}
	i := 0
	if start != nil {
		i = n.search(start, false) // first child whose last key ≥ start
	}
	for ; i < n.Len(); i++ {
		prev, prevOK := lo, loOK
		if i > 0 {
			prev, prevOK = n.Key(i-1), true
		}
		// Child i holds keys in (prev, Key(i)].
		if end != nil && prevOK && bytes.Compare(prev, end) >= 0 {
			break
		}
		inside := (start == nil || (prevOK && bytes.Compare(prev, start) >= 0)) &&
			(end == nil || bytes.Compare(n.Key(i), end) < 0)
		if inside {
			d = d.Add(Digest{n.SubtreeCount(i), n.SubtreeDigest(i)})
			continue
		}
		child, err := e.loadChild(ctx, n, i)
		if err != nil {
			return Digest{}, err
		}
		cd, err := e.digestNode(ctx, child, prev, prevOK, start, end)
		if err != nil {
			return Digest{}, err
		}
		d = d.Add(cd)
	}
	return d, nil
}
