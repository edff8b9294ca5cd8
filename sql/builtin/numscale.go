package builtin

import (
	"math/big"

	"github.com/sidecar-dev/sidecar/types"
)

// addNumScale adds min_scale and trim_scale (PostgreSQL 13+): the
// fewest fractional digits that represent a numeric exactly, and the
// value at that scale. NaN and the infinities have no scale: min_scale
// is NULL, trim_scale returns them unchanged.
func (r *Registry) addNumScale() {
	r.def("min_scale", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x := decOf(a[0])
		if x.NaN || x.Inf != 0 {
			return nil, nil
		}
		return int64(minScale(x)), nil
	}, nm)
	r.def("trim_scale", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x := decOf(a[0])
		if x.NaN || x.Inf != 0 {
			return x, nil
		}
		s := minScale(x)
		out := &types.Decimal{Scale: s}
		out.V.Quo(&x.V, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale-s)), nil))
		return out, nil
	}, nm)
}

// minScale is PostgreSQL's get_min_scale: x's scale less its trailing
// fractional zeros, 0 for zero and for integers.
func minScale(x *types.Decimal) int32 {
	if x.Scale <= 0 || x.V.Sign() == 0 {
		return 0
	}
	s := x.Scale
	v := new(big.Int).Set(&x.V)
	ten, r := big.NewInt(10), new(big.Int)
	for s > 0 {
		q, m := new(big.Int).QuoRem(v, ten, r)
		if m.Sign() != 0 {
			break
		}
		v, s = q, s-1
	}
	return s
}
