package mirror

import (
	"context"
	"slices"
	"sort"
)

// RowsDesc is Rows from the largest key down: the rows with start <=
// key < end (nil: open), the pending edits merged in the same way.
func (t *Tree) RowsDesc(ctx context.Context, start, end []byte) (RowCursor, error) {
	p := t.pending
	if p == nil {
		return t.eng.RangeDesc(ctx, t.Root, start, end)
	}
	lo, hi := 0, len(p.keys)
	if start != nil {
		lo = sort.SearchStrings(p.keys, string(start))
	}
	if end != nil {
		hi = sort.SearchStrings(p.keys, string(end))
	}
	keys := slices.Clone(p.keys[lo:max(lo, hi)])
	slices.Reverse(keys)
	mc := &mergeCursor{keys: keys, edits: p.edits, fetch: true, desc: true}
	if !p.truncated {
		c, err := t.eng.RangeDesc(ctx, t.Root, start, end)
		if err != nil {
			return nil, err
		}
		mc.base = c
	}
	return mc, nil
}
