package rowenc

import (
	"bytes"
	"math/bits"
	"slices"
	"testing"
)

// TestCountOccurrences checks the doubling-and-bisection count against
// dense numberings of every size up to 70, and its number of probes.
func TestCountOccurrences(t *testing.T) {
	row := Encode([][]byte{[]byte("a"), nil})
	for n := range 70 {
		probes := 0
		got, err := CountOccurrences(row, func(key []byte) (bool, error) {
			probes++
			r, occ, err := SplitOccurrenceKey(key)
			if !bytes.Equal(r, row) {
				t.Fatalf("probed key %x of another row", key)
			}
			return int(occ) < n, err
		})
		if err != nil || got != uint32(n) {
			t.Fatalf("n=%d: CountOccurrences = %d, %v", n, got, err)
		}
		if limit := 2 + 2*bits.Len(uint(n)); probes > limit {
			t.Errorf("n=%d: %d probes, want at most %d", n, probes, limit)
		}
	}
}

// TestOccurrenceKeyOrder: within a table (one column count), multiset
// keys sort by row, then by occurrence number, and split back into both.
func TestOccurrenceKeyOrder(t *testing.T) {
	rows := [][]byte{
		Encode([][]byte{[]byte("1"), nil}),
		Encode([][]byte{[]byte("1"), {}}),
		Encode([][]byte{[]byte("10"), nil}),
		Encode([][]byte{[]byte("2"), []byte("a")}),
		Encode([][]byte{nil, []byte("a")}),
	}
	slices.SortFunc(rows, bytes.Compare)
	var prev []byte
	for _, r := range rows {
		for _, occ := range []uint32{0, 1, 255, 256, 1 << 24} {
			k := AppendOccurrenceKey(nil, r, occ)
			if prev != nil && bytes.Compare(prev, k) >= 0 {
				t.Errorf("key %x (row %q, occurrence %d) not above %x", k, r, occ, prev)
			}
			back, n, err := SplitOccurrenceKey(k)
			if err != nil || !bytes.Equal(back, r) || n != occ {
				t.Errorf("split %x = %q %d %v", k, back, n, err)
			}
			prev = k
		}
	}
	if _, _, err := SplitOccurrenceKey([]byte{1, 2}); err == nil {
		t.Error("a 2-byte key split")
	}
}
