package types

import "math"

// Float8Accum is PostgreSQL's float8_accum transition (float4_accum's
// too): N, Sx and the Youngs–Cramer Sxx after adding x. overflow: Sx or
// Sxx became infinite from finite inputs, where PostgreSQL raises 22003
// (the returned Sxx is then NaN, as after an infinite input).
func Float8Accum(n, sx, sxx, x float64) (n1, sx1, sxx1 float64, overflow bool) {
	n1, sx1, sxx1 = n+1, sx+x, sxx
	if n > 0 {
		tmp := x*n1 - sx1
		sxx1 += tmp * tmp / (n1 * n)
		if math.IsInf(sx1, 0) || math.IsInf(sxx1, 0) {
			overflow = !math.IsInf(sx, 0) && !math.IsInf(x, 0)
			sxx1 = math.NaN()
		}
	} else if math.IsNaN(x) || math.IsInf(x, 0) {
		sxx1 = math.NaN()
	}
	return n1, sx1, sxx1, overflow
}
