package types

import "math"

// FloatSumGuard watches the values a float sum (or average) adds and
// tells whether its result is the same in every order of addition.
//
// PostgreSQL adds a float sum's rows one at a time in the order its plan
// reads them (float8pl, float4pl, float8_accum): a sequential scan's
// heap order — rows move to the heap's end when updated — or, under a
// GroupAggregate, the order its sort leaves tied rows in. The sidecar
// reads in key order. Rounding makes float addition order-dependent, so
// the two can differ in the last digits (sum of 0.3, 0.4, … after an
// UPDATE: 137.57 against 137.56999999999996). A sum is answered only
// when every order gives one value; else it is refused (0A000).
//
// Sufficient conditions: at most AccumExhaustive values whose every
// order of addition (tried, as FloatAccumGuard does) gives the same
// bits; or every finite value is an integer multiple of
// 2^low (low: the least significant set bit over all values), and the
// sum of their magnitudes is below 2^(prec-1+low); then every partial
// sum, in any order, is such a multiple of magnitude below 2^(prec+low)
// and so exact. Two values are order-free whatever they are (addition
// is commutative). Infinities and NaN make the result order-free as
// long as the finite part cannot overflow, which the bound implies.
type FloatSumGuard struct {
	n   int64
	has bool    // a finite nonzero value was seen
	low int     // least significant set bit's exponent over them
	abs float64 // sum of their magnitudes (rounded; the bound has a 2× margin)
	// vals: the values while there are at most AccumExhaustive
	vals [AccumExhaustive]float64
	// merged: partial sums were added together (a tree of additions,
	// not one of the sequential orders the exhaustive check tries)
	merged bool
}

// Add records one value added to the sum.
func (g *FloatSumGuard) Add(x float64) {
	if g.n < AccumExhaustive {
		g.vals[g.n] = x
	}
	g.n++
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return
	}
	l := lowBit(x)
	if !g.has || l < g.low {
		g.low = l
	}
	g.has = true
	g.abs += math.Abs(x)
}

// Merge adds o's values (a partial sum's guard).
func (g *FloatSumGuard) Merge(o *FloatSumGuard) {
	if g.n+o.n <= AccumExhaustive {
		copy(g.vals[g.n:], o.vals[:o.n])
	}
	g.merged = g.merged || o.merged || g.n > 0 && o.n > 0
	g.n += o.n
	if !o.has {
		return
	}
	if !g.has || o.low < g.low {
		g.low = o.low
	}
	g.has = true
	g.abs += o.abs
}

// OrderFree reports whether the sum's value does not depend on the order
// of its additions, for additions rounded to prec bits (53: float8, 24:
// float4pl).
func (g *FloatSumGuard) OrderFree(prec int) bool {
	if g.n <= 2 || !g.has {
		return true
	}
	if !math.IsInf(g.abs, 0) && g.abs < math.Ldexp(1, prec-1+g.low) {
		return true
	}
	if g.n > AccumExhaustive || g.merged {
		return false
	}
	rows := make([][2]float64, g.n)
	for i := range rows {
		rows[i][1] = g.vals[i]
	}
	// an overflow from finite operands is float8pl's/float4pl's error,
	// not the infinity an infinite operand gives
	overflow := func(s, x, r float64) bool { return math.IsInf(r, 0) && !math.IsInf(s, 0) && !math.IsInf(x, 0) }
	sum := func(rows [][2]float64) any {
		if prec == 24 {
			var s float32
			for _, r := range rows {
				n := s + float32(r[1])
				if overflow(float64(s), r[1], float64(n)) {
					return "overflow"
				}
				s = n
			}
			return FloatKey(float64(s))
		}
		var s float64
		for _, r := range rows {
			n := s + r[1]
			if overflow(s, r[1], n) {
				return "overflow"
			}
			s = n
		}
		return FloatKey(s)
	}
	want, same := sum(rows), true
	permute(rows, len(rows), func() {
		same = same && sum(rows) == want
	})
	return same
}

// Check is nil when OrderFree (or g is nil: nothing was added), else
// the 0A000 refusal naming fn.
func (g *FloatSumGuard) Check(fn string, prec int) error {
	if g == nil || g.OrderFree(prec) {
		return nil
	}
	return ErrFloatSumOrder(fn)
}

// ErrFloatSumOrder is the refusal of a float sum or average whose last
// digits depend on the order PostgreSQL adds its rows in.
func ErrFloatSumOrder(fn string) *Error {
	return &Error{Code: CodeUnsupported,
		Message: "not supported yet: " + fn + "() over float values whose last digits depend on the order PostgreSQL adds the rows in",
		Hint:    "Cast the argument to numeric (" + fn + "(x::numeric)) for an exact result that does not depend on the order."}
}

// lowBit is the exponent of x's least significant set bit (x finite,
// nonzero): x is an odd integer times 2^lowBit.
func lowBit(x float64) int {
	frac, exp := math.Frexp(math.Abs(x)) // x = frac × 2^exp, frac in [0.5, 1)
	m := uint64(math.Ldexp(frac, 53))    // 53-bit integer mantissa: x = m × 2^(exp-53)
	tz := 0
	for m&1 == 0 {
		m >>= 1
		tz++
	}
	return exp - 53 + tz
}
