package prolly

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// tinySpec cuts nodes of a few items, so short fuzz inputs still build
// trees several levels high.
func tinySpec() Spec {
	s := DefaultSpec()
	s.WeibullLambda, s.MinNodeSize, s.MaxNodeSize = 64, 16, 128
	return s
}

// FuzzEdits decodes the input into batches of puts and deletes over a small
// key space, applies each with Mutate, and checks the tree against a map and
// the structural validator (which also rebuilds from scratch: history
// independence).
func FuzzEdits(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255, 10, 11, 12})
	f.Add([]byte{200, 1, 200, 2, 200, 3, 255, 1, 2, 3, 255, 100, 101})
	seed := make([]byte, 600)
	for i := range seed {
		seed[i] = byte(i*37 + i/7)
	}
	f.Add(seed)
	f.Fuzz(fuzzEdits)
}

func fuzzEdits(t *testing.T, data []byte) {
	if len(data) > 1024 {
		data = data[:1024] // long inputs only slow the fuzzer down
	}
	{
		e, err := NewEngine(NewMemStore(MemStoreOptions{Copy: true, Verify: true}), tinySpec(), DefaultRowHash())
		if err != nil {
			t.Fatal(err)
		}
		r := e.EmptyRoot()
		m := model{}
		batch := map[string]Edit{}
		apply := func() {
			var eds []Edit
			for _, ed := range batch {
				eds = append(eds, ed)
			}
			sortEdits(eds)
			nr, err := e.Mutate(t.Context(), r, eds)
			if err != nil {
				t.Fatal(err)
			}
			m = m.apply(eds)
			if err := e.Check(t.Context(), nr); err != nil {
				t.Fatalf("after %d edits: %v", len(eds), err)
			}
			if err := sameModel(contents(t, e, nr), m); err != nil {
				t.Fatal(err)
			}
			r, batch = nr, map[string]Edit{}
		}
		for i, b := range data {
			if b == 255 {
				apply()
				continue
			}
			var k [2]byte
			binary.BigEndian.PutUint16(k[:], uint16(b%128)*3)
			key := string(k[:])
			if b >= 128 {
				batch[key] = Edit{Key: []byte(key), Delete: true}
			} else {
				// Value length varies with position, sometimes above
				// the maximum node size.
				n := (i*7 + int(b)) % 40
				if i%29 == 0 {
					n = 300
				}
				v := make([]byte, n)
				for j := range v {
					v[j] = byte(i + j)
				}
				batch[key] = Edit{Key: []byte(key), Value: v}
			}
		}
		apply()
	}
}

// TestMutateOversizedKeys runs random batches with keys and values often
// larger than the maximum node size, under tinySpec, so forced boundaries
// happen at every level, internal ones included.
func TestMutateOversizedKeys(t *testing.T) {
	for seed := range seedList(t, 8) {
		rng := rand.New(rand.NewPCG(seed, 8))
		e, err := NewEngine(NewMemStore(MemStoreOptions{Copy: true, Verify: true}), tinySpec(), DefaultRowHash())
		if err != nil {
			t.Fatal(err)
		}
		randKey := func() string {
			n := 1 + rng.IntN(12)
			if rng.IntN(6) == 0 {
				n = 100 + rng.IntN(300)
			}
			b := make([]byte, n)
			for i := range b {
				b[i] = byte('a' + rng.IntN(4))
			}
			return string(b)
		}
		r, m := e.EmptyRoot(), model{}
		for step := 0; step < 40; step++ {
			batch := map[string]Edit{}
			keys := m.sortedKeys()
			for i := rng.IntN(60); i >= 0; i-- {
				k := randKey()
				if len(keys) > 0 && rng.IntN(3) == 0 {
					k = keys[rng.IntN(len(keys))]
				}
				if rng.IntN(4) == 0 {
					batch[k] = Edit{Key: []byte(k), Delete: true}
				} else {
					batch[k] = Edit{Key: []byte(k), Value: []byte(randValue(rng, rng.IntN(200)))}
				}
			}
			var eds []Edit
			for _, ed := range batch {
				eds = append(eds, ed)
			}
			sortEdits(eds)
			if r, err = e.Mutate(t.Context(), r, eds); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			m = m.apply(eds)
			if err := e.Check(t.Context(), r); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			if err := sameModel(contents(t, e, r), m); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		}
	}
}
