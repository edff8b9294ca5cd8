package prolly

import (
	"math/rand/v2"
	"testing"
)

func TestStats(t *testing.T) {
	for _, n := range []int{0, 1, 30000} {
		ms := NewMemStore(MemStoreOptions{})
		e := NewDefaultEngine(ms)
		m := randModel(rand.New(rand.NewPCG(uint64(n), 9)), n, 10*n+10, 50)
		r := m.build(t, e)
		st, err := e.Stats(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		nodes, bytes := ms.Len()
		if st.Rows != uint64(n) || st.TotalNodes() != nodes || st.TotalBytes() != bytes {
			t.Fatalf("n=%d: stats %+v; store holds %d nodes, %d bytes", n, st, nodes, bytes)
		}
		if st.Nodes[st.Height-1] != 1 {
			t.Fatalf("n=%d: %d nodes at the root level", n, st.Nodes[st.Height-1])
		}
	}
}
