package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// arraySlice compiles a[lo:hi] (plan/arrayslice.go) as PostgreSQL's
// array_get_slice over a one-dimensional array of lower bound 1: a NULL
// array or bound gives NULL; the bounds are clamped to the array's;
// nothing left (or an empty array) is '{}'; the result starts at 1 and
// keeps the array's null bitmap (types.Array.NullBitmap).
func (c *compiler) arraySlice(x *plan.Func) (vexpr, error) {
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, err
	}
	return rowWise(args, func(row []types.Value) (types.Value, error) {
		if row[0] == nil || row[1] == nil || row[2] == nil {
			return nil, nil
		}
		a := row[0].(*types.Array)
		lo, hi := max(row[1].(int64), 1), min(row[2].(int64), int64(len(a.Elems)))
		if lo > hi {
			return &types.Array{Elem: a.Elem, Elems: []types.Value{}}, nil
		}
		// array_get_slice gives the slice a null bitmap when the array
		// had one, NULL elements in the slice or not (array_send's flag).
		return &types.Array{Elem: a.Elem, Elems: slices.Clone(a.Elems[lo-1 : hi]), NullBitmap: a.HasNullBitmap()}, nil
	}), nil
}
