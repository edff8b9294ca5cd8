package types

import (
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"
)

// TestFloatSumGuardOrderFree: whenever the guard says a sum is order
// free, every shuffled order of the values (float8 and float4pl
// rounding) gives the same bits; and decimal fractions like PostgreSQL's
// failing case are caught.
func TestFloatSumGuardOrderFree(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	gens := []func() float64{
		func() float64 { return float64(rng.Intn(2000) - 1000) },
		func() float64 { return float64(rng.Intn(200)) / 8 },
		func() float64 { return math.Ldexp(float64(rng.Int63n(1<<52)), rng.Intn(20)-10) },
		func() float64 { return float64(rng.Intn(1000)) / 10 },
		func() float64 { return rng.NormFloat64() * 1e6 },
		func() float64 { return math.Ldexp(1, rng.Intn(120)-60) },
	}
	free, dep := 0, 0
	for trial := 0; trial < 3000; trial++ {
		gen := gens[trial%len(gens)]
		vals := make([]float64, 3+rng.Intn(40))
		for i := range vals {
			vals[i] = gen()
		}
		for _, prec := range []int{53, 24} {
			var g FloatSumGuard
			for _, v := range vals {
				if prec == 24 {
					v = float64(float32(v))
				}
				g.Add(v)
			}
			if !g.OrderFree(prec) {
				dep++
				continue
			}
			free++
			sum := func(vs []float64) float64 {
				if prec == 24 {
					var s float32
					for _, v := range vs {
						s += float32(v)
					}
					return float64(s)
				}
				var s float64
				for _, v := range vs {
					s += v
				}
				return s
			}
			in := slices.Clone(vals)
			if prec == 24 {
				for i := range in {
					in[i] = float64(float32(in[i]))
				}
			}
			want := sum(in)
			for range 20 {
				rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
				if got := sum(in); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("prec %d: %v sums to %v and %v in two orders, yet the guard said order free", prec, vals, want, got)
				}
			}
		}
	}
	if free == 0 || dep == 0 {
		t.Fatalf("order free %d, order dependent %d: both kinds should occur", free, dep)
	}
	var g FloatSumGuard
	for i := 1; i <= 50; i++ {
		g.Add(float64(i)*0.1 + 0.2)
	}
	if g.OrderFree(53) {
		t.Error("0.3, 0.4, … (a sum PostgreSQL adds in heap order) counted order free")
	}
	var two FloatSumGuard
	two.Add(0.1)
	two.Add(0.2)
	if !two.OrderFree(53) {
		t.Error("two values are order free (commutative)")
	}
	if lowBit(1) != 0 || lowBit(0.5) != -1 || lowBit(6) != 1 || lowBit(-12) != 2 {
		t.Errorf("lowBit: %d %d %d %d", lowBit(1), lowBit(0.5), lowBit(6), lowBit(-12))
	}
}
