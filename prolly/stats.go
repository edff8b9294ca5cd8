package prolly

import (
	"context"
	"fmt"
)

// TreeStats describes the shape of a tree.
type TreeStats struct {
	Rows   uint64
	Height int   // levels, leaves included (1 for a single leaf)
	Nodes  []int // nodes per level, leaves first
	Bytes  []int64
}

// TotalNodes returns the number of nodes of all levels.
func (s TreeStats) TotalNodes() int {
	t := 0
	for _, n := range s.Nodes {
		t += n
	}
	return t
}

// TotalBytes returns the encoded bytes of all nodes (before any compression
// by the store).
func (s TreeStats) TotalBytes() int64 {
	var t int64
	for _, b := range s.Bytes {
		t += b
	}
	return t
}

// statsBatch bounds how many nodes Stats reads in one GetMany.
const statsBatch = 1024

// Stats reads every node of the tree at r, level by level in GetMany
// batches, and reports node counts and encoded bytes per level. O(N).
func (e *Engine) Stats(ctx context.Context, r Root) (TreeStats, error) {
	root, err := e.loadRoot(ctx, r)
	if err != nil {
		return TreeStats{}, err
	}
	h := root.Level() + 1
	st := TreeStats{Rows: root.TreeCount(), Height: h, Nodes: make([]int, h), Bytes: make([]int64, h)}
	level := []*Node{root}
	for {
		lv := level[0].Level()
		var children []Hash
		for _, n := range level {
			st.Nodes[lv]++
			st.Bytes[lv] += int64(len(n.Bytes()))
			for i := 0; lv > 0 && i < n.Len(); i++ {
				children = append(children, n.Child(i))
			}
		}
		if lv == 0 {
			return st, nil
		}
		// Leaves are counted as they arrive and not kept: memory stays
		// bounded by the internal levels.
		level = level[:0]
		for i := 0; i < len(children); i += statsBatch {
			ns, err := e.loadMany(ctx, children[i:min(i+statsBatch, len(children))])
			if err != nil {
				return st, err
			}
			for j, n := range ns {
				if n.Level() != lv-1 {
					return st, fmt.Errorf("node %s: level %d under level %d: %w", children[i+j].Short(), n.Level(), lv, ErrCorruptNode)
				}
				if lv-1 == 0 {
					st.Nodes[0]++
					st.Bytes[0] += int64(len(n.Bytes()))
					continue
				}
				level = append(level, n)
			}
		}
		if lv-1 == 0 {
			return st, nil
		}
	}
}
