package opt

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// hasBadLiteral says whether s holds a literal its type does not read
// ('bad' compared with a date column): PostgreSQL's parser fails on it
// before the planner folds anything, so an expression holding one is
// never folded away here (`false AND d = 'bad'` fails with 22007 in
// PostgreSQL; folded to false, it answered no rows). sql/exec raises the
// literal's error while compiling (or refuses a form it does not read).
func hasBadLiteral(s plan.Scalar) bool {
	bad := false
	plan.Walk(s, func(x plan.Scalar) bool {
		switch y := x.(type) {
		case *plan.Subquery:
			return false
		case *plan.Const:
			if !y.Null && y.T.OID != plan.Unknown {
				_, err := types.In(y.T.OID, y.T.Mod, y.Text)
				bad = err != nil
			}
		}
		return !bad
	})
	return bad
}

// othersHaveBadLiteral says whether an argument of args other than the
// i-th holds a literal its type does not read.
func othersHaveBadLiteral(args []plan.Scalar, i int) bool {
	for j, a := range args {
		if j != i && hasBadLiteral(a) {
			return true
		}
	}
	return false
}
