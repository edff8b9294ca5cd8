package prolly

import (
	"slices"
	"testing"
)

// TestRangeDesc: a reverse cursor gives exactly the rows of [start, end)
// from the largest key down, over trees of one leaf to several levels,
// bounds inside, between, before and after the keys, and the empty tree.
func TestRangeDesc(t *testing.T) {
	e, _ := newTestEngine(t)
	rng := seedRand(t, 37, 37)
	if c, err := e.RangeDesc(t.Context(), e.EmptyRoot(), nil, nil); err != nil || c.Next() {
		t.Fatalf("empty tree: a row, or %v", err)
	}
	for _, n := range []int{1, 7, 300, 40000} {
		const keySpace = 100000
		m := randModel(rng, n, keySpace, 40)
		r := m.build(t, e)
		keys := m.sortedKeys()
		for trial := 0; trial < 60; trial++ {
			var start, end []byte
			switch trial % 5 {
			case 1:
				start = []byte(intKey(rng.IntN(keySpace)))
			case 2:
				end = []byte(intKey(rng.IntN(keySpace)))
			case 3, 4:
				start, end = []byte(intKey(rng.IntN(keySpace))), []byte(intKey(rng.IntN(keySpace)))
			}
			if trial == 4 && len(keys) > 0 { // bounds on existing keys
				start, end = []byte(keys[0]), []byte(keys[len(keys)-1])
			}
			lo, hi := 0, len(keys)
			if start != nil {
				lo, _ = slices.BinarySearch(keys, string(start))
			}
			if end != nil {
				hi, _ = slices.BinarySearch(keys, string(end))
			}
			c, err := e.RangeDesc(t.Context(), r, start, end)
			if err != nil {
				t.Fatal(err)
			}
			i := hi - 1
			for c.Next() {
				if i < lo || string(c.Key()) != keys[i] || string(c.Value()) != m[keys[i]] {
					t.Fatalf("n=%d [%x,%x) row %d: got %x, want index %d of [%d,%d)", n, start, end, hi-1-i, c.Key(), i, lo, hi)
				}
				i--
			}
			if err := c.Err(); err != nil {
				t.Fatal(err)
			}
			if i >= lo && lo < hi {
				t.Fatalf("n=%d [%x,%x): stopped at index %d, want %d rows down to %d", n, start, end, i, hi-lo, lo)
			}
		}
	}
}
