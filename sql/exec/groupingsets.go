package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// GROUPING SETS, ROLLUP and CUBE run in the hash aggregation (agg.go)
// in one pass: each input row joins one group per grouping set, keyed
// by the set's index and its grouped columns (the others NULL), so a
// set listed twice gives its rows twice, as in PostgreSQL. GROUPING()
// is a constant of each group: a bit per argument, 1 when the argument
// is not grouped in the group's set.

// groupingSets sets the aggregation's set masks from the plan.
func (a *aggOp) groupingSets(p *plan.Aggregate) error {
	if p.Sets == nil {
		return nil
	}
	a.sets = [][]bool{}
	for _, s := range p.Sets {
		mask := make([]bool, len(p.GroupBy))
		for _, id := range s {
			i := slices.Index(p.GroupBy, id)
			if i < 0 {
				return unsupported("a grouping set over a column that is not grouped")
			}
			mask[i] = true
		}
		a.sets = append(a.sets, mask)
	}
	return nil
}

// groupingFunc compiles GROUPING(): its arguments' group positions.
func (a *aggOp) groupingFunc(f *aggFunc, p *plan.Aggregate) error {
	f.grouping = []int{}
	for _, arg := range f.a.Args {
		c, ok := arg.(*plan.ColRef)
		i := -1
		if ok {
			i = slices.Index(p.GroupBy, c.ID)
		}
		if i < 0 {
			return unsupported("GROUPING() of an expression that is not grouped")
		}
		f.grouping = append(f.grouping, i)
	}
	return nil
}

// setMasks are the sets to group each row by and the width of the key
// prefix naming the set (0 without grouping sets).
func (a *aggOp) setMasks() ([][]bool, int) {
	if a.sets != nil {
		return a.sets, 1
	}
	all := make([]bool, len(a.group))
	for i := range all {
		all[i] = true
	}
	return [][]bool{all}, 0
}

// keyOIDs are the types of a group key (the set's index first with
// grouping sets).
func (a *aggOp) keyOIDs() []plan.OID {
	if a.sets != nil {
		return append([]plan.OID{plan.Int8}, a.gOIDs...)
	}
	return a.gOIDs
}

// key is row i's group key in set (mask: the grouped columns).
func (a *aggOp) key(b *Batch, i, set int, mask []bool, off int) []types.Value {
	key := make([]types.Value, off+len(a.group))
	if off > 0 {
		key[0] = int64(set)
	}
	for k, idx := range a.group {
		if mask[k] {
			key[off+k] = b.Vecs[idx][i]
		}
	}
	return key
}

// groupingValue is GROUPING()'s value in a set: the first argument is
// the highest bit.
func groupingValue(args []int, mask []bool) types.Value {
	var v int64
	for _, i := range args {
		v <<= 1
		if !mask[i] {
			v |= 1
		}
	}
	return v
}

// constAgg is an aggregate state whose value is fixed (GROUPING()).
type constAgg struct{ v types.Value }

func (c *constAgg) add(types.Value) error        { return nil }
func (c *constAgg) result() (types.Value, error) { return c.v, nil }
