package prolly

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/internal/testkit/racedetector"
)

// newTestEngine returns an engine over a MemStore that copies on read and
// re-verifies hashes, so aliasing bugs fail loudly.
func newTestEngine(t testing.TB) (*Engine, *MemStore) {
	t.Helper()
	ms := NewMemStore(MemStoreOptions{Copy: true, Verify: true})
	return NewDefaultEngine(ms), ms
}

// model is the reference for a tree: a plain map, sorted on demand.
type model map[string]string

func (m model) clone() model {
	c := make(model, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (m model) sortedKeys() []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// build builds m from scratch.
func (m model) build(t testing.TB, e *Engine) Root {
	t.Helper()
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
	return r
}

// contents reads every row of r through a cursor.
func contents(t testing.TB, e *Engine, r Root) model {
	t.Helper()
	c, err := e.Range(t.Context(), r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := model{}
	var prev []byte
	for c.Next() {
		if prev != nil && bytes.Compare(prev, c.Key()) >= 0 {
			t.Fatalf("cursor keys out of order: %x then %x", prev, c.Key())
		}
		prev = bytes.Clone(c.Key())
		m[string(c.Key())] = string(c.Value())
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func sameModel(a, b model) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d rows, want %d", len(a), len(b))
	}
	for k, v := range b {
		if got, ok := a[k]; !ok || got != v {
			return fmt.Errorf("key %x: got %q (present %v), want %q", k, got, ok, v)
		}
	}
	return nil
}

// mustCheck runs the structural validator.
func mustCheck(t testing.TB, e *Engine, r Root) {
	t.Helper()
	if err := e.Check(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}

// intKey is an 8-byte big-endian key: memcmp order is numeric order.
func intKey(i int) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(i))
	return string(b[:])
}

// randValue returns a value of length n with content from rng.
func randValue(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	var x uint64
	for i := range b {
		if i%8 == 0 {
			x = rng.Uint64()
		}
		b[i] = 'a' + byte(x%26)
		x >>= 8
	}
	return string(b)
}

// randModel returns n rows with 8-byte keys drawn from [0, keySpace) and
// values of 1..maxVal bytes.
func randModel(rng *rand.Rand, n, keySpace, maxVal int) model {
	m := model{}
	for len(m) < n {
		m[intKey(rng.IntN(keySpace))] = randValue(rng, 1+rng.IntN(maxVal))
	}
	return m
}

// fixedSeeds returns n fixed seeds for a randomized test. Under the race
// detector it returns the first quarter of them (at least one): the
// model tests that loop over seeds start no goroutines, nor does prolly,
// so the race run adds only the internal assertions to them, at ten
// times the time (at load 65: TestHistoryIndependence 980 s,
// TestMutateAgainstModel 352 s, TestDiffAgainstModel 165 s); CI runs
// prolly plain too, with every seed (.ci/run).
func fixedSeeds(n int) []uint64 {
	if racedetector.Enabled {
		n = max(1, n/4)
	}
	s := make([]uint64, n)
	for i := range s {
		s[i] = uint64(i*7919 + 1)
	}
	return s
}

// seedList yields the seeds a randomized test loops over: -seed alone
// when given, else the n fixed ones of fixedSeeds; a failing t prints
// the seed it reached.
func seedList(t *testing.T, n int) iter.Seq[uint64] {
	return seed.Each(t, seedFlag, fixedSeeds(n))
}

// seedRange returns the seeds from..to, for a loop over seed.Each.
func seedRange(from, to uint64) []uint64 {
	var s []uint64
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

// seedRand is a generator seeded by -seed when given, else by the test's
// fixed def, on the given stream; a failing t prints the seed.
func seedRand(t *testing.T, def, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed.Or(t, seedFlag, def), stream))
}
