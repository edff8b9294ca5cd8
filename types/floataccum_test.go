package types

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"
)

// accum is PostgreSQL's float8_regr_accum (N, Sx, Sxx, Sy, Syy, Sxy),
// written apart from the executors' copies, as the tests' fold.
func accum(rows [][2]float64) any {
	var n, sx, sxx, sy, syy, sxy float64
	for _, r := range rows {
		y, x := r[0], r[1]
		n0 := n
		n++
		sx += x
		sy += y
		if n0 > 0 {
			tx := float64(x*n) - sx
			ty := float64(y*n) - sy
			scale := 1.0 / float64(n*n0)
			sxx += float64(float64(tx*tx) * scale)
			syy += float64(float64(ty*ty) * scale)
			sxy += float64(float64(tx*ty) * scale)
		}
	}
	return [6]uint64{FloatKey(n), FloatKey(sx), FloatKey(sxx), FloatKey(sy), FloatKey(syy), FloatKey(sxy)}
}

// TestFloatAccumGuardOrderFree: whenever the guard says a variance or
// regression state is order free, every shuffled order of the rows gives
// the same bits; sets of more than AccumExhaustive distinct rows are
// refused; equal rows are answered at any count; and the order
// dependence the guard exists for does occur (some set of 3..5 rows has
// two results).
func TestFloatAccumGuardOrderFree(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	gens := []func() float64{
		func() float64 { return float64(rng.Intn(20) - 10) },
		func() float64 { return float64(rng.Intn(1000)) / 10 },
		func() float64 { return rng.NormFloat64() * 1e6 },
		func() float64 { return float64(100000000 + rng.Intn(10)) },
		func() float64 { return math.Ldexp(1, rng.Intn(120)-60) },
	}
	free, dep := 0, 0
	for trial := 0; trial < 5000; trial++ {
		gen := gens[trial%len(gens)]
		rows := make([][2]float64, 1+rng.Intn(8))
		for i := range rows {
			rows[i] = [2]float64{gen(), gen()}
		}
		if trial%7 == 0 { // all rows equal
			for i := range rows {
				rows[i] = rows[0]
			}
		}
		var g FloatAccumGuard
		for _, r := range rows {
			g.Add(r[0], r[1])
		}
		if !g.OrderFree(accum) {
			dep++
			continue
		}
		free++
		want := accum(rows)
		for range 30 {
			rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			if got := accum(rows); got != want {
				t.Fatalf("%v: two orders give %v and %v, yet the guard said order free", rows, want, got)
			}
		}
	}
	if free == 0 || dep == 0 {
		t.Fatalf("order free %d, order dependent %d: both kinds should occur", free, dep)
	}
	var many FloatAccumGuard
	for i := range AccumExhaustive + 1 {
		many.Add(0, float64(i))
	}
	if many.OrderFree(accum) {
		t.Error("6 distinct rows counted order free (beyond the exhaustive check)")
	}
	var same FloatAccumGuard
	for range 1000 {
		same.Add(2, 0.1)
	}
	if !same.OrderFree(accum) {
		t.Error("1000 equal rows: every order is the same sequence")
	}
	if e := many.Check("stddev", accum); e == nil || e.(*Error).Code != CodeUnsupported {
		t.Errorf("Check: %v, want 0A000", e)
	}
	var win FloatAccumGuard
	win.InOrder()
	for i := range 10 {
		win.Add(0, float64(i)/10)
	}
	if !win.OrderFree(accum) {
		t.Error("a window frame's rows (InOrder) refused")
	}
}

// TestFloatAccumGuardFindsDependence: some three values (0, 0.1, 0.7…)
// give float8_accum two results in two orders — the case refused — and
// the guard refuses exactly those among small sets.
func TestFloatAccumGuardFindsDependence(t *testing.T) {
	found := false
	for a := 1; a < 30 && !found; a++ {
		for b := a + 1; b < 30 && !found; b++ {
			rows := [][2]float64{{0, 0}, {0, float64(a) / 10}, {0, float64(b) / 10}}
			results := map[any]bool{}
			permute(rows, 3, func() { results[accum(rows)] = true })
			var g FloatAccumGuard
			for _, r := range rows {
				g.Add(r[0], r[1])
			}
			if g.OrderFree(accum) != (len(results) == 1) {
				t.Fatalf("%v: %d results, guard says order free %v", rows, len(results), g.OrderFree(accum))
			}
			found = len(results) > 1
		}
	}
	if !found {
		t.Error("no three decimal fractions give two results: the guard would have nothing to catch")
	}
}

// TestPermute: Heap's algorithm visits every order exactly once.
func TestPermute(t *testing.T) {
	for k := 1; k <= AccumExhaustive; k++ {
		a := make([][2]float64, k)
		for i := range a {
			a[i][1] = float64(i)
		}
		seen := map[string]bool{}
		permute(a, k, func() { seen[fmt.Sprint(a)] = true })
		want := 1
		for i := 2; i <= k; i++ {
			want *= i
		}
		if len(seen) != want {
			t.Errorf("k=%d: %d distinct orders, want %d", k, len(seen), want)
		}
	}
}
