package sqlfront

import "github.com/sidecar-dev/sidecar/sql/exec"

// The order the flat planner's WHERE runs its conjuncts in: PostgreSQL's
// qual list (sql/exec qualorder.go has the rules): sorted by estimated
// per-row cost, equal costs in written order, and a row stops at the
// first conjunct that is not true (NULL included), so
// `100 / d > 30 AND d <> 0` tests d <> 0 first and never divides by
// zero. Where a conjunct's cost is not known here (a function, a
// subquery), the written order stays.

// orderWhere is a WHERE expression run as PostgreSQL runs its quals.
func orderWhere(w expr) expr {
	cj := conjuncts(w)
	if len(cj) < 2 {
		return w
	}
	return &boolExpr{op: "and", args: exec.OrderByCost(cj, flatQualCost), qual: true}
}

// flatQualCost is x's per-row cost as PostgreSQL's planner estimates it
// (cpu_operator_cost units; ok=false: not known here).
func flatQualCost(x expr) (float64, bool) {
	if isConstant(x) {
		return 0, true // folded while planning
	}
	switch x := x.(type) {
	case *colExpr, *constExpr, *paramExpr:
		return 0, true
	case *boolExpr:
		return flatSum(x.args...)
	case *nullTest:
		return flatQualCost(x.arg)
	case *coalesceExpr:
		return flatSum(x.args...)
	case *negExpr:
		c, ok := flatQualCost(x.arg)
		return c + 1, ok
	case *likeExpr:
		c, ok := flatSum(x.arg, x.pat)
		return c + 1, ok
	case *cmpExpr:
		return flatOpCost(x.l, x.r, x.t)
	case *arithExpr:
		return flatOpCost(x.l, x.r, x.t)
	case *castExpr:
		c, ok := flatQualCost(x.arg)
		if !ok {
			return 0, false
		}
		cc, ok := exec.QualExplicitCastCost(x.from, x.to)
		return c + cc, ok
	case *inExpr:
		arg, ok := flatQualCost(x.arg)
		if !ok {
			return 0, false
		}
		items, reads := make([]float64, len(x.list)), make([]bool, len(x.list))
		for i, it := range x.list {
			if items[i], ok = flatQualCost(it); !ok {
				return 0, false
			}
			reads[i] = !isConstant(it)
		}
		return exec.QualInListCost(arg, items, reads)
	}
	return 0, false
}

func flatSum(xs ...expr) (float64, bool) { return exec.SumCosts(xs, flatQualCost) }

// flatOpCost is a binary operator's cost over operands coerced to type
// t: the operator, its operands, and the casts PostgreSQL puts on a
// non-constant operand where no operator takes its type as it is.
func flatOpCost(l, r expr, t uint32) (float64, bool) {
	c, ok := flatSum(l, r)
	if !ok {
		return 0, false
	}
	for _, a := range []expr{l, r} {
		if isConstant(a) || a.typ() == t {
			continue
		}
		cc, ok := exec.QualCastCost(a.typ(), t)
		if !ok {
			return 0, false
		}
		c += cc
	}
	return c + 1, true
}
