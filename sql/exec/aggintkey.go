package exec

import (
	"fmt"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// intGroups finds a hash aggregation's groups by their key's int64 when
// the key is one column of an integer, date, time or timestamp type:
// open addressing with linear probing over the keys themselves, so a
// row's group is found without hashing a boxed value through
// valueHasher, combining it into a row hash and comparing through
// rowHasher.equalValue (grouptab.go and hashkey.go's general path,
// which the index leaves in place: every group is still added to the
// rowMap, for emission, the partial aggregation's merge and spilling).
// Equality of these types' values is equality of their integers
// (types.Compare), so one int64 per key is exact. The NULL key is a
// group of its own outside the slots. A value of another Go type than
// the column's (none arrives today) is not indexed: it falls back to
// the rowMap, which holds every group.
//
// Memory: 12 bytes a slot, at most twice the groups rounded up to a
// power of two, allocated as groups are added; each group is already
// charged (rowBytes of its key) before it is added.
type intGroups struct {
	// val is the column's Go type's int64 (ok=false: not that type).
	val  func(v types.Value) (int64, bool)
	keys []int64
	idx  []int32 // group + 1; 0: an empty slot
	mask uint64
	n    int
	null int32 // the NULL key's group + 1; 0: none yet
}

// newIntGroups is the index of a group key of types oids (nil when the
// key is not one column of an integer-like type).
func newIntGroups(oids []plan.OID) *intGroups {
	if len(oids) != 1 {
		return nil
	}
	var val func(types.Value) (int64, bool)
	switch oids[0] {
	case plan.Int2, plan.Int4, plan.Int8:
		val = func(v types.Value) (int64, bool) { x, ok := v.(int64); return x, ok }
	case plan.Date:
		val = func(v types.Value) (int64, bool) { x, ok := v.(types.DateVal); return int64(x), ok }
	case plan.Timestamp, plan.Timestamptz:
		val = func(v types.Value) (int64, bool) { x, ok := v.(types.TimestampVal); return int64(x), ok }
	case plan.Time:
		val = func(v types.Value) (int64, bool) { x, ok := v.(types.TimeVal); return int64(x), ok }
	default:
		return nil
	}
	return &intGroups{val: val}
}

// Keys are spread over the slots by intMix (hashkey.go). Adversarial
// keys cost probes, never a wrong group: slots compare whole keys.

// find is v's group (v the key value, nil for NULL): g ≥ 0 when held,
// -1 when not; indexed=false when v is not of the column's Go type (the
// caller looks in the rowMap).
func (t *intGroups) find(v types.Value) (g int, indexed bool) {
	if v == nil {
		return int(t.null) - 1, true
	}
	x, ok := t.val(v)
	if !ok {
		return -1, false
	}
	if t.idx == nil {
		return -1, true
	}
	for pos := intMix(uint64(x)) & t.mask; ; pos = (pos + 1) & t.mask {
		e := t.idx[pos]
		if e == 0 {
			return -1, true
		}
		if t.keys[pos] == x {
			return int(e - 1), true
		}
	}
}

// add indexes group g, whose key value is v (not held yet).
func (t *intGroups) add(v types.Value, g int) {
	if v == nil {
		t.null = int32(g + 1)
		return
	}
	x, ok := t.val(v)
	if !ok {
		return
	}
	if 2*(t.n+1) > len(t.idx) {
		t.grow()
	}
	t.put(x, int32(g+1))
	t.n++
}

// put stores key x of entry e in its first free slot.
func (t *intGroups) put(x int64, e int32) {
	pos := intMix(uint64(x)) & t.mask
	for t.idx[pos] != 0 {
		pos = (pos + 1) & t.mask
	}
	t.keys[pos], t.idx[pos] = x, e
}

// grow doubles the slots (groupTabMin first) and places the keys again.
func (t *intGroups) grow() {
	size := max(groupTabMin, 2*len(t.idx))
	keys, idx := t.keys, t.idx
	t.keys, t.idx, t.mask = make([]int64, size), make([]int32, size), uint64(size-1)
	for s, e := range idx {
		if e != 0 {
			t.put(keys[s], e)
		}
	}
}

// intGroupsOf is the int64 index of a's groups when its key is one
// integer-like column and it has no grouping sets (nil otherwise).
func (a *aggOp) intGroupsOf() *intGroups {
	if a.sets != nil {
		return nil
	}
	return newIntGroups(a.gOIDs)
}

// findGroup is row i's group among groups (a's key one column indexed
// by ig, no grouping sets; -1: not held) and, when not held, the hash
// of its key (for adding the group or sending the row to a partition
// file; 0 otherwise).
func (a *aggOp) findGroup(groups *rowMap, ig *intGroups, b *Batch, i int, mask []bool) (int, uint64) {
	g, ok := ig.find(b.Vecs[a.group[0]][i])
	switch {
	case !ok:
		return a.findSetGroup(groups, b, i, 0, mask, 0) // agg.go
	case g >= 0:
		return g, 0
	}
	return -1, a.keyHash(groups.h, b, i, 0, mask, 0)
}

// addInt adds x to a sum of small integers into int8 (sumAgg with t
// Int8, every value so far an int64 and s.n already counting x) on
// s.i64, where types.Arith boxed each partial sum: a GROUP BY's
// sum(int4) allocated once per row.
func (s *sumAgg) addInt(x int64) error {
	if s.n == 1 {
		s.i64 = x
		return nil
	}
	r, err := addInt8(s.i64, x)
	s.i64 = r
	return err
}

// addInt8 is a + b, failing past int64 as types.Arith does (22003,
// bigint out of range).
func addInt8(a, b int64) (int64, error) {
	r := a + b
	if b != 0 && (b > 0) == (r <= a) {
		_, err := types.Arith("+", plan.Int8, a, b) // the overflow's error
		if err == nil {
			err = fmt.Errorf("sum: int8 overflow not reported")
		}
		return a, err
	}
	return r, nil
}
