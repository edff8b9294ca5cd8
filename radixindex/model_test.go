package radixindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// seedFlag replays a failing random test: go test ./radixindex -run X -seed N.
var seedFlag = seed.Flag()

// rows stands in for the heap: a row id's key is rows[id].
type rows struct{ keys [][]byte }

func (r *rows) add(k []byte) uint64 {
	r.keys = append(r.keys, append([]byte(nil), k...))
	return uint64(len(r.keys) - 1)
}

func (r *rows) keyOf(dst []byte, id uint64) []byte { return append(dst, r.keys[id]...) }

// model is the reference: a sorted slice of keys and their row ids.
type model struct {
	keys []string
	ids  map[string]uint64
}

func (m *model) put(k string, id uint64) (uint64, bool) {
	old, ok := m.ids[k]
	if !ok {
		i := sort.SearchStrings(m.keys, k)
		m.keys = slices.Insert(m.keys, i, k)
	}
	m.ids[k] = id
	return old, ok
}

func (m *model) del(k string) (uint64, bool) {
	old, ok := m.ids[k]
	if ok {
		i := sort.SearchStrings(m.keys, k)
		m.keys = slices.Delete(m.keys, i, i+1)
		delete(m.ids, k)
	}
	return old, ok
}

// keyGen makes keys of one shape.
type keyGen struct {
	name string
	gen  func(rng *rand.Rand) []byte
}

func be8(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

var keyGens = []keyGen{
	{"dense8", func(rng *rand.Rand) []byte { return be8(rng.Uint64N(3000)) }},
	{"rand8", func(rng *rand.Rand) []byte { return be8(rng.Uint64()) }},
	{"clustered8", func(rng *rand.Rand) []byte { return be8(rng.Uint64N(8)<<40 | rng.Uint64N(600)<<8 | rng.Uint64N(3)) }},
	{"longprefix", func(rng *rand.Rand) []byte {
		// 30 shared bytes, then a short tail: paths longer than the
		// stored eight bytes, splits inside them.
		k := bytes.Repeat([]byte{'p'}, 30)
		k[rng.IntN(30)] = byte('a' + rng.IntN(2))
		return append(k, byte(rng.IntN(40)), byte(rng.IntN(3)))
	}},
	{"k24", func(rng *rand.Rand) []byte {
		k := be8(rng.Uint64N(20))
		for range 2 {
			k = binary.BigEndian.AppendUint64(k, rng.Uint64())
		}
		return k
	}},
	{"prefixes", func(rng *rand.Rand) []byte {
		// Short strings over a tiny alphabet: many keys are prefixes of
		// others, and the empty key occurs.
		k := make([]byte, rng.IntN(7))
		for i := range k {
			k[i] = "ab\x00\xff"[rng.IntN(4)]
		}
		return k
	}},
}

// testSeed is -seed when given, else the clock; a failing t prints it.
func testSeed(t *testing.T) uint64 {
	return seed.New(t, seedFlag)
}

// TestModel runs random operations against the tree and the sorted-slice
// model, checking every answer and, now and then, the whole structure.
func TestModel(t *testing.T) {
	forEachGen(t, 0, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		ops := 20000
		if testing.Short() {
			ops = 4000
		}
		rs := &rows{}
		runModel(t, rng, g, ops, seed, New(rs.keyOf), rs, &model{ids: map[string]uint64{}})
	})
}

// forEachGen runs fn as a subtest per key shape, with a generator seeded
// from the printed seed and salt.
func forEachGen(t *testing.T, salt uint64, fn func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64)) {
	seed := testSeed(t)
	for gi, g := range keyGens {
		t.Run(g.name, func(t *testing.T) {
			fn(t, rand.New(rand.NewPCG(seed, uint64(gi)+salt)), g, seed)
		})
	}
}

func runModel(t *testing.T, rng *rand.Rand, g keyGen, ops int, seed uint64, tr *Tree, rs *rows, m *model) {
	t.Helper()
	fail := func(op int, format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d, %s, op %d: %s", seed, g.name, op, fmt.Sprintf(format, args...))
	}
	// A key from the model half the time, so replaces and deletes hit.
	pick := func() []byte {
		if len(m.keys) > 0 && rng.IntN(2) == 0 {
			return []byte(m.keys[rng.IntN(len(m.keys))])
		}
		return g.gen(rng)
	}
	for op := 0; op < ops; op++ {
		// Grow for the first 60% of the run, then shrink.
		putWeight := 6
		if op > ops*6/10 {
			putWeight = 2
		}
		switch x := rng.IntN(10); {
		case x < putWeight:
			k := pick()
			id := rs.add(k)
			old, ok := tr.Put(k, id)
			mold, mok := m.put(string(k), id)
			if ok != mok || old != mold {
				fail(op, "Put(%x) = %d,%v, model %d,%v", k, old, ok, mold, mok)
			}
		case x < 8:
			k := pick()
			old, ok := tr.Delete(k)
			mold, mok := m.del(string(k))
			if ok != mok || old != mold {
				fail(op, "Delete(%x) = %d,%v, model %d,%v", k, old, ok, mold, mok)
			}
		case x < 9:
			k := pick()
			id, ok := tr.Get(k)
			mid, mok := m.ids[string(k)]
			if ok != mok || (ok && id != mid) {
				fail(op, "Get(%x) = %d,%v, model %d,%v", k, id, ok, mid, mok)
			}
		default:
			checkIter(t, tr, m, rs, rng, pick(), func(format string, args ...any) { t.Helper(); fail(op, format, args...) })
		}
		if tr.Len() != len(m.keys) {
			fail(op, "Len %d, model %d", tr.Len(), len(m.keys))
		}
		if op%1000 == 999 {
			if err := tr.Verify(); err != nil {
				fail(op, "Verify: %v", err)
			}
		}
		if op%3000 == 2999 {
			before, after := tr.Compact()
			if after > before {
				fail(op, "Compact grew the tree from %d to %d bytes", before, after)
			}
			if err := tr.Verify(); err != nil {
				fail(op, "Verify after Compact: %v", err)
			}
			if live := tr.n4.live() + tr.n16.live() + tr.n48.live() + tr.n256.live(); live != int(tr.n4.n+tr.n16.n+tr.n48.n+tr.n256.n) {
				fail(op, "Compact left free slots")
			}
		}
	}
	if err := tr.Verify(); err != nil {
		t.Fatalf("seed %d: final Verify: %v", seed, err)
	}
	// Drain: deleting everything leaves an empty tree and empty slabs.
	for _, k := range slices.Clone(m.keys) {
		if _, ok := tr.Delete([]byte(k)); !ok {
			t.Fatalf("seed %d: drain: Delete(%x) missed", seed, k)
		}
		m.del(k)
	}
	if tr.Len() != 0 || tr.root != 0 {
		t.Fatalf("seed %d: drained tree Len %d root %#x", seed, tr.Len(), uint64(tr.root))
	}
	if live := tr.n4.live() + tr.n16.live() + tr.n48.live() + tr.n256.live(); live != 0 {
		t.Fatalf("seed %d: drained tree holds %d nodes", seed, live)
	}
}

// checkIter compares seeks, forward and backward steps, SeekLE, Min/Max
// and prefix iteration around key k with the model.
func checkIter(t *testing.T, tr *Tree, m *model, rs *rows, rng *rand.Rand, k []byte, fail func(string, ...any)) {
	t.Helper()
	steps := 1 + rng.IntN(40)
	// Seek and forward.
	it := tr.Iter(nil)
	i := sort.SearchStrings(m.keys, string(k))
	ok := it.Seek(k)
	for s := 0; s < steps; s++ {
		if ok != (i < len(m.keys)) {
			fail("Seek(%x)+%d: valid %v, model has %d of %d", k, s, ok, i, len(m.keys))
		}
		if !ok {
			break
		}
		if want := m.ids[m.keys[i]]; it.RowID() != want || string(it.Key()) != m.keys[i] {
			fail("Seek(%x)+%d: row %d key %x, model row %d key %x", k, s, it.RowID(), it.Key(), want, m.keys[i])
		}
		if rng.IntN(4) == 0 {
			ok = it.Prev()
			i--
			if i < 0 {
				if ok {
					fail("Prev before the first key is valid")
				}
				break
			}
		} else {
			ok = it.Next()
			i++
		}
	}
	// SeekLE.
	j := sort.SearchStrings(m.keys, string(k))
	if j == len(m.keys) || m.keys[j] != string(k) {
		j--
	}
	if ok := it.SeekLE(k); ok != (j >= 0) || (ok && string(it.Key()) != m.keys[j]) {
		fail("SeekLE(%x): valid %v, model index %d", k, ok, j)
	}
	// Min, Max.
	mn, ok1 := tr.Min()
	mx, ok2 := tr.Max()
	if ok1 != (len(m.keys) > 0) || ok2 != ok1 {
		fail("Min/Max valid %v %v with %d keys", ok1, ok2, len(m.keys))
	}
	if ok1 && (mn != m.ids[m.keys[0]] || mx != m.ids[m.keys[len(m.keys)-1]]) {
		fail("Min/Max %d %d, model %d %d", mn, mx, m.ids[m.keys[0]], m.ids[m.keys[len(m.keys)-1]])
	}
	// Prefix: a random prefix of k, iterated forward (and from Last back).
	p := k[:rng.IntN(len(k)+1)]
	var want []string
	for _, mk := range m.keys[sort.SearchStrings(m.keys, string(p)):] {
		if !bytes.HasPrefix([]byte(mk), p) {
			break
		}
		want = append(want, mk)
	}
	pit := tr.Iter(p)
	var got []string
	for ok := pit.First(); ok; ok = pit.Next() {
		got = append(got, string(pit.Key()))
	}
	if !slices.Equal(got, want) {
		fail("prefix %x: %d keys, model %d", p, len(got), len(want))
	}
	got = got[:0]
	for ok := pit.Last(); ok; ok = pit.Prev() {
		got = append(got, string(pit.Key()))
	}
	slices.Reverse(got)
	if !slices.Equal(got, want) {
		fail("prefix %x backward: %d keys, model %d", p, len(got), len(want))
	}
	// Seek inside the prefix.
	if len(want) > 0 {
		target := []byte(want[rng.IntN(len(want))])
		target = append(target[:len(target):len(target)], byte(rng.IntN(256)))[:len(target)+rng.IntN(2)]
		wi := sort.SearchStrings(want, string(target))
		ok := pit.Seek(target)
		if ok != (wi < len(want)) || (ok && string(pit.Key()) != want[wi]) {
			fail("prefix %x Seek(%x): valid %v, model index %d of %d", p, target, ok, wi, len(want))
		}
	}
}

// TestKeyFuncOwnStorage: a KeyFunc may return a slice of its own storage
// (with room after it) for some rows and append to dst for others; the
// tree must never hand the first kind back as a destination.
func TestKeyFuncOwnStorage(t *testing.T) {
	const n = 5000
	arena := make([]byte, 0, 8*n)
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		arena = binary.BigEndian.AppendUint64(arena, rng.Uint64N(1<<20))
	}
	orig := bytes.Clone(arena)
	keyOf := func(dst []byte, id uint64) []byte {
		if id%2 == 1 {
			return append(dst, arena[id*8:id*8+8]...)
		}
		return arena[id*8 : id*8+8]
	}
	tr := New(keyOf)
	for id := range uint64(n) {
		tr.Put(arena[id*8:id*8+8], id)
	}
	it := tr.Iter(nil)
	for ok := it.First(); ok; ok = it.Next() {
		it.Key()
	}
	for id := range uint64(n) {
		it.Seek(arena[id*8 : id*8+8])
		tr.Get(arena[id*8 : id*8+8])
		if id%2 == 0 {
			tr.Delete(arena[id*8 : id*8+8])
		}
	}
	if !bytes.Equal(arena, orig) {
		t.Fatal("the tree wrote into the KeyFunc's storage")
	}
	if err := tr.Verify(); err != nil {
		t.Fatal(err)
	}
}
