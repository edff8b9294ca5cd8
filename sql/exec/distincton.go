package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// DISTINCT ON keeps the first row of each group in its input's order:
// after the ORDER BY, the first of the rows that tie on every sort key
// is the one PostgreSQL's sort happens to put first (and without an
// ORDER BY, any row of the group). `SELECT DISTINCT ON (i4) i4, id FROM
// mx ORDER BY i4` answered other ids than PostgreSQL's. So where a
// group's kept row has a row tied with it on the sort keys that differs
// from it (in any column, as printed: 0.00 and 0.0 are equal but print
// differently), the statement is refused (0A000), as a LIMIT whose rows
// depend on that order is (limitorder.go).

// distinctOnUndetermined refuses a DISTINCT ON whose kept rows depend
// on PostgreSQL's order among tied rows.
var distinctOnUndetermined = &types.Error{Code: types.CodeUnsupported,
	Message: "not supported yet: DISTINCT ON whose rows depend on the order of rows its ORDER BY leaves tied (PostgreSQL's sort decides it); add ORDER BY keys that tell the rows apart"}

// onTies follows the rows of a DISTINCT ON's groups.
type onTies struct {
	keys  []winKey        // the sort keys of the Sort below (nil: none, every row of a group ties)
	oids  []plan.OID      // the types of every input column
	first [][]types.Value // each group's kept row, by its index in the distinct map
}

// newOnTies is the check for DISTINCT ON x over input in (nil for a
// plain DISTINCT).
func (e *env) newOnTies(x *plan.Distinct, in operator) *onTies {
	if len(x.On) == 0 {
		return nil
	}
	t := &onTies{}
	for _, id := range in.cols() {
		t.oids = append(t.oids, e.md.Column(id).Type.OID)
	}
	if s, ok := x.Input.(*plan.Sort); ok {
		lay := layoutOf(in.cols())
		for _, k := range s.Keys {
			idx, ok := lay[k.Col]
			if !ok {
				return t // not a key of the input: every row of a group ties
			}
			t.keys = append(t.keys, winKey{idx, e.md.Column(k.Col).Type.OID, k.Desc, k.NullsFirst, nil})
		}
	}
	return t
}

// kept notes row i of b as group g's kept row.
func (t *onTies) kept(g int, b *Batch, i int) {
	for len(t.first) <= g {
		t.first = append(t.first, nil)
	}
	t.first[g] = b.Row(i)
}

// check takes row i of b, of group g (not kept): an error when it ties
// with the kept row on the sort keys and differs from it.
func (t *onTies) check(g int, b *Batch, i int) error {
	if g >= len(t.first) || t.first[g] == nil {
		return nil
	}
	r := b.Row(i)
	if compareKeys(t.keys, t.first[g], r) == 0 && !sameVals(t.oids, t.first[g], r) {
		return distinctOnUndetermined
	}
	return nil
}
