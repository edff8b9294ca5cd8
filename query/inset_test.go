package query

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/testkit/costratio"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/seed"
)

// inNode binds "col IN (lits)" for a column of kind k, as bindExpr does.
func inNode(t *testing.T, k heap.Kind, lits []string) *node {
	t.Helper()
	n, err := bindExpr(&Expr{Op: "in", Col: "c", Values: lits}, func(string) (int, heap.Kind, error) { return 0, k, nil })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A long IN list's set answers exactly as the linear scan: integers,
// floats (with -0 and NaN, equal under PostgreSQL's order), text and
// numerics at several scales.
func TestInSetMatchesLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.New(t, seedFlag), 7))
	pick := func(k heap.Kind) string {
		switch k {
		case heap.KindFloat8:
			return []string{"0", "-0", "NaN", "1.5", "-2.25", "Infinity", strconv.Itoa(r.IntN(50))}[r.IntN(7)]
		case heap.KindNumeric:
			return []string{"1", "1.0", "1.00", "2.50", "2.5", "-3", "NaN", strconv.Itoa(r.IntN(50))}[r.IntN(8)]
		}
		return strconv.Itoa(r.IntN(60) - 10)
	}
	for _, k := range []heap.Kind{heap.KindInt8, heap.KindFloat8, heap.KindText, heap.KindNumeric} {
		for trial := 0; trial < 50; trial++ {
			var lits []string
			for i := 0; i < inLinear+1+r.IntN(30); i++ {
				lits = append(lits, pick(k))
			}
			withSet := inNode(t, k, lits)
			if withSet.in == nil {
				t.Fatalf("%v: no set for %d values", k, len(lits))
			}
			linear := *withSet
			linear.in = nil
			for i := 0; i < 40; i++ {
				v, err := parseLiteral(k, pick(k))
				if err != nil {
					t.Fatal(err)
				}
				var a, b bool
				switch withSet.vk {
				case vInt:
					ta, tb := make([]uint64, 1), make([]uint64, 1)
					evalInts(withSet, []int64{v.I}, 1, ta)
					evalInts(&linear, []int64{v.I}, 1, tb)
					a, b = ta[0] == 1, tb[0] == 1
				case vFloat:
					ta, tb := make([]uint64, 1), make([]uint64, 1)
					evalFloats(withSet, []float64{v.F}, 1, ta)
					evalFloats(&linear, []float64{v.F}, 1, tb)
					a, b = ta[0] == 1, tb[0] == 1
				case vText:
					a, b = textMatch(withSet, []byte(v.S)), textMatch(&linear, []byte(v.S))
				case vNumeric:
					a, b = numMatch(withSet, valueNumv(v)), numMatch(&linear, valueNumv(v))
				}
				if a != b {
					t.Fatalf("%v IN %v of %+v: set says %v, linear scan %v", k, lits, v, a, b)
				}
				st := heap.ColStats{Count: 1, MinI: v.I, MaxI: v.I + int64(r.IntN(5)), MinF: v.F, MaxF: v.F + float64(r.IntN(5))}
				if withSet.vk == vInt || withSet.vk == vFloat {
					if withSet.in.mayMatch(withSet.vk, st) != linearMayMatch(&linear, st) {
						t.Fatalf("%v IN %v: zone map [%v…] set and linear scan disagree", k, lits, v)
					}
				}
			}
		}
	}
}

// linearMayMatch is mayMatch's linear scan of the values.
func linearMayMatch(n *node, st heap.ColStats) bool {
	for _, v := range n.vals {
		if n.vk == vFloat && floatCmp(st.MinF, v.F) <= 0 && floatCmp(st.MaxF, v.F) >= 0 ||
			n.vk == vInt && st.MinI <= v.I && st.MaxI >= v.I {
			return true
		}
	}
	return false
}

// Issue 21 item 7: filtering a page by an IN list costs a lookup per row,
// not rows × items: 100,000 items take at most a few times as long as
// 100 (the linear scan took 1,000 times as long).
func TestInListCostIsLinear(t *testing.T) {
	vals := make([]int64, 8192)
	for i := range vals {
		vals[i] = int64(i * 7)
	}
	cost := func(items int) time.Duration {
		lits := make([]string, items)
		for i := range lits {
			lits[i] = strconv.Itoa(i * 3)
		}
		n := inNode(t, heap.KindInt8, lits)
		out := make([]uint64, len(vals)/64)
		return costratio.Best(5, func() {
			for rep := 0; rep < 20; rep++ {
				evalInts(n, vals, len(vals), out)
			}
		})
	}
	costratio.AtMost(t, "8192 rows × 20, IN of 100 vs 100,000 items", cost(100), cost(100_000), 50)
}
