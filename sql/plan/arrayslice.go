package plan

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// arraySlice binds a[lo:hi] (either bound may be omitted) as
// Func{Name: "slice", Args: a, lo, hi} of a's type. Arrays here are
// one-dimensional with lower bound 1 (types.Array), so an omitted lower
// bound is 1 and an omitted upper bound the largest int4 (the executor
// clamps it to the array's end): the same elements PostgreSQL's
// array_get_slice takes. The catalog's vectors (lower bound 0) are
// refused.
func (b *binder) arraySlice(arg Scalar, ix *pg.A_Indices, sc *scope, ctx *exprCtx) (Scalar, error) {
	if types.IsVector(arg.Type().OID) {
		return nil, unsupported("slices of "+arg.Type().String(), -1)
	}
	bound := func(n *pg.Node, omitted int64) (Scalar, error) {
		if n == nil {
			return &Const{T: T(Int4), Text: strconv.FormatInt(omitted, 10)}, nil
		}
		return b.subscript(n, sc, ctx)
	}
	lo, err := bound(ix.Lidx, 1)
	if err != nil {
		return nil, err
	}
	hi, err := bound(ix.Uidx, 1<<31-1)
	if err != nil {
		return nil, err
	}
	return &Func{Name: "slice", Args: []Scalar{arg, lo, hi}, T: arg.Type()}, nil
}
