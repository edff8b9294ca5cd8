package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// arrayContainment compiles arraycontains (@>), arraycontained (<@) and
// arrayoverlap (&&) as PostgreSQL's array_contain_compare does: the
// arrays' elements are compared with the element type's equality
// (dimensions do not matter) and a NULL element equals nothing: a NULL
// in the array that must be contained is never found (ARRAY[1,NULL] @>
// ARRAY[NULL] is false); an empty array is contained in every array and
// overlaps none. NULL operands give NULL.
func (c *compiler) arrayContainment(x *plan.Func) (vexpr, error) {
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, err
	}
	elem := plan.ElemType(x.Args[0].Type()).OID
	// contains says whether every element of b is an element of a
	// (any: whether some element of b is).
	contains := func(a, b *types.Array, any bool) bool {
		for _, y := range b.Elems {
			found := false
			if y != nil {
				for _, z := range a.Elems {
					if z != nil && types.Compare(elem, z, y) == 0 {
						found = true
						break
					}
				}
			}
			if any && found {
				return true
			}
			if !any && !found {
				return false
			}
		}
		return !any
	}
	name := x.Name
	return rowWise(args, func(row []types.Value) (types.Value, error) {
		if row[0] == nil || row[1] == nil {
			return nil, nil
		}
		a, b := row[0].(*types.Array), row[1].(*types.Array)
		switch name {
		case "arraycontains":
			return contains(a, b, false), nil
		case "arraycontained":
			return contains(b, a, false), nil
		}
		return contains(a, b, true), nil
	}), nil
}
