package history

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// TestMergeMultisetModel merges random multisets (counts of a few rows on
// base, ours and theirs) and checks every row's count against the model,
// max(0, ours + theirs - base), and the result's root against a fresh
// build of the model's multiset (the merge is history independent too).
func TestMergeMultisetModel(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 5))
	f := historytest.New(t)
	eng := f.Mirror.Engine()
	var rows [][]byte
	for i := range 6 {
		rows = append(rows, rowenc.Encode([][]byte{fmt.Append(nil, i%3), map[bool][]byte{true: nil, false: []byte("x")}[i < 3]}))
	}
	build := func(counts []int) prolly.Root {
		t.Helper()
		var edits []prolly.Edit
		for _, i := range sortedRowIndexes(rows) {
			for occ := range counts[i] {
				edits = append(edits, prolly.Edit{Key: rowenc.AppendOccurrenceKey(nil, rows[i], uint32(occ)), Value: rows[i]})
			}
		}
		root, err := eng.Mutate(t.Context(), eng.EmptyRoot(), edits)
		if err != nil {
			t.Fatal(err)
		}
		return root
	}
	for iter := range 200 {
		b, o, th, want := make([]int, len(rows)), make([]int, len(rows)), make([]int, len(rows)), make([]int, len(rows))
		for i := range rows {
			b[i] = rng.IntN(4)
			o[i] = max(0, b[i]+rng.IntN(5)-2)
			th[i] = max(0, b[i]+rng.IntN(5)-2)
			want[i] = max(0, o[i]+th[i]-b[i])
		}
		res, err := mergeMultiset(t.Context(), eng, build(b), build(o), build(th))
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range rows {
			n, err := rowenc.CountOccurrences(row, func(key []byte) (bool, error) {
				_, ok, err := eng.Get(t.Context(), res.Root, key)
				return ok, err
			})
			if err != nil || int(n) != want[i] {
				t.Fatalf("seed %d iteration %d row %q: base %d ours %d theirs %d merged %d (%v), want %d", seed, iter, row, b[i], o[i], th[i], n, err, want[i])
			}
		}
		if w := build(want); res.Root != w {
			t.Fatalf("seed %d iteration %d: merged root %s, a build of the same multiset %s", seed, iter, res.Root.Hash.Short(), w.Hash.Short())
		}
	}
}

// sortedRowIndexes returns the indexes of rows in byte order of the rows.
func sortedRowIndexes(rows [][]byte) []int {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return bytes.Compare(rows[a], rows[b]) })
	return idx
}
