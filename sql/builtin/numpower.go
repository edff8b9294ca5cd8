package builtin

import (
	"math/big"

	"github.com/sidecar-dev/sidecar/types"
)

// decPower is power(numeric, numeric) (numeric_power) where PostgreSQL's
// answer follows from its rules without computing a power: NaN (NaN ^ 0
// and 1 ^ NaN are 1, other NaN inputs NaN), the errors (zero to a
// negative power, a negative number to a non-integer power), x ^ 0
// (1, at power_var_int's result scale) and 0 ^ y (0: at that scale for
// an integer y, at NUMERIC_MIN_SIG_DIGITS otherwise). Other arguments,
// whose digits come from PostgreSQL's exp/ln series and its rscale
// estimates, and the infinities, are refused (0A000).
//
// PostgreSQL 16 made the exponent's scale count in that result scale
// (power_var_int's exp_dscale); r's server major decides, and where it
// is not known and the two differ the call is refused.
func (r *Registry) decPower(x, y *types.Decimal) (types.Value, error) {
	one := types.DecimalFromInt(1)
	if x.NaN {
		if !y.NaN && y.Inf == 0 && y.V.Sign() == 0 {
			return one, nil
		}
		return &types.Decimal{NaN: true}, nil
	}
	if y.NaN {
		if x.Inf == 0 && decIsOne(x) {
			return one, nil
		}
		return &types.Decimal{NaN: true}, nil
	}
	if x.Inf != 0 || y.Inf != 0 {
		return nil, unsupported("power(numeric, numeric) of an infinity")
	}
	xs, ys := x.V.Sign(), y.V.Sign()
	if xs == 0 && ys < 0 {
		return nil, errorf(CodeInvalidPower, "zero raised to a negative power is undefined")
	}
	yInt := decIsIntegral(y)
	if xs < 0 && !yInt {
		return nil, errorf(CodeInvalidPower, "a negative number raised to a non-integer power yields a complex result")
	}
	int32Exp := yInt && decFitsInt32(y)
	if !int32Exp && xs != 0 {
		return powerNonInteger(x, y) // numlog.go: power_var's exp(y·ln x)
	}
	// power_var_int's result scale for a zero or zero-power result: its
	// estimate of the result's weight is 0.
	rscale := min(max(numericMinSigDigits, x.Scale), numericMaxDisplayScale)
	if since16 := min(max(rscale, y.Scale), numericMaxDisplayScale); since16 != rscale {
		yes, known := r.atLeast(160000)
		if !known {
			return nil, unsupported("power(numeric, numeric) whose result scale depends on the PostgreSQL major (16 changed it)")
		}
		if yes {
			rscale = since16
		}
	}
	switch {
	case ys == 0:
		res := &types.Decimal{Scale: rscale}
		res.V.Exp(big.NewInt(10), big.NewInt(int64(rscale)), nil)
		return res, nil
	case xs == 0 && int32Exp:
		return &types.Decimal{Scale: rscale}, nil
	case xs == 0:
		return &types.Decimal{Scale: numericMinSigDigits}, nil
	}
	return r.powerInt(x, y) // numpowint.go
}

// NUMERIC_MIN_SIG_DIGITS and NUMERIC_MAX_DISPLAY_SCALE.
const (
	numericMinSigDigits    = 16
	numericMaxDisplayScale = 1000
)

// decIsOne says whether x (finite) is 1.
func decIsOne(x *types.Decimal) bool {
	var p big.Int
	p.Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil)
	return x.V.Cmp(&p) == 0
}

// decIsIntegral says whether x (finite) has no fractional part.
func decIsIntegral(x *types.Decimal) bool {
	if x.Scale <= 0 {
		return true
	}
	var p, m big.Int
	p.Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil)
	return m.Rem(&x.V, &p).Sign() == 0
}

// decFitsInt32 says whether x (finite, integral) is within int4's range.
func decFitsInt32(x *types.Decimal) bool {
	var q big.Int
	q.Set(&x.V)
	if x.Scale > 0 {
		var p big.Int
		p.Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil)
		q.Quo(&q, &p)
	} else if x.Scale < 0 {
		var p big.Int
		p.Exp(big.NewInt(10), big.NewInt(int64(-x.Scale)), nil)
		q.Mul(&q, &p)
	}
	return q.IsInt64() && q.Int64() >= -1<<31 && q.Int64() < 1<<31
}
