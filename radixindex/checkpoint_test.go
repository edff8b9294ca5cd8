package radixindex

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

var rewrite = flag.Bool("radix.rewrite", false, "rewrite the pinned checkpoint fixture")

// fixtureTree builds a small tree with every node kind, an end slot, a
// path longer than the stored bytes and a leaf at the root's level.
func fixtureTree() (*Tree, *rows) {
	rs := &rows{}
	tr := New(rs.keyOf)
	put := func(k []byte) { tr.Put(k, rs.add(k)) }
	for i := range 300 { // node256 under "a"
		put([]byte{'a', byte(i), byte(i >> 8)})
	}
	for i := range 20 { // node48 under "b"
		put([]byte{'b', byte(i * 3)})
	}
	for i := range 6 { // node16 under "c"
		put([]byte{'c', byte(i)})
	}
	put([]byte("d")) // end slot of the node4 under "d"
	put([]byte("dx"))
	put([]byte("dy"))
	put([]byte("e-a-very-long-shared-path-1")) // path of 25 bytes
	put([]byte("e-a-very-long-shared-path-2"))
	put([]byte("z")) // a leaf right below the root
	return tr, rs
}

// TestCheckpointFixture pins the format: a change to the encoding fails
// here. Regenerate with -radix.rewrite only for a deliberate format change
// (and a new version number).
func TestCheckpointFixture(t *testing.T) {
	tr, rs := fixtureTree()
	var buf bytes.Buffer
	n, err := tr.WriteCheckpoint(&buf, 0x1234_5678_9abc)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteCheckpoint = %d, %v (buffer %d)", n, err, buf.Len())
	}
	const path = "testdata/checkpoint-v1.hex"
	if *rewrite {
		if err := os.WriteFile(path, []byte(hex.Dump(buf.Bytes())), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.Dump(buf.Bytes()); got != string(want) {
		t.Fatalf("checkpoint bytes changed from %s:\n%s", path, got)
	}
	back, lsn, err := Restore(buf.Bytes(), rs.keyOf)
	if err != nil {
		t.Fatal(err)
	}
	if lsn != 0x1234_5678_9abc || back.Len() != tr.Len() {
		t.Fatalf("restored lsn %#x len %d, want %#x %d", lsn, back.Len(), 0x1234_5678_9abc, tr.Len())
	}
	if err := back.Verify(); err != nil {
		t.Fatal(err)
	}
	for id, k := range rs.keys {
		if got, ok := back.Get(k); !ok || got != uint64(id) {
			t.Fatalf("restored Get(%q) = %d,%v, want %d", k, got, ok, id)
		}
	}
}

// TestCheckpointRoundTrip: random trees of every key shape, after inserts
// and deletes, restore to the same contents, and stay writable.
func TestCheckpointRoundTrip(t *testing.T) {
	forEachGen(t, 200, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs, tr, m := churnTree(rng, g, 2000, 4)
		var buf bytes.Buffer
		if _, err := tr.WriteCheckpoint(&buf, 7); err != nil {
			t.Fatal(err)
		}
		back, lsn, err := Restore(buf.Bytes(), rs.keyOf)
		if err != nil {
			t.Fatalf("seed %d: Restore: %v", seed, err)
		}
		if lsn != 7 {
			t.Fatalf("lsn %d", lsn)
		}
		if err := back.Verify(); err != nil {
			t.Fatalf("seed %d: Verify: %v", seed, err)
		}
		// Restored slabs are dense: no free slots carried over.
		if live := back.n4.live() + back.n16.live() + back.n48.live() + back.n256.live(); live != int(back.n4.n+back.n16.n+back.n48.n+back.n256.n) {
			t.Fatalf("restored tree has free slots")
		}
		runModel(t, rng, g, 2000, seed, back, rs, m)
	})
}

func TestCheckpointEmptyAndSingle(t *testing.T) {
	rs := &rows{}
	tr := New(rs.keyOf)
	for _, keys := range [][]string{nil, {"only"}} {
		for _, k := range keys {
			tr.Put([]byte(k), rs.add([]byte(k)))
		}
		var buf bytes.Buffer
		if _, err := tr.WriteCheckpoint(&buf, 1); err != nil {
			t.Fatal(err)
		}
		back, _, err := Restore(buf.Bytes(), rs.keyOf)
		if err != nil {
			t.Fatalf("%q: %v", keys, err)
		}
		if back.Len() != len(keys) || back.Verify() != nil {
			t.Fatalf("%q: restored Len %d", keys, back.Len())
		}
	}
}

// TestCheckpointCorrupt: every single-byte change, truncation and a wrong
// version are refused with ErrCorrupt.
func TestCheckpointCorrupt(t *testing.T) {
	tr, rs := fixtureTree()
	var buf bytes.Buffer
	if _, err := tr.WriteCheckpoint(&buf, 9); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0x41
		if _, _, err := Restore(bad, rs.keyOf); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: err %v", i, err)
		}
	}
	for _, n := range []int{0, 10, headerSize, len(good) - 1} {
		if _, _, err := Restore(good[:n], rs.keyOf); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: err %v", n, err)
		}
	}
	bad := bytes.Clone(good)
	binary.LittleEndian.PutUint16(bad[6:], 9) // 2 and 3 are images'
	if _, _, err := Restore(bad, rs.keyOf); err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Fatalf("version 9: err %v", err)
	}
}

// FuzzRestore: no input makes Restore panic, and whatever it accepts is a
// tree whose iteration yields exactly Len entries. Each input is also tried
// with its checksum fixed, so mutations reach the structural checks.
func FuzzRestore(f *testing.F) {
	tr, _ := fixtureTree()
	var buf bytes.Buffer
	tr.WriteCheckpoint(&buf, 3)
	f.Add(buf.Bytes())
	small := New(func(dst []byte, id uint64) []byte { return dst })
	buf.Reset()
	small.WriteCheckpoint(&buf, 0)
	f.Add(buf.Bytes())
	keyOf := func(dst []byte, id uint64) []byte { return binary.BigEndian.AppendUint64(dst, id) }
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(data []byte) {
			back, _, err := Restore(data, keyOf)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("error %v does not wrap ErrCorrupt", err)
				}
				return
			}
			n := 0
			it := back.Iter(nil)
			for ok := it.First(); ok; ok = it.Next() {
				n++
			}
			if n != back.Len() {
				t.Fatalf("restored tree iterates %d entries, Len %d", n, back.Len())
			}
			back.MemoryBytes()
		}
		check(data)
		if len(data) >= 4 {
			fixed := bytes.Clone(data)
			binary.LittleEndian.PutUint32(fixed[len(fixed)-4:], crc32.Checksum(fixed[:len(fixed)-4], castagnoli))
			check(fixed)
		}
	})
}

// churnTree builds a tree of n random puts and deletes (one in delEvery),
// mirrored in a model.
func churnTree(rng *rand.Rand, g keyGen, n, delEvery int) (*rows, *Tree, *model) {
	rs := &rows{}
	tr := New(rs.keyOf)
	m := &model{ids: map[string]uint64{}}
	for range n {
		k := g.gen(rng)
		if rng.IntN(delEvery) == 0 {
			tr.Delete(k)
			m.del(string(k))
			continue
		}
		id := rs.add(k)
		tr.Put(k, id)
		m.put(string(k), id)
	}
	return rs, tr, m
}
