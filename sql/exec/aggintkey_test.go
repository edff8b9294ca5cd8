package exec

import (
	"math"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// TestIntGroups: the int64 index finds every key it was given and no
// other, through collisions on one slot (keys chosen to share their
// first slot before and after growth), the type bounds, zero and
// negative keys, the NULL key, and growth past many groups; a value of
// another Go type than the column's is not indexed.
func TestIntGroups(t *testing.T) {
	ig := newIntGroups([]plan.OID{plan.Int8})
	// keys sharing a first slot at the first size (16 slots)
	var same []int64
	for x := int64(-1000); len(same) < 7; x++ {
		if first := int64(-1000); intMix(uint64(x))&15 == intMix(uint64(first))&15 {
			same = append(same, x)
		}
	}
	keys := append([]int64{math.MinInt64, math.MaxInt64, 0, -1, 1, math.MinInt64 + 1}, same...)
	for i := int64(0); i < 50_000; i++ {
		keys = append(keys, i*7919-100_000_000)
	}
	seen := map[int64]int{}
	for _, k := range keys {
		if g, ok := ig.find(k); !ok {
			t.Fatalf("%d not indexed", k)
		} else if want, held := seen[k]; held && g != want || !held && g != -1 {
			t.Fatalf("find(%d) = %d, want %d (held %v)", k, g, want, held)
		}
		if _, held := seen[k]; !held {
			seen[k] = len(seen)
			ig.add(k, seen[k])
		}
	}
	if g, _ := ig.find(nil); g != -1 {
		t.Fatalf("NULL before its group: %d", g)
	}
	ig.add(nil, len(seen))
	for k, want := range seen {
		if g, _ := ig.find(k); g != want {
			t.Fatalf("after growth find(%d) = %d, want %d", k, g, want)
		}
	}
	if g, _ := ig.find(nil); g != len(seen) {
		t.Fatalf("NULL's group %d, want %d", g, len(seen))
	}
	for _, k := range []int64{2, -2, math.MaxInt64 - 1, -100_000_001} {
		if g, _ := ig.find(k); g != -1 {
			t.Errorf("find(%d) = %d for a key never added", k, g)
		}
	}
	if _, ok := ig.find(types.DateVal(0)); ok {
		t.Error("a date indexed by an int8 column's table")
	}
	dg := newIntGroups([]plan.OID{plan.Date})
	dg.add(types.DateVal(math.MaxInt32), 0)
	if g, ok := dg.find(types.DateVal(math.MaxInt32)); !ok || g != 0 {
		t.Errorf("date key: %d %v", g, ok)
	}
	if _, ok := dg.find(int64(math.MaxInt32)); ok {
		t.Error("an int64 indexed by a date column's table")
	}
	for _, oids := range [][]plan.OID{{plan.Text}, {plan.Int4, plan.Int4}, {plan.Numeric}, {plan.Float8}, nil} {
		if newIntGroups(oids) != nil {
			t.Errorf("an int64 index for %v", oids)
		}
	}
}

// TestSumIntAccumulator: a sum of int2/int4 values into int8 kept on an
// int64 (addInt) gives what the boxed sum gave, merges a one-value
// state (its value is not lost), and fails past int64 with Arith's
// 22003.
func TestSumIntAccumulator(t *testing.T) {
	sum := func(vals ...types.Value) *sumAgg {
		s := &sumAgg{t: plan.Int8}
		for _, v := range vals {
			if err := s.add(v); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	res := func(s aggState) types.Value {
		v, err := s.result()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := res(sum()); v != nil {
		t.Errorf("sum of nothing: %v, want NULL", v)
	}
	if v := res(sum(int64(math.MaxInt32), int64(math.MaxInt32), int64(-7), int64(0))); v != int64(2*math.MaxInt32-7) {
		t.Errorf("sum: %v", v)
	}
	for _, c := range []struct{ a, b []types.Value }{
		{[]types.Value{int64(5)}, []types.Value{int64(7)}},
		{[]types.Value{int64(5)}, []types.Value{int64(7), int64(-1)}},
		{nil, []types.Value{int64(7)}},
		{[]types.Value{int64(5), int64(1)}, nil},
	} {
		a, b := sum(c.a...), sum(c.b...)
		var want int64
		for _, v := range append(append([]types.Value(nil), c.a...), c.b...) {
			want += v.(int64)
		}
		if err := a.merge(b); err != nil {
			t.Fatal(err)
		}
		if v := res(a); v != want {
			t.Errorf("merge %v + %v: %v, want %d", c.a, c.b, v, want)
		}
	}
	s := sum(int64(1))
	s.i64 = math.MaxInt64 - 1
	_, want := types.Arith("+", plan.Int8, int64(math.MaxInt64-1), int64(5))
	if err := s.add(int64(5)); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("past int64: %v, want %v", err, want)
	}
	s = sum(int64(-1))
	s.i64 = math.MinInt64 + 1
	if err := s.add(int64(-5)); err == nil {
		t.Error("below int64: no error")
	}
}
