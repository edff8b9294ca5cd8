package types

import "math"

// FloatAccumGuard watches the values a float variance, standard
// deviation or two-argument statistics aggregate (stddev*, var*,
// variance, corr, covar_*, regr_*) adds, and tells whether its result is
// the same in every order of the rows.
//
// PostgreSQL accumulates these one row at a time in its plan's order
// (float8_accum, float8_regr_accum: the Youngs–Cramer recurrence
// Sxx += (x·N − Sx)² / (N·(N−1))), heap order or a sort's, and the
// sidecar reads in key order. Unlike a sum's, the recurrence divides by
// N·(N−1) at every step, so its intermediates are inexact for almost
// every input of three values or more, whatever their bits: no bound on
// the values makes it order-free the way FloatSumGuard's does. The
// result is answered only in the cases proved order-free here:
//
//   - at most one row: one order;
//   - every (y, x) pair bitwise equal: every order is the same sequence
//     of additions;
//   - at most AccumExhaustive rows: Check replays the aggregate (the
//     caller's fold, the very arithmetic it runs) over every permutation
//     and answers only when all give the same result (at most 120
//     replays of at most 5 steps, once per group);
//
// else Check refuses with 0A000 and the hint to cast to numeric, whose
// accumulation is exact.
type FloatAccumGuard struct {
	n       int64
	vals    [AccumExhaustive][2]float64 // the first rows' (y, x)
	differ  bool                        // some row's pair differs from the first's
	ordered bool                        // rows arrive in PostgreSQL's own order (a window's frame)
}

// AccumExhaustive is the number of rows up to which Check tries every
// order (5! = 120 replays).
const AccumExhaustive = 5

// Add records one row's (y, x) (a one-argument aggregate passes y = 0).
func (g *FloatAccumGuard) Add(y, x float64) {
	if g.n < AccumExhaustive {
		g.vals[g.n] = [2]float64{y, x}
	}
	if g.n > 0 && (math.Float64bits(y) != math.Float64bits(g.vals[0][0]) ||
		math.Float64bits(x) != math.Float64bits(g.vals[0][1])) {
		g.differ = true
	}
	g.n++
}

// InOrder marks the rows as fed in PostgreSQL's own order (a window
// frame's, its peers refused apart): every result is answered.
func (g *FloatAccumGuard) InOrder() { g.ordered = true }

// OrderFree reports whether the result is the same in every order of
// the rows. fold replays the aggregate over rows given as (y, x) pairs
// and returns a comparable key of its result (floats as their bits,
// errors as their codes); it is called only for 2..AccumExhaustive rows
// that differ.
func (g *FloatAccumGuard) OrderFree(fold func(rows [][2]float64) any) bool {
	if g.ordered || g.n <= 1 || !g.differ {
		return true
	}
	if g.n > AccumExhaustive {
		return false
	}
	rows := make([][2]float64, g.n)
	copy(rows, g.vals[:g.n])
	want := fold(rows)
	same := true
	permute(rows, len(rows), func() {
		if same && fold(rows) != want {
			same = false
		}
	})
	return same
}

// Check is nil when OrderFree, else the 0A000 refusal naming fn.
func (g *FloatAccumGuard) Check(fn string, fold func(rows [][2]float64) any) error {
	if g.OrderFree(fold) {
		return nil
	}
	return ErrFloatSumOrder(fn)
}

// permute calls visit once for every permutation of a[:k] (Heap's
// algorithm), a rearranged in place.
func permute(a [][2]float64, k int, visit func()) {
	if k <= 1 {
		visit()
		return
	}
	for i := 0; i < k-1; i++ {
		permute(a, k-1, visit)
		if k%2 == 0 {
			a[i], a[k-1] = a[k-1], a[i]
		} else {
			a[0], a[k-1] = a[k-1], a[0]
		}
	}
	permute(a, k-1, visit)
}

// FloatKey is a comparable key of a float result for OrderFree's folds:
// its bits (NaNs of one payload equal; -0 and +0 apart).
func FloatKey(f float64) uint64 { return math.Float64bits(f) }
