package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/types"
)

// What a source scanning typed pages needs to run a late filter's
// comparisons and a join's key filter in its own loops, over a page's
// segments at a time, instead of a method call per row (Q21's lineitem
// scans spent 44 % of their CPU in colCmp and keyFilter's per-row calls,
// session 26): the truth of a comparison per sign, the key filter's bit
// set, and the build keys' sorted list, on which a page whose zone map
// holds no build key is skipped unread.

// Truth is which signs of compare(left, right) the comparison c is true
// for: Holds(a, s, b, s) for equal scales is lt, eq or gt as a is less
// than, equal to or greater than b.
func (c *ColCmp) Truth() (lt, eq, gt bool) {
	eq = c.mask&2 != 0
	if c.eqIsLess {
		eq = c.mask&1 != 0
	}
	return c.mask&1 != 0, eq, c.mask&4 != 0
}

// KeySet is a key filter's bit set of the build keys' hashes, for a
// source's own loop: MayMatch(v) is ColCmp.KeyMayMatch(v).
type KeySet struct {
	salt uint64
	bits []uint64
	mask uint64
}

// KeySet is c's bit set (c.Key() must hold).
func (c *ColCmp) KeySet() KeySet {
	return KeySet{salt: c.key.h.salt, bits: c.key.bits, mask: c.key.mask}
}

// MayMatch says whether an integer or date key v may match a build row.
func (s KeySet) MayMatch(v int64) bool {
	h := intMix(uint64(v)^s.salt) & s.mask
	return s.bits[h>>6]&(1<<(h&63)) != 0
}

// keySortedMax is the most build rows whose keys a key filter keeps
// sorted for page skipping (KeyMisses): 8 bytes each, counted against
// the join's memory. A larger build's keys leave few pages without one
// anyway (a page of 1024 lineitem rows spans about 256 orders).
const keySortedMax = 1 << 16

// sortedKeys is the distinct integer or date keys of rows, sorted (nil
// when a key is of another type, or there are more than keySortedMax).
func sortedKeys(n int, at func(int) types.Value, has func(int) bool) []int64 {
	if n > keySortedMax {
		return nil
	}
	ks := make([]int64, 0, n)
	for r := 0; r < n; r++ {
		if !has(r) {
			continue
		}
		switch x := at(r).(type) {
		case int64:
			ks = append(ks, x)
		case types.DateVal:
			ks = append(ks, int64(x))
		default:
			return nil
		}
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// KeyMisses says whether no build key of the key filter c lies in
// [lo, hi]: a page whose key column's zone map is [lo, hi] holds no row
// the join can match (false when c keeps no sorted keys).
func (c *ColCmp) KeyMisses(lo, hi int64) bool {
	ks := c.key.sorted
	if ks == nil {
		return false
	}
	i, _ := slices.BinarySearch(ks, lo)
	return i == len(ks) || ks[i] > hi
}

// KeyPages are the join key filters of f a source may skip a page on,
// by its zone map alone (KeyMisses): every conjunct of f is a comparison
// that cannot fail (a ColCmp), so a row skipped unread could have raised
// no error. Nil otherwise.
func (f *LateFilter) KeyPages() []*ColCmp {
	var ks []*ColCmp
	for _, st := range f.steps {
		switch {
		case st.cmp == nil:
			return nil
		case st.cmp.key != nil && st.cmp.key.sorted != nil:
			ks = append(ks, st.cmp)
		}
	}
	return ks
}
