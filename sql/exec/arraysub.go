package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// arraySubquery compiles ARRAY(SELECT …): the subquery's values in the
// order of its rows, '{}' when it has none. PostgreSQL gives them in the
// order its plan produces them. The subquery's ORDER BY (x.Keys, read
// from its plan's extra columns) decides that order except between rows
// it leaves tied; where tied rows (or, without ORDER BY, any two rows)
// hold values that print differently, the array is refused (0A000)
// rather than answered in another order.
func (c *compiler) arraySubquery(x *plan.Subquery, results func(b *Batch, sel []int) (map[int]*subResult, error)) (vexpr, error) {
	pos := func(id plan.ColumnID) int {
		for k, c := range x.Plan.Columns() {
			if c == id {
				return k
			}
		}
		return -1
	}
	vc := pos(x.Col.ID)
	if vc < 0 {
		return nil, unsupported("this ARRAY(SELECT …)")
	}
	var kpos []int
	var kt []plan.OID
	for _, k := range x.Keys {
		p := pos(k.Col)
		if p < 0 {
			return nil, unsupported("this ARRAY(SELECT … ORDER BY …)")
		}
		kpos, kt = append(kpos, p), append(kt, c.e.md.Column(k.Col).Type.OID)
	}
	elem := x.Col.T.OID
	// tied says whether two rows of the subquery are equal on every
	// ORDER BY key (always without ORDER BY).
	tied := func(a, b []types.Value) bool {
		for k, p := range kpos {
			if compareNullable(kt[k], a[p], b[p], false) != 0 {
				return false
			}
		}
		return true
	}
	return func(b *Batch, sel []int, out []types.Value) error {
		rs, err := results(b, sel)
		if err != nil {
			return err
		}
		for _, i := range sel {
			rows := rs[i].rows
			a := &types.Array{Elem: elem, Elems: make([]types.Value, len(rows))}
			for j, row := range rows {
				a.Elems[j] = row[vc]
				if j > 0 && !x.Unordered && tied(rows[j-1], row) && !sameValue(elem, rows[j-1][vc], row[vc]) {
					return unsupported("ARRAY(SELECT …) whose order of values its ORDER BY leaves to PostgreSQL's plan (add ORDER BY keys that tell the rows apart)")
				}
			}
			out[i] = a
		}
		return nil
	}, nil
}
