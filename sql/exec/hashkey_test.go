package exec

import (
	"math"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

func in(t *testing.T, oid plan.OID, s string) types.Value {
	t.Helper()
	v, err := types.In(oid, -1, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestValueHasherEqualValues checks that the executor's hash tables hash
// values types.Compare finds equal alike, whatever their form: numerics
// of any scale and size (the int64 fast path and the big one meet),
// -0 and 0, every NaN, bpchar with and without trailing blanks.
func TestValueHasherEqualValues(t *testing.T) {
	h := newValueHasher()
	for _, c := range []struct {
		oid  plan.OID
		a, b string
	}{
		{plan.Numeric, "1.5", "1.50"},
		{plan.Numeric, "0", "0.000"},
		{plan.Numeric, "-0.0", "0"},
		{plan.Numeric, "100", "100.00"},
		{plan.Numeric, "-12.340", "-12.34"},
		{plan.Numeric, "9223372036854775807", "9223372036854775807.000"},
		{plan.Numeric, "92233720368547758070", "92233720368547758070.0"},
		{plan.Numeric, "1", "1.00000000000000000000000000000"},
		{plan.Numeric, "922337203685477580.7", "922337203685477580.70000000000"},
		{plan.Numeric, "NaN", "nan"},
		{plan.Float8, "0", "-0"},
		{plan.Float8, "NaN", "NaN"},
		{plan.Float8, "1.25", "1.250"},
		{plan.Bpchar, "ab", "ab   "},
		{plan.Int8, "42", "42"},
		{plan.Date, "1998-12-01", "1998-12-01"},
	} {
		a, b := in(t, c.oid, c.a), in(t, c.oid, c.b)
		if types.Compare(c.oid, a, b) != 0 {
			t.Fatalf("%s %q and %q: not equal by Compare", plan.T(c.oid), c.a, c.b)
		}
		if h.hash(c.oid, a) != h.hash(c.oid, b) {
			t.Errorf("%s %q and %q: equal but hashed differently", plan.T(c.oid), c.a, c.b)
		}
	}
	for _, c := range []struct {
		oid  plan.OID
		a, b string
	}{
		{plan.Numeric, "1.5", "15"},
		{plan.Numeric, "10", "1"},
		{plan.Numeric, "0.1", "1"},
		{plan.Int8, "1", "2"},
		{plan.Text, "a", "a "},
	} {
		if h.hash(c.oid, in(t, c.oid, c.a)) == h.hash(c.oid, in(t, c.oid, c.b)) {
			t.Errorf("%s %q and %q: different values hashed alike", plan.T(c.oid), c.a, c.b)
		}
	}
}

// TestSumNumericFastPath checks that a numeric sum on its int64 fast
// path gives what types.AddDecimal gives: across int64 overflow, a
// change of scale, a value too wide for an int64, NaN and bigint input.
func TestSumNumericFastPath(t *testing.T) {
	for _, vals := range [][]string{
		{"1.25", "2.50", "-0.75"},
		{"9223372036854775807", "1", "-5"},
		{"-9223372036854775808", "-1"},
		{"0.01", "0.1", "1"},
		{"1.10", "123456789012345678901234567890.55", "2.20"},
		{"1.5", "NaN", "2"},
		{"5"},
	} {
		s := &sumAgg{t: plan.Numeric, from: plan.Numeric}
		var want *types.Decimal
		for _, x := range vals {
			v := in(t, plan.Numeric, x).(*types.Decimal)
			if err := s.add(v); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = v
			} else {
				want = types.AddDecimal(want, v)
			}
		}
		got, _ := s.result()
		if g := got.(*types.Decimal); g.String() != want.String() {
			t.Errorf("sum(%v) = %s, want %s", vals, g, want)
		}
	}
	s := &sumAgg{t: plan.Numeric, from: plan.Int8}
	for _, x := range []int64{math.MaxInt64, math.MaxInt64, -3} {
		if err := s.add(x); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.result(); got.(*types.Decimal).String() != "18446744073709551611" {
		t.Errorf("sum of bigints = %s, want 18446744073709551611", got)
	}
	if got, _ := (&sumAgg{t: plan.Numeric, from: plan.Numeric}).result(); got != nil {
		t.Errorf("sum of no rows = %v, want NULL", got)
	}
}
