package prolly

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// sampleNodes returns encoded leaves and internal nodes of a small tree.
func sampleNodes(t testing.TB) [][]byte {
	t.Helper()
	ms := NewMemStore(MemStoreOptions{})
	e := NewDefaultEngine(ms)
	rng := rand.New(rand.NewPCG(1, 1))
	m := randModel(rng, 3000, 100000, 30)
	b := e.NewBuilder(t.Context())
	for _, k := range m.sortedKeys() {
		if err := b.Add([]byte(k), []byte(m[k])); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	root, err := e.load(t.Context(), r.Hash)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := e.load(t.Context(), root.Child(0))
	for !leaf.IsLeaf() && err == nil {
		leaf, err = e.load(t.Context(), leaf.Child(0))
	}
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{root.Bytes(), leaf.Bytes(), encodeEmptyLeaf()}
}

func TestDecodeRejectsCorruption(t *testing.T) {
	for _, data := range sampleNodes(t) {
		n, err := DecodeNode(data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(n.Bytes(), data) {
			t.Fatal("Bytes() differs from the input")
		}
		// Every truncation and every extension must fail.
		for i := 0; i < len(data); i++ {
			if _, err := DecodeNode(data[:i]); !errors.Is(err, ErrCorruptNode) {
				t.Fatalf("truncated to %d of %d bytes: err = %v", i, len(data), err)
			}
		}
		if _, err := DecodeNode(append(bytes.Clone(data), 0)); !errors.Is(err, ErrCorruptNode) {
			t.Fatalf("trailing byte accepted: %v", err)
		}
		bad := bytes.Clone(data)
		bad[0] = FormatVersion + 1
		if _, err := DecodeNode(bad); !errors.Is(err, ErrCorruptNode) {
			t.Fatalf("unknown version accepted: %v", err)
		}
	}
}

func TestDecodeRejectsUnorderedKeys(t *testing.T) {
	ms := NewMemStore(MemStoreOptions{})
	e := NewDefaultEngine(ms)
	var got *Node
	w := newLevelWriter(e.params, 0, func(n *Node, _ Hash, _ item) error { got = n; return nil })
	for _, k := range []string{"a", "c", "b"} { // the writer trusts its caller
		if err := w.add(&item{key: []byte(k), val: []byte("v"), count: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeNode(got.Bytes()); !errors.Is(err, ErrCorruptNode) {
		t.Fatalf("unordered keys accepted: %v", err)
	}
}

// FuzzDecodeNode feeds arbitrary bytes to the decoder: it must never panic,
// and whatever it accepts must be readable end to end and re-encode to the
// same bytes.
func FuzzDecodeNode(f *testing.F) {
	for _, d := range sampleNodes(f) {
		f.Add(d)
	}
	f.Add([]byte{FormatVersion, 1, 1, 0, 0, 0})
	f.Add([]byte{FormatVersion, 0, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := DecodeNode(data)
		if err != nil {
			return
		}
		ms := NewMemStore(MemStoreOptions{})
		e := NewDefaultEngine(ms)
		var re []byte
		w := newLevelWriter(e.params, n.Level(), func(m *Node, _ Hash, _ item) error { re = m.Bytes(); return nil })
		w.sp.p = &splitParams{min: 1 << 30, max: 1 << 30} // never split
		for i := 0; i < n.Len(); i++ {
			it := item{key: n.Key(i)}
			if n.IsLeaf() {
				it.val, it.count = n.Value(i), 1
			} else {
				it.ref, it.count, it.digest = n.Child(i), n.SubtreeCount(i), n.SubtreeDigest(i)
			}
			if err := w.add(&it); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.flush(); err != nil {
			t.Fatal(err)
		}
		if n.Len() == 0 {
			re = encodeEmptyLeaf()
			re[1] = byte(n.Level())
		}
		if !bytes.Equal(re, data) {
			t.Fatalf("decoded node re-encodes to %x, input %x", re, data)
		}
	})
}

func TestSpecID(t *testing.T) {
	a := DefaultSpec()
	b := a
	b.MaxNodeSize++
	if a.ID() == b.ID() {
		t.Fatal("changing MaxNodeSize kept the spec id")
	}
	c := a
	c.RowHash = "other"
	if a.ID() == c.ID() {
		t.Fatal("changing the row hash kept the spec id")
	}
	id, err := ParseSpecID(a.ID().String())
	if err != nil || id != a.ID() {
		t.Fatalf("ParseSpecID round trip: %v %v", id, err)
	}
	// A root from another spec is refused, not misread.
	ms := NewMemStore(MemStoreOptions{})
	other, err := NewEngine(ms, c, RowHash{ID: "other", Fn: func(k, v []byte) uint64 { return 1 }})
	if err != nil {
		t.Fatal(err)
	}
	e := NewDefaultEngine(ms)
	if _, _, err := e.Get(t.Context(), other.EmptyRoot(), []byte("k")); !errors.Is(err, ErrSpecMismatch) {
		t.Fatalf("foreign root: err = %v, want ErrSpecMismatch", err)
	}
	if _, err := NewEngine(ms, a, RowHash{ID: "other", Fn: func(k, v []byte) uint64 { return 1 }}); err == nil {
		t.Fatal("row hash not matching the spec accepted")
	}
}

// indexedNode returns an internal-node view over sorted keys with its
// search index filled, as parseNode does.
func indexedNode(keys [][]byte) *Node {
	n := &Node{level: 1, n: len(keys)}
	for _, k := range keys {
		n.keys = append(n.keys, k...)
		n.keyEnds = le.AppendUint32(n.keyEnds, uint32(len(n.keys)))
	}
	n.index()
	return n
}

// The prefix-indexed search must agree with a linear scan for every probe,
// including keys shorter than the common prefix, ties on the 8-byte prefix
// and probes below, between and above the node's keys.
func TestSearchIndexedMatchesLinear(t *testing.T) {
	for seed := range seed.Each(t, seedFlag, seedRange(1, 300)) {
		rng := rand.New(rand.NewPCG(seed, 7))
		common := make([]byte, rng.IntN(6))
		for i := range common {
			common[i] = byte(rng.IntN(3))
		}
		randKey := func() []byte {
			k := append([]byte(nil), common[:rng.IntN(len(common)+1)]...)
			if rng.IntN(4) > 0 {
				k = append(k[:0], common...)
			}
			for range rng.IntN(12) {
				k = append(k, byte(rng.IntN(3)))
			}
			return k
		}
		set := map[string]bool{}
		for range 1 + rng.IntN(40) {
			set[string(randKey())] = true
		}
		var keys [][]byte
		for k := range set {
			keys = append(keys, []byte(k))
		}
		slices.SortFunc(keys, bytes.Compare)
		n := indexedNode(keys)
		for range 200 {
			probe := randKey()
			for _, strict := range []bool{false, true} {
				want := len(keys)
				for i, k := range keys {
					if c := bytes.Compare(k, probe); c > 0 || (c == 0 && !strict) {
						want = i
						break
					}
				}
				if got := n.search(probe, strict); got != want {
					t.Fatalf("seed %d: search(%x, strict=%v) = %d, want %d (keys %x)", seed, probe, strict, got, want, keys)
				}
				from := rng.IntN(len(keys) + 1)
				if !strict {
					wantFrom := max(want, from)
					if got := from + n.searchFrom(from, probe); got != wantFrom {
						t.Fatalf("seed %d: searchFrom(%d, %x) = %d, want %d (keys %x)", seed, from, probe, got, wantFrom, keys)
					}
				}
			}
		}
	}
}
