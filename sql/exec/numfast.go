package exec

import (
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// This file is numeric arithmetic without big-number work where the
// operands and the result fit an int64 at their scales (money columns,
// quantities, TPC-H's l_extendedprice * (1 - l_discount)): the result is
// exactly what types.AddDecimal / SubDecimal / MulDecimal give (same
// digits, same scale), in one allocation instead of two to six. Any
// other operand (NaN, ±Infinity, more than 18 digits) or an overflow
// takes the general path.

// smallDecimal is v at scale as a numeric (one allocation).
func smallDecimal(v int64, scale int32) *types.Decimal { return types.SmallDecimal(v, scale) }

// absU is |v| (MinInt64 included).
func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// smallOperand is v's unscaled digits and scale when v is an integer or
// a finite numeric that fits an int64.
func smallOperand(v types.Value) (x int64, scale int32, ok bool) {
	switch t := v.(type) {
	case int64:
		return t, 0, true
	case *types.Decimal:
		if !t.NaN && t.Inf == 0 && t.V.IsInt64() {
			return t.V.Int64(), t.Scale, true
		}
	}
	return 0, 0, false
}

// pow10s are 10^0 … 10^18, the powers an int64 holds.
var pow10s = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// rescaleSmall is x·10^k, ok=false when it does not fit.
func rescaleSmall(x int64, k int32) (int64, bool) {
	if k == 0 {
		return x, true
	}
	if k < 0 || int(k) >= len(pow10s) {
		return 0, false
	}
	p := pow10s[k]
	if x > math.MaxInt64/p || x < math.MinInt64/p {
		return 0, false
	}
	return x * p, true
}

// addScaled is x (at scale xs) + y (at scale ys) at the larger scale,
// ok=false when it does not fit an int64.
func addScaled(x int64, xs int32, y int64, ys int32) (int64, int32, bool) {
	s := max(xs, ys)
	x, ok := rescaleSmall(x, s-xs)
	if !ok {
		return 0, 0, false
	}
	if y, ok = rescaleSmall(y, s-ys); !ok {
		return 0, 0, false
	}
	r := x + y
	if (x > 0 && y > 0 && r < 0) || (x < 0 && y < 0 && r >= 0) {
		return 0, 0, false
	}
	return r, s, true
}

// fastNumeric is a op b (+, - or *) on numerics, ok=false when the
// operands or the result do not fit the int64 path. The result comes
// from slab (nil: allocated alone).
func fastNumeric(slab *types.DecimalSlab, op string, a, b types.Value) (types.Value, bool) {
	x, xs, ok := smallOperand(a)
	if !ok {
		return nil, false
	}
	y, ys, ok := smallOperand(b)
	if !ok {
		return nil, false
	}
	r, s, ok := smallArith(op, x, xs, y, ys) // aggsmall.go
	if !ok {
		return nil, false
	}
	return newSmall(slab, r, s), true
}

// newSmall is v at scale from slab (nil: allocated alone).
func newSmall(slab *types.DecimalSlab, v int64, scale int32) *types.Decimal {
	if slab == nil {
		return types.SmallDecimal(v, scale)
	}
	return slab.Small(v, scale)
}
