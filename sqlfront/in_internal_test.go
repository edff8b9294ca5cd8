package sqlfront

import (
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/testkit/costratio"
)

// Issue 21 item 7, the evaluator's side: x IN (constants) costs a
// lookup per row, not rows × items, and answers as the linear scan
// (NULL when nothing matches and the list holds a NULL).
func TestInExprCostIsLinear(t *testing.T) {
	list := func(items int, withNull bool) *inExpr {
		in := &inExpr{t: oidInt8, arg: &constExpr{t: oidInt8}}
		for i := 0; i < items; i++ {
			in.list = append(in.list, &constExpr{v: int64(i * 3), t: oidInt8})
		}
		if withNull {
			in.list = append(in.list, &constExpr{t: oidInt8})
		}
		return in
	}
	for _, items := range []int{3, 100} {
		for _, withNull := range []bool{false, true} {
			in := list(items, withNull)
			for x := int64(-1); x < 20; x++ {
				in.arg.(*constExpr).v = x
				got, err := in.eval(&env{})
				if err != nil {
					t.Fatal(err)
				}
				var want Value = x >= 0 && x%3 == 0 && x < int64(items*3)
				if want == false && withNull {
					want = nil
				}
				if got != want {
					t.Errorf("%d IN (%d items, NULL %v): %v, want %v", x, items, withNull, got, want)
				}
			}
		}
	}
	cost := func(items int) time.Duration {
		in := list(items, false)
		arg := in.arg.(*constExpr)
		return costratio.Best(3, func() {
			for x := int64(0); x < 20000; x++ {
				arg.v = x
				if _, err := in.eval(&env{}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	costratio.AtMost(t, "20,000 rows, IN of 100 vs 100,000 items", cost(100), cost(100_000), 50)
}
