package exec

import (
	"math/big"

	"github.com/sidecar-dev/sidecar/types"
)

// bigSum is a numeric sum past the int64: one accumulator the sum owns
// (never handed out: result copies it), added to in place, and scratch
// numbers, so a value costs no allocation.
type bigSum struct {
	acc       types.Decimal
	tmp, conv big.Int
	pow       big.Int // 10^powK
	powK      int32
}

// pow10 is 10^k, kept for the next value of the same scale.
func (b *bigSum) pow10(k int32) *big.Int {
	if b.powK != k || b.pow.Sign() == 0 {
		if int(k) < len(pow10s) {
			b.pow.SetInt64(pow10s[k]) // in the storage it has: no allocation
		} else {
			b.pow.Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
		}
		b.powK = k
	}
	return &b.pow
}

// addNumeric adds v (an integer or a numeric) to a numeric sum: on the
// int64 while the values and the sum fit one, on the big accumulator
// once one does not. The sum is exactly what types.AddDecimal of the
// values in turn gives (digits and scale).
func (s *sumAgg) addNumeric(v types.Value) error {
	if x, scale, fits := smallOperand(v); fits && s.big == nil {
		if !s.small { // the first value
			s.small, s.i64, s.scale = true, x, scale
			return nil
		}
		if r, sc, ok := addScaled(s.i64, s.scale, x, scale); ok {
			s.i64, s.scale = r, sc
			return nil
		}
	}
	b := s.big
	if b == nil {
		b = &bigSum{}
		s.big = b
		if !s.small { // the first value
			if d, ok := v.(*types.Decimal); ok {
				b.acc.V.Set(&d.V)
				b.acc.Scale, b.acc.NaN, b.acc.Inf = d.Scale, d.NaN, d.Inf
			} else {
				b.acc.V.SetInt64(v.(int64))
			}
			return nil
		}
		b.acc.V.SetInt64(s.i64)
		b.acc.Scale = s.scale
		s.small = false
	}
	var digits *big.Int
	var scale int32
	switch d := v.(type) {
	case *types.Decimal:
		if d.NaN || d.Inf != 0 || b.acc.NaN || b.acc.Inf != 0 {
			b.acc = *types.AddDecimal(&b.acc, d) // specials: rare, the general rules
			return nil
		}
		digits, scale = &d.V, d.Scale
	default:
		if b.acc.NaN || b.acc.Inf != 0 {
			return nil // NaN or ±Infinity plus a number stays what it is
		}
		b.conv.SetInt64(v.(int64))
		digits = &b.conv
	}
	switch {
	case scale > b.acc.Scale:
		b.acc.V.Mul(&b.acc.V, b.pow10(scale-b.acc.Scale))
		b.acc.Scale = scale
		b.acc.V.Add(&b.acc.V, digits)
	case scale < b.acc.Scale:
		b.tmp.Mul(digits, b.pow10(b.acc.Scale-scale))
		b.acc.V.Add(&b.acc.V, &b.tmp)
	default:
		b.acc.V.Add(&b.acc.V, digits)
	}
	return nil
}

// decimal is a numeric sum's value (nil: no value yet), a value of its
// own (the sum may go on: a window's running sum).
func (s *sumAgg) decimal() *types.Decimal {
	switch {
	case s.small:
		return smallDecimal(s.i64, s.scale)
	case s.big == nil:
		return nil
	}
	a := &s.big.acc
	d := &types.Decimal{Scale: a.Scale, NaN: a.NaN, Inf: a.Inf}
	d.V.Set(&a.V)
	return d
}
