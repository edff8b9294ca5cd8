package opt

import (
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// volatile says whether p calls a volatile function (random(),
// clock_timestamp()): as PostgreSQL (qual_is_pushdown_safe), such a
// conjunct is not pushed into a subquery or below a DISTINCT, where it
// would be evaluated for other rows than the ones it filters.
func volatile(p plan.Scalar) bool {
	found := false
	plan.Walk(p, func(x plan.Scalar) bool {
		if f, ok := x.(*plan.Func); ok && f.Call != nil && f.Call.Func.Volatility == builtin.Volatile {
			found = true
		}
		return !found
	})
	return found
}

// splitVolatile separates the conjuncts that call a volatile function.
func splitVolatile(preds []plan.Scalar) (rest, vol []plan.Scalar) {
	for _, p := range preds {
		if volatile(p) {
			vol = append(vol, p)
		} else {
			rest = append(rest, p)
		}
	}
	return rest, vol
}
