package store

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/seed"
)

// seedFlag replays a failing random test: go test ./store -run X -seed N.
var seedFlag = seed.Flag()

// seedRand is a generator seeded by -seed when given, else by the test's
// fixed def, on the given stream; a failing t prints the seed.
func seedRand(t *testing.T, def, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed.Or(t, seedFlag, def), stream))
}

func hashOf(i int) addr.Hash {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(i))
	return addr.Of(b[:])
}

// TestCacheModel runs random adds, gets and clears against a map model and
// checks after every step that the byte bound holds, that the accounting
// equals the sum of live entries, and that every hit returns what was added.
func TestCacheModel(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, capBytes := range []int64{64 << 10, 3 << 20, 6 << 20} {
		c := newNodeCache(capBytes, func(n *testNode) int { return len(n.data) })
		model := map[addr.Hash]*testNode{} // everything ever added
		for step := range 20000 {
			h := hashOf(rng.IntN(4000))
			switch op := rng.IntN(10000); {
			case op < 5000:
				n, ok := model[h]
				if !ok {
					n = &testNode{data: make([]byte, 100+rng.IntN(8000))}
					model[h] = n
				}
				c.add(h, n)
			case op < 9000:
				c.remove(h)
			case op < 9998:
				got, ok := c.get(h)
				if ok && got != model[h] {
					t.Fatalf("seed %d step %d: cache returned another node for %s", seed, step, h.Short())
				}
			default:
				c.clear()
			}
			if step%97 == 0 {
				checkCache(t, c, seed, step)
			}
		}
		checkCache(t, c, seed, -1)
		// The random walk may end right after a clear, or its clears may
		// have come too often for the bound to be reached: fill past the
		// bound with fresh keys and read the newest back, so every run
		// exercises eviction and a hit whatever the seed.
		var filled int64
		for i := 0; filled <= 2*capBytes; i++ {
			h := hashOf(1_000_000 + i)
			n := &testNode{data: make([]byte, 4096)}
			model[h] = n
			c.add(h, n)
			filled += int64(len(n.data))
			if got, ok := c.get(h); !ok || got != n {
				t.Fatalf("seed %d cap %d: a node just added is not in the cache", seed, capBytes)
			}
		}
		checkCache(t, c, seed, -2)
		st := c.stats()
		if st.evictions == 0 || st.hits == 0 {
			t.Fatalf("seed %d cap %d: %d evictions, %d hits; the test did not exercise the cache", seed, capBytes, st.evictions, st.hits)
		}
	}
}

func checkCache(t *testing.T, c *nodeCache[*testNode], seed uint64, step int) {
	t.Helper()
	for i := range c.shards {
		s := &c.shards[i]
		var sum int64
		live := 0
		for j := range s.slots {
			if s.slots[j].live {
				live++
				sum += s.slots[j].size
				if s.index[s.slots[j].h] != int32(j) {
					t.Fatalf("seed %d step %d: index of %s is not its slot", seed, step, s.slots[j].h.Short())
				}
			}
		}
		if sum != s.used || live != len(s.index) {
			t.Fatalf("seed %d step %d shard %d: used %d, live sizes %d; %d live, %d indexed", seed, step, i, s.used, sum, live, len(s.index))
		}
		if s.used > s.cap {
			t.Fatalf("seed %d step %d shard %d: used %d above cap %d", seed, step, i, s.used, s.cap)
		}
	}
}

// TestCacheKeepsHotNodes checks the CLOCK policy: a node read between every
// insert survives a stream of once-read nodes many times the cache's size.
func TestCacheKeepsHotNodes(t *testing.T) {
	c := newNodeCache(1<<20, func(n *testNode) int { return len(n.data) })
	hot := hashOf(-1)
	hotNode := &testNode{data: make([]byte, 4096)}
	c.add(hot, hotNode)
	for i := range 5000 { // ~20 MiB through a 1 MiB cache
		if _, ok := c.get(hot); !ok {
			t.Fatalf("hot node evicted after %d cold inserts", i)
		}
		c.add(hashOf(i), &testNode{data: make([]byte, 4096)})
	}
	st := c.stats()
	if st.bytes > st.cap || st.evictions < 4000 {
		t.Fatalf("stats %+v: want bytes within cap and thousands of evictions", st)
	}
	// A node larger than a shard is never cached.
	c.add(hashOf(-2), &testNode{data: make([]byte, 2<<20)})
	if _, ok := c.get(hashOf(-2)); ok {
		t.Fatal("a node larger than the cache was cached")
	}
}

func TestNodeStoreCacheBound(t *testing.T) {
	db := openTest(t, Options{InMemory: true, CacheBytes: 256 << 10})
	s := NewNodeStore(db, testCodec{})
	hs, _ := putNodes(t, s, newLeafGen(31, false), 400) // ~1.6 MiB
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.CacheBytes > st.CacheCapacity || st.CacheCapacity != 256<<10 || st.CacheEvictions == 0 {
		t.Fatalf("after puts: %+v", st)
	}
	if _, err := s.GetMany(t.Context(), hs); err != nil {
		t.Fatal(err)
	}
	st2 := s.Stats()
	if st2.CacheBytes > st2.CacheCapacity || st2.Reads == 0 {
		t.Fatalf("after reads: %+v", st2)
	}
	// Disabled cache: every Get reads Badger.
	db2 := openTest(t, Options{InMemory: true, CacheBytes: -1})
	s2 := NewNodeStore(db2, testCodec{})
	hs2, _ := putNodes(t, s2, newLeafGen(32, false), 10)
	if err := s2.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s2.Get(t.Context(), hs2[0]); err != nil {
			t.Fatal(err)
		}
	}
	if st := s2.Stats(); st.Reads != 3 || st.CacheEntries != 0 {
		t.Fatalf("disabled cache: %+v", st)
	}
}
