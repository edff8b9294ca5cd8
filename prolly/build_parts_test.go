package prolly

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// kvRows is Rows over two parallel slices.
type kvRows struct{ keys, vals [][]byte }

func (r kvRows) Len() int                    { return len(r.keys) }
func (r kvRows) Row(i int) (key, val []byte) { return r.keys[i], r.vals[i] }

// TestBuildPartsMatchesBuilder: BuildParts gives the root one Builder
// gives for the same rows, and stores exactly the same nodes (no leaf
// cut only by a part's own chunking is written), whatever the split into
// parts: empty parts, one-row parts, parts shorter than a leaf, rows
// larger than the maximum node size (forced boundaries), with the default
// and a tiny node size.
func TestBuildPartsMatchesBuilder(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 3))
	for iter := range 60 {
		spec := DefaultSpec()
		if iter%2 == 1 {
			spec = tinySpec()
		}
		n := rng.IntN(20_000)
		if iter < 4 {
			n = iter // 0..3 rows
		}
		keys := make([][]byte, n)
		vals := make([][]byte, n)
		k := uint64(0)
		for i := range keys {
			k += 1 + uint64(rng.IntN(5))
			keys[i] = binary.BigEndian.AppendUint64(make([]byte, 0, 12), k)
			if rng.IntN(3) == 0 {
				keys[i] = append(keys[i], byte(rng.IntN(256)))
			}
			size := rng.IntN(80)
			if rng.IntN(500) == 0 {
				size = spec.MaxNodeSize + rng.IntN(2*spec.MaxNodeSize) // oversized
			}
			vals[i] = make([]byte, size)
			for j := range vals[i] {
				vals[i][j] = byte(rng.IntN(256))
			}
		}
		// The reference: one Builder.
		ref := NewMemStore(MemStoreOptions{Copy: true, Verify: true})
		re, err := NewEngine(ref, spec, DefaultRowHash())
		if err != nil {
			t.Fatal(err)
		}
		b := re.NewBuilder(t.Context())
		for i := range keys {
			if err := b.Add(keys[i], vals[i]); err != nil {
				t.Fatal(err)
			}
		}
		want, err := b.Finish()
		if err != nil {
			t.Fatal(err)
		}
		// Random cuts, some parts empty or tiny.
		var parts []Rows
		for i := 0; i <= n; {
			size := rng.IntN(4)
			switch rng.IntN(3) {
			case 1:
				size = rng.IntN(200)
			case 2:
				size = rng.IntN(5000)
			}
			end := min(i+size, n)
			parts = append(parts, kvRows{keys[i:end], vals[i:end]})
			if end == n {
				break
			}
			i = end
		}
		ms := NewMemStore(MemStoreOptions{Copy: true, Verify: true})
		e, err := NewEngine(ms, spec, DefaultRowHash())
		if err != nil {
			t.Fatal(err)
		}
		workers := 1 + rng.IntN(4)
		got, err := e.BuildParts(t.Context(), parts, workers)
		if err != nil {
			t.Fatalf("seed %d iteration %d: %v", seed, iter, err)
		}
		if got != want {
			t.Fatalf("seed %d iteration %d (%d rows, %d parts, %d workers): root %s, one Builder %s", seed, iter, n, len(parts), workers, got.Hash.Short(), want.Hash.Short())
		}
		gn, gb := ms.Len()
		wn, wb := ref.Len()
		if gn != wn || gb != wb {
			t.Fatalf("seed %d iteration %d: stored %d nodes (%d B), one Builder %d (%d B)", seed, iter, gn, gb, wn, wb)
		}
		mustCheck(t, e, got)
	}
}

// TestBuildPartsUnsorted: keys out of order inside a part or across a
// seam are ErrUnsorted.
func TestBuildPartsUnsorted(t *testing.T) {
	key := func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }
	mk := func(ids ...int) kvRows {
		var r kvRows
		for _, i := range ids {
			r.keys = append(r.keys, key(i))
			r.vals = append(r.vals, bytes.Repeat([]byte{'v'}, 40))
		}
		return r
	}
	seq := func(from, to int) []int {
		var s []int
		for i := from; i < to; i++ {
			s = append(s, i)
		}
		return s
	}
	cases := map[string][]Rows{
		"inside a part":   {mk(seq(0, 100)...), mk(append(seq(100, 200), 150)...)},
		"across a seam":   {mk(seq(0, 3000)...), mk(seq(2000, 4000)...)},
		"equal at a seam": {mk(seq(0, 3000)...), mk(seq(2999, 4000)...)},
	}
	// An early bad seam with many parts after it: the workers waiting
	// for a slot must stop.
	many := []Rows{mk(seq(0, 10)...), mk(seq(5, 20)...)}
	for i := 1; i < 50; i++ {
		many = append(many, mk(seq(i*1000, i*1000+500)...))
	}
	cases["early seam, many parts"] = many
	for name, parts := range cases {
		t.Run(name, func(t *testing.T) {
			e, _ := newTestEngine(t)
			if _, err := e.BuildParts(t.Context(), parts, 2); !errors.Is(err, ErrUnsorted) {
				t.Fatalf("err = %v, want ErrUnsorted", err)
			}
		})
	}
}
