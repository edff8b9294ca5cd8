package prolly

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// apply applies edits to a copy of m.
func (m model) apply(edits []Edit) model {
	c := m.clone()
	for _, ed := range edits {
		if ed.Delete {
			delete(c, string(ed.Key))
		} else {
			c[string(ed.Key)] = string(ed.Value)
		}
	}
	return c
}

func sortEdits(eds []Edit) {
	slices.SortFunc(eds, func(a, b Edit) int { return compareBytes(a.Key, b.Key) })
}

func compareBytes(a, b []byte) int {
	switch {
	case string(a) < string(b):
		return -1
	case string(a) > string(b):
		return 1
	}
	return 0
}

// randEdits returns n sorted edits with distinct keys against m: puts of new
// keys, puts over existing keys (new or same value, sometimes a value near
// or above the maximum node size), deletes of present and absent keys.
func randEdits(rng *rand.Rand, m model, n, keySpace int) []Edit {
	keys := m.sortedKeys()
	seen := map[string]bool{}
	var eds []Edit
	n = min(n, keySpace/2)
	for len(eds) < n {
		var k string
		if len(keys) > 0 && rng.IntN(2) == 0 {
			k = keys[rng.IntN(len(keys))]
		} else {
			k = intKey(rng.IntN(keySpace))
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		switch r := rng.IntN(100); {
		case r < 30:
			eds = append(eds, Edit{Key: []byte(k), Delete: true})
		case r < 35:
			if v, ok := m[k]; ok {
				eds = append(eds, Edit{Key: []byte(k), Value: []byte(v)}) // no-op put
			}
		case r < 37:
			eds = append(eds, Edit{Key: []byte(k), Value: []byte(randValue(rng, 15000+rng.IntN(3000)))})
		default:
			eds = append(eds, Edit{Key: []byte(k), Value: []byte(randValue(rng, 1+rng.IntN(80)))})
		}
	}
	sortEdits(eds)
	return eds
}

func TestMutateAgainstModel(t *testing.T) {
	for _, seed := range fixedSeeds(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 2))
			e, _ := newTestEngine(t)
			keySpace := 200 + rng.IntN(20000)
			m := randModel(rng, rng.IntN(keySpace/2), keySpace, 60)
			r := m.build(t, e)
			for step := 0; step < 25; step++ {
				n := 1 + rng.IntN(1+rng.IntN(2000))
				eds := randEdits(rng, m, n, keySpace)
				nr, err := e.Mutate(t.Context(), r, eds)
				if err != nil {
					t.Fatalf("seed %d step %d: %v", seed, step, err)
				}
				m = m.apply(eds)
				if err := e.Check(t.Context(), nr); err != nil {
					t.Fatalf("seed %d step %d (%d edits): %v", seed, step, len(eds), err)
				}
				if err := sameModel(contents(t, e, nr), m); err != nil {
					t.Fatalf("seed %d step %d: %v", seed, step, err)
				}
				r = nr
			}
		})
	}
}

func TestMutateNoOpKeepsRoot(t *testing.T) {
	e, ms := newTestEngine(t)
	rng := seedRand(t, 5, 5)
	m := randModel(rng, 5000, 100000, 40)
	r := m.build(t, e)
	var eds []Edit
	for i, k := range m.sortedKeys() {
		if i%10 == 0 {
			eds = append(eds, Edit{Key: []byte(k), Value: []byte(m[k])})
		}
	}
	eds = append(eds, Edit{Key: []byte(intKey(100001)), Delete: true})
	ms.ResetCounters()
	nr, err := e.Mutate(t.Context(), r, eds)
	if err != nil {
		t.Fatal(err)
	}
	if nr != r {
		t.Fatalf("no-op batch changed root %s -> %s", r, nr)
	}
	if ms.Writes() != 0 {
		t.Fatalf("no-op batch wrote %d nodes", ms.Writes())
	}
}

func TestMutateUnsorted(t *testing.T) {
	e, _ := newTestEngine(t)
	r := e.EmptyRoot()
	_, err := e.Mutate(t.Context(), r, []Edit{{Key: []byte("b")}, {Key: []byte("a")}})
	if !errors.Is(err, ErrUnsorted) {
		t.Fatalf("err = %v, want ErrUnsorted", err)
	}
}

func TestMutateGrowAndShrink(t *testing.T) {
	e, _ := newTestEngine(t)
	r := e.EmptyRoot()
	m := model{}
	rng := seedRand(t, 9, 9)
	// Grow from empty to several levels in appends, then delete it all in
	// chunks from the front and the back.
	for i := 0; i < 60000; i += 3000 {
		var eds []Edit
		for j := i; j < i+3000; j++ {
			eds = append(eds, Edit{Key: []byte(intKey(j)), Value: []byte(randValue(rng, 30))})
		}
		var err error
		if r, err = e.Mutate(t.Context(), r, eds); err != nil {
			t.Fatal(err)
		}
		m = m.apply(eds)
		mustCheck(t, e, r)
	}
	root, _ := e.load(t.Context(), r.Hash)
	if root.Level() < 2 {
		t.Fatalf("tree of 60000 rows has root level %d", root.Level())
	}
	lo, hi := 0, 60000
	for lo < hi {
		var eds []Edit
		for j := lo; j < min(lo+2500, hi); j++ {
			eds = append(eds, Edit{Key: []byte(intKey(j)), Delete: true})
		}
		for j := max(hi-2500, lo+2500); j < hi; j++ {
			eds = append(eds, Edit{Key: []byte(intKey(j)), Delete: true})
		}
		lo, hi = lo+2500, max(hi-2500, lo+2500)
		var err error
		if r, err = e.Mutate(t.Context(), r, eds); err != nil {
			t.Fatal(err)
		}
		m = m.apply(eds)
		mustCheck(t, e, r)
		if err := sameModel(contents(t, e, r), m); err != nil {
			t.Fatal(err)
		}
	}
	if r != e.EmptyRoot() {
		t.Fatalf("deleting every row left root %s, want the empty root %s", r, e.EmptyRoot())
	}
}
