package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// arrayEdit compiles array_remove(a, x) and array_replace(a, x, y) as
// PostgreSQL's array_replace_internal (arrayfuncs.c), not strict: a
// NULL array gives NULL; an empty one is returned as it is; elements
// IS NOT DISTINCT FROM x are dropped (array_remove) or become y, which
// may be NULL (array_replace); equality is the element type's (json has
// none: 42883, as PostgreSQL says when it looks the operator up).
func (c *compiler) arrayEdit(x *plan.Func) (vexpr, error) {
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, err
	}
	elem := plan.ElemType(x.T).OID
	remove := x.Name == "array_remove"
	return rowWise(args, func(row []types.Value) (types.Value, error) {
		if row[0] == nil {
			return nil, nil
		}
		a := row[0].(*types.Array)
		if len(a.Elems) == 0 {
			return a, nil
		}
		if elem == types.JSON {
			return nil, &types.Error{Code: "42883", Message: "could not identify an equality operator for type json"}
		}
		search := row[1]
		out := &types.Array{Elem: a.Elem, Elems: make([]types.Value, 0, len(a.Elems))}
		for _, v := range a.Elems {
			same := v == nil && search == nil || v != nil && search != nil && types.Compare(elem, v, search) == 0
			switch {
			case !same:
				out.Elems = append(out.Elems, v)
			case !remove:
				out.Elems = append(out.Elems, row[2])
			}
		}
		return out, nil
	}), nil
}
