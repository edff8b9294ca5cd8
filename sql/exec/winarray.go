package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// winArrayAgg is array_agg over a window frame: the frame's values,
// NULLs included (winFn.keepNull), in the order the window hands them
// over (its ORDER BY; among peers, the operator refuses any order that
// could differ from PostgreSQL's: array_agg is order-sensitive).
type winArrayAgg struct {
	elem plan.OID
	vals []types.Value
	n    int // rows added (NULLs included)
}

// winNull stands for a NULL argument handed to an aggregate that keeps
// them (the frame's add skips nil values).
type winNull struct{}

func (a *winArrayAgg) add(v types.Value) error {
	if _, null := v.(winNull); null {
		v = nil
	}
	a.vals = append(a.vals, v)
	a.n++
	return nil
}

func (a *winArrayAgg) result() (types.Value, error) {
	if a.n == 0 {
		return nil, nil
	}
	return &types.Array{Elem: a.elem, Elems: append([]types.Value(nil), a.vals...)}, nil
}
