package prolly

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestBuildGetRange(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 100, 5000, 40000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			e, _ := newTestEngine(t)
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			m := randModel(rng, n, 10*n+10, 60)
			r := m.build(t, e)
			mustCheck(t, e, r)
			if err := sameModel(contents(t, e, r), m); err != nil {
				t.Fatal(err)
			}
			cnt, err := e.Count(t.Context(), r)
			if err != nil || cnt != uint64(n) {
				t.Fatalf("Count = %d, %v; want %d", cnt, err, n)
			}
			for i := 0; i < 200; i++ {
				k := intKey(rng.IntN(10*n + 10))
				v, ok, err := e.Get(t.Context(), r, []byte(k))
				if err != nil {
					t.Fatal(err)
				}
				want, wok := m[k]
				if ok != wok || string(v) != want {
					t.Fatalf("Get(%x) = %q,%v; want %q,%v", k, v, ok, want, wok)
				}
			}
		})
	}
}

func TestBuildUnsorted(t *testing.T) {
	e, _ := newTestEngine(t)
	b := e.NewBuilder(t.Context())
	if err := b.Add([]byte("b"), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Add([]byte("b"), nil); !errors.Is(err, ErrUnsorted) {
		t.Fatalf("duplicate key: err = %v, want ErrUnsorted", err)
	}
	if _, err := b.Finish(); !errors.Is(err, ErrUnsorted) {
		t.Fatalf("Finish after error: %v", err)
	}
}

// TestGoldenRoot pins the root hash of a fixed input: any change to the node
// format, the boundary rule, the seeds or the row hash must fail here and be
// made on purpose, with a new FormatVersion or Spec field.
func TestGoldenRoot(t *testing.T) {
	e, ms := newTestEngine(t)
	b := e.NewBuilder(t.Context())
	var k [24]byte
	for i := 0; i < 100000; i++ {
		binary.BigEndian.PutUint64(k[16:], uint64(i)*2654435761)
		binary.BigEndian.PutUint64(k[:8], uint64(i))
		v := fmt.Sprintf("value-%021d", i*7)
		if err := b.Add(k[:], []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	const want = "a771b4979a89c133fde475aaf665d84f9e3d1f6d"
	nodes, bytes := ms.Len()
	if got := r.Hash.String(); got != want {
		t.Fatalf("golden root = %s (spec %s, %d nodes, %d bytes), want %s", got, r.Spec, nodes, bytes, want)
	}
	if got := r.Spec.String(); got != "67d0f94a7d7b23b9" {
		t.Fatalf("default spec id = %s", got)
	}
}
