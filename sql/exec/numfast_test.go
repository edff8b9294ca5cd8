package exec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

var seedFlag = seed.Flag()

// numericOperands are values around the int64 path's edges: zero,
// signs, scales 0–20, 18/19-digit values, NaN and infinities.
func numericOperands(t *testing.T, r *rand.Rand) []types.Value {
	out := []types.Value{int64(0), int64(1), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), int64(r.Int64N(1e9) - 5e8)}
	for _, s := range []string{"0", "0.00", "-0.5", "1.10", "9223372036854775807", "-9223372036854775808",
		"922337203685477580.7", "99999999999999999.99", "12345678901234567890.5", "NaN", "Infinity", "-Infinity", "0.00000000000000000001"} {
		out = append(out, in(t, plan.Numeric, s))
	}
	for i := 0; i < 40; i++ {
		s := fmt.Sprintf("%d", r.Int64N(2e12)-1e12)
		if sc := r.IntN(8); sc > 0 && len(s) > sc+1 {
			s = s[:len(s)-sc] + "." + s[len(s)-sc:]
		}
		out = append(out, in(t, plan.Numeric, s))
	}
	return out
}

func asDecimal(v types.Value) *types.Decimal {
	if d, ok := v.(*types.Decimal); ok {
		return d
	}
	return types.DecimalFromInt(v.(int64))
}

func sameDecimal(a, b *types.Decimal) bool {
	return a.String() == b.String() && a.Scale == b.Scale && a.NaN == b.NaN && a.Inf == b.Inf && a.V.Cmp(&b.V) == 0
}

// TestFastNumericMatchesGeneral: the int64 path of + - * gives exactly
// the general path's value and scale, or declines.
func TestFastNumericMatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.New(t, seedFlag), 0))
	ops := numericOperands(t, r)
	general := map[string]func(a, b *types.Decimal) *types.Decimal{"+": types.AddDecimal, "-": types.SubDecimal, "*": types.MulDecimal}
	fast := 0
	for op, g := range general {
		for _, a := range ops {
			for _, b := range ops {
				got, ok := fastNumeric(nil, op, a, b)
				if !ok {
					continue
				}
				fast++
				want := g(asDecimal(a), asDecimal(b))
				if !sameDecimal(got.(*types.Decimal), want) {
					t.Fatalf("%v %s %v = %v (scale %d), want %v (scale %d)", a, op, b, got, got.(*types.Decimal).Scale, want, want.Scale)
				}
			}
		}
	}
	if fast == 0 {
		t.Fatal("the int64 path never ran")
	}
}

// TestNumericSumMatchesGeneral: sum over values of mixed scales that
// leave the int64 and come back in range, specials, and a result read
// while the sum goes on (a window's running sum) equals AddDecimal in
// turn, and an earlier result is not changed by later values.
func TestNumericSumMatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.New(t, seedFlag), 1))
	ops := numericOperands(t, r)
	for round := 0; round < 200; round++ {
		s := &sumAgg{t: plan.Numeric, from: plan.Numeric}
		var want *types.Decimal
		var held []*types.Decimal
		var heldWant []string
		for k := r.IntN(12) + 1; k > 0; k-- {
			v := asDecimal(ops[r.IntN(len(ops))])
			if err := s.add(v); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = v
			} else {
				want = types.AddDecimal(want, v)
			}
			got, _ := s.result()
			if !sameDecimal(got.(*types.Decimal), want) {
				t.Fatalf("round %d: sum = %v (scale %d), want %v (scale %d)", round, got, got.(*types.Decimal).Scale, want, want.Scale)
			}
			held, heldWant = append(held, got.(*types.Decimal)), append(heldWant, want.String())
		}
		for i, h := range held {
			if h.String() != heldWant[i] {
				t.Fatalf("round %d: result %d changed to %v after more values, want %s", round, i, h, heldWant[i])
			}
		}
	}
	// bigints past int64 and back, in place
	s := &sumAgg{t: plan.Numeric, from: plan.Int8}
	for _, x := range []int64{math.MaxInt64, math.MaxInt64, -3, math.MinInt64, 5} {
		if err := s.add(x); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.result(); got.(*types.Decimal).String() != "9223372036854775808" {
		t.Errorf("sum of bigints = %v, want 9223372036854775808", got)
	}
}

// BenchmarkNumericSumMixedScales: a sum whose values change scale and
// pass the int64 allocates nothing per value.
func BenchmarkNumericSumMixedScales(b *testing.B) {
	var vals []types.Value
	for _, x := range []string{"12345678901234567.5", "1.25", "99999999999999999.125"} {
		v, err := types.In(plan.Numeric, -1, x)
		if err != nil {
			b.Fatal(err)
		}
		vals = append(vals, v)
	}
	b.ReportAllocs()
	s := &sumAgg{t: plan.Numeric, from: plan.Numeric}
	for i := 0; b.Loop(); i++ {
		if err := s.add(vals[i%len(vals)]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNumericArithAllocs: l_extendedprice * (1 - l_discount) costs one
// allocation per operator (the result), and a numeric sum whose values
// change scale and leave the int64 none per value.
func TestNumericArithAllocs(t *testing.T) {
	num, i4 := plan.T(plan.Numeric), plan.T(plan.Int4)
	sub, err := arith("-", i4, num, num)
	if err != nil {
		t.Fatal(err)
	}
	mul, err := arith("*", num, num, num)
	if err != nil {
		t.Fatal(err)
	}
	price, disc := in(t, plan.Numeric, "12345.67"), in(t, plan.Numeric, "0.06")
	allocs := testing.AllocsPerRun(200, func() {
		d, _ := sub(int64(1), disc)
		if _, err := mul(price, d); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("price * (1 - discount): %.1f allocations, want 2 (one per result)", allocs)
	}
	s := &sumAgg{t: plan.Numeric, from: plan.Numeric}
	vals := []types.Value{in(t, plan.Numeric, "9223372036854775.807"), in(t, plan.Numeric, "1.25"), in(t, plan.Numeric, "99999999999999999.125"), in(t, plan.Numeric, "3")}
	for _, v := range vals { // past the int64, every scale seen once
		_ = s.add(v)
	}
	i := 0
	allocs = testing.AllocsPerRun(200, func() {
		_ = s.add(vals[i%len(vals)])
		i++
	})
	if allocs > 0 {
		t.Errorf("numeric sum past the int64: %.1f allocations per value, want 0", allocs)
	}
}
