package exec

import (
	"testing"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// TestSameKeys checks the hash table's key test: one int64 key decides by
// the hash alone, and every other shape (a text key whose hash
// collides, two keys, a non-int64 probe value) still compares the keys.
func TestSameKeys(t *testing.T) {
	build := func(oids []plan.OID, rows ...[]types.Value) *hashTable {
		ht := &hashTable{h: newValueHasher(), oids: oids, keys: make([]chunked, len(oids))}
		keys := make([][]types.Value, len(oids))
		for _, r := range rows {
			for k := range keys {
				keys[k] = append(keys[k], r[k])
			}
		}
		ok := make([]bool, len(rows))
		for i := range ok {
			ok[i] = true
		}
		ht.add(&Batch{N: len(rows)}, keys, ok, nil, false)
		ht.index()
		return ht
	}
	probe := func(ht *hashTable, r int, v ...types.Value) bool {
		keys := make([][]types.Value, len(v))
		for k := range v {
			keys[k] = []types.Value{v[k]}
		}
		return ht.sameKeys(r, ht.hashRow(keys, 0), keys, 0)
	}

	ints := build([]plan.OID{plan.Int8}, []types.Value{int64(7)}, []types.Value{int64(1 << 40)})
	if !ints.intKeys() {
		t.Fatal("a table of int64 keys is not taken as one")
	}
	if !probe(ints, 0, int64(7)) || probe(ints, 0, int64(8)) || !probe(ints, 1, int64(1<<40)) || probe(ints, 1, int64(7)) {
		t.Error("int64 keys: wrong match")
	}

	text := build([]plan.OID{plan.Text}, []types.Value{"a"}, []types.Value{"b"})
	if text.intKeys() {
		t.Fatal("a text key taken as int64")
	}
	// A collision: row 1's hash made row 0's; the keys still decide.
	text.hashes[1] = text.hashes[0]
	if probe(text, 1, "a") || !probe(text, 0, "a") {
		t.Error("text keys with colliding hashes: wrong match")
	}

	mixed := build([]plan.OID{plan.Int8}, []types.Value{int64(3)}, []types.Value{"3"})
	if mixed.intKeys() {
		t.Error("a table with a non-int64 key value taken as int64 keys")
	}
	two := build([]plan.OID{plan.Int8, plan.Int8}, []types.Value{int64(1), int64(2)})
	if two.intKeys() || !probe(two, 0, int64(1), int64(2)) || probe(two, 0, int64(1), int64(3)) {
		t.Error("two int64 keys: wrong match or taken as one")
	}
}
