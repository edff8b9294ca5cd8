package builtin

import (
	"math"
	"math/big"

	"github.com/sidecar-dev/sidecar/types"
)

// powerInt is power_var_int (numeric.c) for x ≠ 0 and an integral y ≠ 0
// within int4, as the registry's major computes it (powerIntMajor); a
// registry of unknown major answers where 14–15 and 16 on agree and
// refuses the rest.
func (r *Registry) powerInt(x, y *types.Decimal) (types.Value, error) {
	yes, known := r.atLeast(160000)
	if known {
		return powerIntMajor(x, y, yes)
	}
	old, errOld := powerIntMajor(x, y, false)
	cur, errCur := powerIntMajor(x, y, true)
	if errOld == nil && errCur == nil {
		o, c := old.(*types.Decimal), cur.(*types.Decimal)
		if o.Scale == c.Scale && o.V.Cmp(&c.V) == 0 {
			return cur, nil
		}
	} else if errOld != nil && errCur != nil && errOld.Error() == errCur.Error() {
		return nil, errCur
	}
	return nil, unsupported("power(numeric, integer) whose result scale depends on the PostgreSQL major (16 changed power_var_int)")
}

// powerIntMajor is power_var_int before PostgreSQL 16 (since16 false:
// the result scale is 16 or x's, 22003 past an estimated weight of
// 3·SHRT_MAX digits, 0 at that scale below it) or from 16 (the scale
// from a double estimate of the result's weight: 16 significant
// digits, at least x's and y's scales; 22003 past (NUMERIC_WEIGHT_MAX
// + 1)·4 digits, 0 at scale 1000 below −1000). The value is computed
// exactly and rounded half away from zero at that scale; PostgreSQL's
// repeated multiplication carries guard digits, so it rounds the same
// way except within a hair of a rounding midpoint, which is refused, as
// are an estimate too near a decision (Go's and C's log10 may differ in
// the last bits) and results too long to compute exactly here.
func powerIntMajor(x, y *types.Decimal, since16 bool) (types.Value, error) {
	n := new(big.Int).Set(&y.V)
	if y.Scale > 0 {
		n.Quo(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(y.Scale)), nil))
	}
	exp := n.Int64()
	ds, weight := nbase(x)
	f := float64(ds[0])
	p := weight * 4
	for i := 1; i < len(ds) && i*4 < 16; i++ {
		f = f*10000 + float64(ds[i])
		p -= 4
	}
	f = float64(exp) * (log10Digits(f) + float64(p)) // approximate decimal result weight
	rscale := min(max(numericMinSigDigits, int(x.Scale)), numericMaxDisplayScale)
	overflow, underflow := 3.0*32767*4, -float64(rscale)
	if since16 {
		rscale = max(numericMinSigDigits-int(f), int(x.Scale), int(y.Scale), numericMinDisplayScale)
		rscale = min(rscale, numericMaxDisplayScale)
		overflow, underflow = 131072, -numericMaxDisplayScale
	}
	underflow = max(underflow, -numericMaxDisplayScale)
	exact := len(ds) == 1 && isPow10(ds[0]) // log10 exact in Go and C
	if !exact && (math.Abs(f-overflow) < 1e-6*overflow || math.Abs(f+1-underflow) < 1e-6*math.Max(1, -underflow)) {
		return nil, errNearMidpoint("power(numeric, integer)")
	}
	if exp != 1 && exp != -1 && exp != 2 {
		if f > overflow {
			return nil, errorf(CodeOutOfRange, "value overflows numeric format")
		}
		if f+1 < underflow {
			if since16 {
				return &types.Decimal{Scale: numericMaxDisplayScale}, nil
			}
			return &types.Decimal{Scale: int32(rscale)}, nil
		}
	}
	if !exact && since16 && nearInteger(f, 1e-9*math.Max(1, math.Abs(f))) {
		return nil, errNearMidpoint("power(numeric, integer)") // int(f) decides the scale
	}
	ax := &types.Decimal{Scale: x.Scale}
	ax.V.Abs(&x.V)
	if decIsOne(ax) { // ±1: exactly, whatever the exponent
		one := &types.Decimal{Scale: int32(rscale)}
		one.V.Set(pow10(rscale))
		if x.V.Sign() < 0 && exp%2 != 0 {
			one.V.Neg(&one.V)
		}
		return one, nil
	}
	// x = V / 10^s; x^exp · 10^rscale = num / den, exactly.
	s := int64(x.Scale)
	absExp := exp
	if absExp < 0 {
		absExp = -absExp
	}
	bits := float64(x.V.BitLen()) * float64(absExp)
	if bits > 1<<21 || float64(max(s, 0))*float64(absExp) > 600000 {
		return nil, unsupported("power(numeric, integer) whose exact value has more than 600000 digits")
	}
	pow := new(big.Int).Exp(new(big.Int).Abs(&x.V), big.NewInt(absExp), nil)
	num, den := new(big.Int), new(big.Int)
	shift := int64(rscale) - s*exp // power of ten multiplying pow (exp > 0) or dividing it
	if exp > 0 {
		num.Set(pow)
		den.SetInt64(1)
		if shift >= 0 {
			num.Mul(num, pow10(int(shift)))
		} else {
			den.Set(pow10(int(-shift)))
		}
	} else {
		// 10^rscale / (V^n / 10^(s·n)) = 10^(rscale + s·n) / V^n
		num.Set(pow10(rscale + int(s*absExp)))
		den.Set(pow)
	}
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if exp != 1 && exp != -1 && rem.Sign() != 0 {
		// |2·rem − den| < den·10⁻⁴: near a midpoint
		d := new(big.Int).Sub(new(big.Int).Lsh(rem, 1), den)
		d.Abs(d).Mul(d, big.NewInt(10000))
		if d.Cmp(den) < 0 {
			return nil, errNearMidpoint("power(numeric, integer)")
		}
	}
	if new(big.Int).Lsh(rem, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if x.V.Sign() < 0 && absExp%2 == 1 {
		q.Neg(q)
	}
	res := &types.Decimal{V: *q, Scale: int32(rscale)}
	if intDigits := len(new(big.Int).Abs(q).String()) - rscale; q.Sign() != 0 && intDigits >= 131072 {
		if intDigits == 131072 {
			return nil, errNearMidpoint("power(numeric, integer)") // PostgreSQL's rounded weights decide
		}
		return nil, errorf(CodeOutOfRange, "value overflows numeric format")
	}
	return res, nil
}

// log10Digits is log10 of f, an integer of at most 16 digits: exact for
// a power of ten (as C's log10 is; Go's Log10(1000) is not 3).
func log10Digits(f float64) float64 {
	k, p := 0.0, 1.0
	for p < f {
		p *= 10
		k++
	}
	if p == f {
		return k
	}
	return math.Log10(f)
}

// isPow10 says whether the base-10000 digit d is a power of ten.
func isPow10(d int) bool { return d == 1 || d == 10 || d == 100 || d == 1000 }
