package exec

import "github.com/sidecar-dev/sidecar/types"

// multi is percentile_cont/percentile_disc(float8[]) WITHIN GROUP: the
// percentile of each fraction over the same sorted values, an array of
// the fractions' shape (PostgreSQL's percentile_*_multi_final); a NULL
// fraction gives a NULL element, a fraction outside [0, 1] the error of
// the one-fraction form.
func (o *orderedSetAgg) multi(fr *types.Array, vals []types.Value, cmp func(a, b types.Value) int) (types.Value, error) {
	elem := o.t
	if o.name == "percentile_cont" {
		elem = types.Float8
	}
	out := &types.Array{Elem: elem, Elems: make([]types.Value, len(fr.Elems))}
	for i, p := range fr.Elems {
		if p == nil {
			continue
		}
		v, err := o.at(p.(float64), vals, cmp)
		if err != nil {
			return nil, err
		}
		out.Elems[i] = v
	}
	return out, nil
}
