package radixindex

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// sortedSet returns n distinct keys of generator g, sorted, stored in rs.
func sortedSet(rng *rand.Rand, g keyGen, n int, rs *rows, m *model) {
	seen := map[string]bool{}
	for i := 0; i < n*4 && len(seen) < n; i++ {
		seen[string(g.gen(rng))] = true
	}
	for k := range seen {
		m.keys = append(m.keys, k)
	}
	sort.Strings(m.keys)
	for _, k := range m.keys {
		m.ids[k] = rs.add([]byte(k))
	}
}

func (m *model) seq() func(func([]byte, uint64) bool) {
	return func(yield func([]byte, uint64) bool) {
		for _, k := range m.keys {
			if !yield([]byte(k), m.ids[k]) {
				return
			}
		}
	}
}

// TestRebuild bulk-loads sorted keys of every shape, checks the tree
// against the model, and then runs random operations on it.
func TestRebuild(t *testing.T) {
	forEachGen(t, 100, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs := &rows{}
		m := &model{ids: map[string]uint64{}}
		sortedSet(rng, g, 1+rng.IntN(3000), rs, m)
		tr := New(rs.keyOf)
		if err := tr.Rebuild(m.seq()); err != nil {
			t.Fatalf("seed %d: Rebuild: %v", seed, err)
		}
		if err := tr.Verify(); err != nil {
			t.Fatalf("seed %d: Verify after Rebuild: %v", seed, err)
		}
		if tr.Len() != len(m.keys) {
			t.Fatalf("seed %d: Len %d, want %d", seed, tr.Len(), len(m.keys))
		}
		for _, k := range m.keys {
			if id, ok := tr.Get([]byte(k)); !ok || id != m.ids[k] {
				t.Fatalf("seed %d: Get(%x) = %d,%v, want %d", seed, k, id, ok, m.ids[k])
			}
		}
		runModel(t, rng, g, 3000, seed, tr, rs, m)
	})
}

func TestRebuildRejectsDisorder(t *testing.T) {
	rs := &rows{}
	tr := New(rs.keyOf)
	tr.Put([]byte("keep"), rs.add([]byte("keep")))
	for _, keys := range [][]string{{"b", "a"}, {"a", "a"}, {"ab", "a"}} {
		src := func(yield func([]byte, uint64) bool) {
			for _, k := range keys {
				if !yield([]byte(k), rs.add([]byte(k))) {
					return
				}
			}
		}
		err := tr.Rebuild(src)
		if err == nil || !strings.Contains(err.Error(), "strictly increasing") {
			t.Fatalf("Rebuild(%q) = %v, want a disorder error", keys, err)
		}
		if id, ok := tr.Get([]byte("keep")); !ok || id != 0 || tr.Len() != 1 {
			t.Fatalf("Rebuild(%q) failed but changed the tree", keys)
		}
	}
}

// TestRebuildMatchesPut: a bulk-built tree and one built by Puts in random
// order hold the same keys in the same order and the same ids.
func TestRebuildMatchesPut(t *testing.T) {
	rs := &rows{}
	m := &model{ids: map[string]uint64{}}
	for i := range 5000 {
		k := binary.BigEndian.AppendUint32(nil, uint32(i*7919%100003))
		m.keys = append(m.keys, string(k))
		m.ids[string(k)] = rs.add(k)
	}
	sort.Strings(m.keys)
	bulk := New(rs.keyOf)
	if err := bulk.Rebuild(m.seq()); err != nil {
		t.Fatal(err)
	}
	puts := New(rs.keyOf)
	for _, k := range slices.Clone(m.keys) {
		puts.Put([]byte(k), m.ids[k])
	}
	a, b := bulk.Iter(nil), puts.Iter(nil)
	n := 0
	for oka, okb := a.First(), b.First(); oka || okb; oka, okb = a.Next(), b.Next() {
		if oka != okb || a.RowID() != b.RowID() || !bytes.Equal(a.Key(), b.Key()) {
			t.Fatalf("entry %d differs", n)
		}
		n++
	}
	if n != len(m.keys) {
		t.Fatalf("%d entries, want %d", n, len(m.keys))
	}
}
