package exec

import (
	"strconv"

	"github.com/sidecar-dev/sidecar/types"
)

// vectorScalar is arrayScalar's per-row function for the functions whose
// answer depends on the lower bound, over int2vector and oidvector
// (types/vector.go: subscripts from 0); nil for the others.
func vectorScalar(name string) func(row []types.Value) (types.Value, error) {
	n := func(row []types.Value) int64 { return int64(len(row[0].(*types.Array).Elems)) }
	dim1 := func(row []types.Value) bool { return row[1].(int64) == 1 && n(row) > 0 }
	switch name {
	case "subscript":
		return func(row []types.Value) (types.Value, error) {
			a, i := row[0].(*types.Array), row[1].(int64)
			if i < 0 || i >= int64(len(a.Elems)) {
				return nil, nil
			}
			return a.Elems[i], nil
		}
	case "array_lower":
		return func(row []types.Value) (types.Value, error) {
			if !dim1(row) {
				return nil, nil
			}
			return int64(0), nil
		}
	case "array_upper":
		return func(row []types.Value) (types.Value, error) {
			if !dim1(row) {
				return nil, nil
			}
			return n(row) - 1, nil
		}
	case "array_dims":
		return func(row []types.Value) (types.Value, error) {
			if n(row) == 0 {
				return nil, nil
			}
			return "[0:" + strconv.FormatInt(n(row)-1, 10) + "]", nil
		}
	}
	return nil
}
