package types

import (
	"math"
	"math/big"
	"testing"
)

// TestDecimalSlab checks Small against big.Int's own construction, the
// extremes included, and that values from one slab are independent.
func TestDecimalSlab(t *testing.T) {
	var s DecimalSlab
	var got []*Decimal
	vals := []int64{0, 1, -1, 42, -12345, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for r := 0; r < 3*decSlabSize; r++ { // past a slab's end
		v := vals[r%len(vals)]
		got = append(got, s.Small(v, int32(r%5)))
	}
	for r, d := range got {
		v := vals[r%len(vals)]
		if d.V.Cmp(big.NewInt(v)) != 0 || d.Scale != int32(r%5) || d.NaN || d.Inf != 0 {
			t.Fatalf("value %d: %s scale %d, want %d scale %d", r, d.V.String(), d.Scale, v, r%5)
		}
	}
}
