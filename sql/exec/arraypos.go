package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// arrayPosition compiles array_position(a, x[, start]) and
// array_positions(a, x) as PostgreSQL's array_position_common and
// array_positions (arrayfuncs.c), non-strict: a NULL array gives NULL;
// an empty one NULL (array_positions: '{}'), before the start is
// checked; x NULL searches for NULL elements (IS NOT DISTINCT FROM) and
// answers at once when the array holds none; a NULL start is 22004;
// elements are compared with the element type's equality (json has
// none: 42883, as PostgreSQL says when it looks the operator up).
func (c *compiler) arrayPosition(x *plan.Func) (vexpr, error) {
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, err
	}
	elem := plan.ElemType(x.Args[0].Type()).OID
	all := x.Name == "array_positions"
	none := func() types.Value {
		if all {
			return &types.Array{Elem: types.Int4, Elems: []types.Value{}}
		}
		return nil
	}
	return rowWise(args, func(row []types.Value) (types.Value, error) {
		if row[0] == nil {
			return nil, nil
		}
		a := row[0].(*types.Array)
		if len(a.Elems) == 0 {
			return none(), nil
		}
		search := row[1]
		if search == nil && !hasNull(a) {
			return none(), nil
		}
		from := int64(1)
		if len(row) == 3 {
			if row[2] == nil {
				return nil, &types.Error{Code: "22004", Message: "initial position must not be null"}
			}
			from = row[2].(int64)
		}
		if elem == types.JSON {
			return nil, &types.Error{Code: "42883", Message: "could not identify an equality operator for type json"}
		}
		var found []types.Value
		for i, v := range a.Elems {
			pos := int64(i + 1)
			if pos < from {
				continue
			}
			if v == nil || search == nil {
				if v != nil || search != nil {
					continue
				}
			} else if types.Compare(elem, v, search) != 0 {
				continue
			}
			if !all {
				return pos, nil
			}
			found = append(found, pos)
		}
		if !all {
			return nil, nil
		}
		return &types.Array{Elem: types.Int4, Elems: append([]types.Value{}, found...)}, nil
	}), nil
}

// hasNull says whether a holds a NULL element.
func hasNull(a *types.Array) bool {
	for _, v := range a.Elems {
		if v == nil {
			return true
		}
	}
	return false
}
