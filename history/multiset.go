package history

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// mergeMultiset is the three-way merge of a REPLICA IDENTITY FULL table,
// which the mirror keeps as a multiset of whole rows
// (rowenc.AppendOccurrenceKey). A merge by key would count a row both
// sides inserted once, and one both sides deleted once; a multiset merge
// adds the two sides' changes: for every row either side changed, the
// result holds ours' count plus theirs' change (theirs - base) of it,
// at least none. Rows are their own keys, so nothing conflicts: changing
// a row is removing one occurrence and adding another.
func mergeMultiset(ctx context.Context, eng *prolly.Engine, base, ours, theirs prolly.Root) (prolly.MergeResult, error) {
	changed := map[string]bool{}
	for _, side := range []prolly.Root{ours, theirs} {
		it, err := eng.Diff(ctx, base, side, prolly.DiffOptions{})
		if err != nil {
			return prolly.MergeResult{}, err
		}
		for it.Next() {
			row, _, err := rowenc.SplitOccurrenceKey(it.Entry().Key)
			if err != nil {
				return prolly.MergeResult{}, err
			}
			changed[string(row)] = true
		}
		if err := it.Err(); err != nil {
			return prolly.MergeResult{}, err
		}
	}
	rows := make([][]byte, 0, len(changed))
	for r := range changed {
		rows = append(rows, []byte(r))
	}
	// Within a table every row has the same columns, so sorting by the
	// row sorts the keys (rowenc: vrow1 is prefix-free there).
	slices.SortFunc(rows, bytes.Compare)
	count := func(root prolly.Root, row []byte) (int64, error) {
		n, err := rowenc.CountOccurrences(row, func(key []byte) (bool, error) {
			_, ok, err := eng.Get(ctx, root, key)
			return ok, err
		})
		return int64(n), err
	}
	var edits []prolly.Edit
	applied := 0
	for _, row := range rows {
		var c [3]int64
		for i, root := range []prolly.Root{base, ours, theirs} {
			n, err := count(root, row)
			if err != nil {
				return prolly.MergeResult{}, fmt.Errorf("count %q: %w", row, err)
			}
			c[i] = n
		}
		b, o, t := c[0], c[1], c[2]
		n := max(0, o+t-b)
		for i := n; i < o; i++ {
			edits = append(edits, prolly.Edit{Key: rowenc.AppendOccurrenceKey(nil, row, uint32(i)), Delete: true})
		}
		for i := o; i < n; i++ {
			edits = append(edits, prolly.Edit{Key: rowenc.AppendOccurrenceKey(nil, row, uint32(i)), Value: row})
		}
		applied += int(max(n-o, o-n))
	}
	root, err := eng.Mutate(ctx, ours, edits)
	if err != nil {
		return prolly.MergeResult{}, err
	}
	return prolly.MergeResult{Root: root, Applied: applied}, nil
}
