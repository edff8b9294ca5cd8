package exec

import "github.com/sidecar-dev/sidecar/types"

// smallComparer is general, a comparison of integer and numeric values
// as numerics, on int64 digits where both values fit them (numfast.go's
// smallOperand) and their scales can be brought together in 64 bits: an
// integer compared with a numeric column (TPC-H Q19's l_quantity >= 1)
// is not converted to a numeric per row, nor are two numerics compared
// as big integers. Numerics compare by value (1.5 = 1.50), as
// types.CompareDecimal does; any other pair (NaN, ±Infinity, more than
// 18 digits, scales too far apart) is general's.
func smallComparer(general func(a, b types.Value) (int, error)) func(a, b types.Value) (int, error) {
	return func(a, b types.Value) (int, error) {
		if x, xs, ok := smallOperand(a); ok {
			if y, ys, ok := smallOperand(b); ok {
				if n, ok := cmpScaled32(x, xs, y, ys); ok {
					return n, nil
				}
			}
		}
		return general(a, b)
	}
}

// cmpScaled32 is cmpScaled (scan_colcmp.go) for smallOperand's scales
// (ok=false: a scale outside 0…255, or the rescaling overflows).
func cmpScaled32(x int64, xs int32, y int64, ys int32) (int, bool) {
	if xs < 0 || ys < 0 || xs > 255 || ys > 255 {
		return 0, false
	}
	if xs == ys {
		return cmpInt(x, y), true
	}
	return cmpScaled(x, uint8(xs), y, uint8(ys))
}
