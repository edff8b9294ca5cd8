package exec

import "testing"

// TestGroupTab checks the open-addressing index through growth: every
// row is found under its hash, rows sharing a hash (colliding on
// purpose, and landing in neighbouring slots) come in the order they
// were added, and a hash never added finds nothing.
func TestGroupTab(t *testing.T) {
	var tab groupTab
	hashOf := func(r int) uint64 {
		switch {
		case r%7 == 0:
			return 42 // one hash shared by many rows
		case r%5 == 0:
			return 43 // the slot after it
		}
		return uint64(r) * 0x9e3779b97f4a7c15
	}
	const n = 5000
	for r := range n {
		tab.add(hashOf(r), r)
	}
	if p := tab.probe(7); p.next() != -1 {
		t.Fatal("a hash never added found a row")
	}
	for _, hv := range []uint64{42, 43} {
		var got []int
		for p := tab.probe(hv); ; {
			r := p.next()
			if r < 0 {
				break
			}
			got = append(got, r)
		}
		var want []int
		for r := range n {
			if hashOf(r) == hv {
				want = append(want, r)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("hash %d: %d rows, want %d", hv, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("hash %d: row %d is %d, want %d (added order)", hv, i, got[i], want[i])
			}
		}
	}
	for r := range n {
		found := false
		for p := tab.probe(hashOf(r)); ; {
			x := p.next()
			if x < 0 {
				break
			}
			if x == r {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("row %d not found", r)
		}
	}
	if len(tab.idx) > 4*n || 2*tab.n > len(tab.idx) {
		t.Fatalf("%d rows in %d slots: not between a quarter and half full", tab.n, len(tab.idx))
	}
}
