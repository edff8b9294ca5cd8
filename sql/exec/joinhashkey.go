package exec

import "github.com/sidecar-dev/sidecar/types"

// sameKeys reports whether build row r, whose hash is ht.hashes[r],
// has the keys of probe row i, whose hash is h.
//
// Where the table has one key and every build key is an int64 (TPC-H's
// join keys), equal hashes are equal keys: an int64's hash (mix64:
// a salt xor'ed, then murmur3's fmix64) and hashRow's one FNV step
// over it are bijections of the 64 bits, so two int64s hash alike only
// when they are equal. The chain walk then never loads the build key:
// an interface in a chunk and the integer it points to, two cache misses
// per candidate on a big build side (18 % of TPC-H Q13's CPU at SF 0.2,
// ~10 orders per customer, every one a match).
func (ht *hashTable) sameKeys(r int, h uint64, keys [][]types.Value, i int) bool {
	if ht.hashes[r] != h {
		return false
	}
	if len(keys) == 1 && ht.intKeys() {
		if _, ok := keys[0][i].(int64); ok {
			return true
		}
	}
	return ht.equalTo(r, keys, i)
}

// intKeys says whether the table has one key and every row added with
// a non-NULL key had an int64 there.
func (ht *hashTable) intKeys() bool { return len(ht.keys) == 1 && !ht.nonIntKey }

// noteKey records whether a row's single key (non-NULL) is not an int64.
func (ht *hashTable) noteKey(keys [][]types.Value, i int) {
	if ht.nonIntKey || len(keys) != 1 {
		return
	}
	if _, ok := keys[0][i].(int64); !ok {
		ht.nonIntKey = true
	}
}
