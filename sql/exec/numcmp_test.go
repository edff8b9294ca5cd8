package exec

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// TestSmallComparer: comparisons of integers and numerics on int64
// digits (numcmp.go) give the sign the numeric comparison gives for
// every pair — mixed scales (1.5 = 1.50), int64's extremes, scales too
// far apart for 64 bits, NaN, ±Infinity and more than 18 digits (left
// to the general comparison) — with the integer on either side.
func TestSmallComparer(t *testing.T) {
	c := &compiler{e: newEnv(context.Background(), nil, nil, DefaultWorkMem, nil), lay: layout{}}
	var nums []types.Value
	for _, s := range []string{"0", "1", "1.5", "1.50", "-1.5", "0.000000000000000001", "-0.00000000000000000000001",
		"11", "11.00", "10.99", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"922337203685477580.7", "0.922337203685477580", "123456789012345678901234.5", "NaN", "Infinity", "-Infinity",
		"20", "19.999999999999999999", "20.0000000000000001"} {
		v, err := types.In(plan.Numeric, -1, s)
		if err != nil {
			t.Fatal(s, err)
		}
		nums = append(nums, v)
	}
	ints := []types.Value{int64(0), int64(1), int64(-1), int64(11), int64(20), int64(math.MaxInt64), int64(math.MinInt64), int64(922337203685477580)}
	asNum := func(v types.Value) types.Value {
		if i, ok := v.(int64); ok {
			d, err := types.In(plan.Numeric, -1, strconv.FormatInt(i, 10))
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		return v
	}
	for _, pair := range []struct {
		l, r   plan.OID
		ls, rs []types.Value
	}{{plan.Numeric, plan.Numeric, nums, nums}, {plan.Int8, plan.Numeric, ints, nums}, {plan.Numeric, plan.Int4, nums, ints}} {
		cmp, err := c.comparer(plan.T(pair.l), plan.T(pair.r))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range pair.ls {
			for _, b := range pair.rs {
				got, err := cmp(a, b)
				if err != nil {
					t.Fatal(err)
				}
				if want := types.Compare(plan.Numeric, asNum(a), asNum(b)); got != want {
					t.Errorf("%v (%d) vs %v (%d): %d, want %d", a, pair.l, b, pair.r, got, want)
				}
			}
		}
	}
}
