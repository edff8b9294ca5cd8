package exec

import "github.com/sidecar-dev/sidecar/types"

// A hash aggregation's rows often come in runs of one group (TPC-H Q1's
// lineitem rows of one order share their l_linestatus and mostly their
// l_returnflag): a row whose group key values are identical to the row
// before's is in that row's group, found without hashing its key
// (valueHasher over each string), probing the table and comparing keys
// through rowHasher.equalValue. Identical means the same Go value of a
// plain type (a string's bytes, an integer, a date, a bool, or both
// NULL): values equal under the group's equality but not identical
// (bpchar's 'a' and 'a ', 1.0 and 1.00) simply take the usual lookup.

// sameGroupKey says whether row i's group key (the columns mask keeps)
// is identical to row j's.
func (a *aggOp) sameGroupKey(b *Batch, i, j int, mask []bool) bool {
	for k, idx := range a.group {
		if !mask[k] {
			continue
		}
		if v := b.Vecs[idx]; !identical(v[i], v[j]) {
			return false
		}
	}
	return true
}

// identical says whether x and y are the same value of a plain type
// (false for any other type: the caller looks the row up as usual).
func identical(x, y types.Value) bool {
	switch a := x.(type) {
	case nil:
		return y == nil
	case string:
		b, ok := y.(string)
		return ok && a == b
	case int64:
		b, ok := y.(int64)
		return ok && a == b
	case types.DateVal:
		b, ok := y.(types.DateVal)
		return ok && a == b
	case bool:
		b, ok := y.(bool)
		return ok && a == b
	}
	return false
}
