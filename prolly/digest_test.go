package prolly

import (
	"slices"
	"testing"
)

func TestDigestRangeAgainstModel(t *testing.T) {
	e, ms := newTestEngine(t)
	rng := seedRand(t, 21, 21)
	const keySpace = 400000
	m := randModel(rng, 100000, keySpace, 40)
	r := m.build(t, e)
	keys := m.sortedKeys()
	// prefix[i] is the digest of keys[:i].
	prefix := make([]Digest, len(keys)+1)
	for i, k := range keys {
		prefix[i+1] = prefix[i].Add(Digest{1, e.RowHash([]byte(k), []byte(m[k]))})
	}
	root, _ := e.load(t.Context(), r.Hash)
	height := root.Level() + 1
	for trial := 0; trial < 300; trial++ {
		var start, end []byte
		if trial%5 != 0 {
			start = []byte(intKey(rng.IntN(keySpace)))
		}
		if trial%7 != 0 {
			end = []byte(intKey(rng.IntN(keySpace)))
		}
		lo, hi := 0, len(keys)
		if start != nil {
			lo, _ = slices.BinarySearch(keys, string(start))
		}
		if end != nil {
			hi, _ = slices.BinarySearch(keys, string(end))
		}
		var want Digest
		if lo < hi {
			want = Digest{prefix[hi].Count - prefix[lo].Count, prefix[hi].Sum - prefix[lo].Sum}
		}
		ms.ResetCounters()
		got, err := e.DigestRange(t.Context(), r, start, end)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("DigestRange(%x, %x) = %+v, want %+v", start, end, got, want)
		}
		if reads := ms.Reads(); reads > int64(2*height) {
			t.Fatalf("DigestRange(%x, %x) read %d nodes, height %d", start, end, reads, height)
		}
	}
}

// TestDigestAfterMutate checks that digests carried by internal entries stay
// exact through incremental mutation (the validator recomputes them too).
func TestDigestAfterMutate(t *testing.T) {
	e, _ := newTestEngine(t)
	rng := seedRand(t, 22, 22)
	m := randModel(rng, 20000, 100000, 40)
	r := m.build(t, e)
	eds := randEdits(rng, m, 3000, 100000)
	r, err := e.Mutate(t.Context(), r, eds)
	if err != nil {
		t.Fatal(err)
	}
	m = m.apply(eds)
	var want Digest
	for k, v := range m {
		want = want.Add(Digest{1, e.RowHash([]byte(k), []byte(v))})
	}
	got, err := e.DigestRange(t.Context(), r, nil, nil)
	if err != nil || got != want {
		t.Fatalf("whole-tree digest = %+v, %v; want %+v", got, err, want)
	}
	// Equal content gives an equal digest, whatever the history.
	fresh := m.build(t, e)
	if fd, _ := e.DigestRange(t.Context(), fresh, nil, nil); fd != got {
		t.Fatalf("fresh build digest %+v != mutated %+v", fd, got)
	}
}
