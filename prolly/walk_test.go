package prolly

import (
	"testing"
)

// TestWalkMarksSharedOnce marks two versions that share most nodes: every
// node of both is visited exactly once, leaves are never read, and the
// marked set is exactly the store's content.
func TestWalkMarksSharedOnce(t *testing.T) {
	ms := NewMemStore(MemStoreOptions{})
	e := NewDefaultEngine(ms)
	rng := seedRand(t, 61, 61)
	m := randModel(rng, 40000, 400000, 40)
	a := m.build(t, e)
	b, err := e.Mutate(t.Context(), a, randEdits(rng, m, 300, 400000))
	if err != nil {
		t.Fatal(err)
	}
	stA, err := e.Stats(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	marked := map[Hash]int{}
	visit := func(h Hash, level int) (bool, error) {
		marked[h]++
		return marked[h] == 1, nil
	}
	ms.ResetCounters()
	for _, r := range []Root{a, b} {
		if err := e.Walk(t.Context(), r, visit); err != nil {
			t.Fatal(err)
		}
	}
	// Only internal nodes were read (root of each version included).
	internal := stA.TotalNodes() - stA.Nodes[0]
	if reads := ms.Reads(); reads > int64(2*internal) {
		t.Fatalf("walk read %d nodes; the first tree has %d internal nodes", reads, internal)
	}
	nodes, _ := ms.Len()
	if len(marked) != nodes {
		t.Fatalf("marked %d nodes, the store holds %d (every node is reachable from a or b)", len(marked), nodes)
	}
	for h := range marked {
		if _, err := ms.Get(t.Context(), h); err != nil {
			t.Fatalf("marked node %s not in the store: %v", h.Short(), err)
		}
	}
}
