package exec

import "github.com/sidecar-dev/sidecar/sql/plan"

// PostgreSQL's eval_const_expressions drops, unprocessed, what can never
// be evaluated: COALESCE's arguments after its first non-NULL constant,
// CASE's arms after a constant true condition or under a constant false
// one, AND/OR's arguments after a constant that decides them. Their
// errors (1/0, an overflow) are never raised; a malformed literal among
// them still is, by the parser, before any planning.

// constNonNull says whether a (compiled to f) is a constant, or an
// expression PostgreSQL folds to one, whose value is not NULL.
func (c *compiler) constNonNull(a plan.Scalar, f vexpr) bool {
	if _, isConst := a.(*plan.Const); !isConst && !foldable(a) {
		return false
	}
	v, err := scalarOnce(f)
	return err == nil && v != nil
}

// literals reads the literals of the expressions folding dropped, as
// PostgreSQL's parser reads them: a malformed one ('bad'::date) fails the
// statement (env.foldErr) though the expression is never evaluated.
func (c *compiler) literals(dropped ...plan.Scalar) error {
	var err error
	for _, s := range dropped {
		plan.Walk(s, func(x plan.Scalar) bool {
			switch y := x.(type) {
			case *plan.Subquery:
				return false // its own statement, compiled when run
			case *plan.Const:
				if err == nil {
					_, err = c.compile1(y)
				}
			}
			return err == nil
		})
	}
	return err
}

// caseRest is what a constant true condition of x's arm i leaves
// unevaluated: the later arms and the ELSE.
func caseRest(x *plan.Case, i int) []plan.Scalar {
	var rest []plan.Scalar
	for _, w := range x.Whens[i+1:] {
		rest = append(rest, w.Cond, w.Result)
	}
	if x.Else != nil {
		rest = append(rest, x.Else)
	}
	return rest
}

// constNull says whether a (compiled to f) is an expression PostgreSQL
// folds to a NULL constant while planning: a strict operator with such
// an operand is NULL then, its other operand never evaluated
// (extract(day from date '-infinity') - f8::int2 is NULL where f8 is
// NaN; sql/opt folds a NULL literal operand the same way).
func (c *compiler) constNull(a plan.Scalar, f vexpr) bool {
	if _, isConst := a.(*plan.Const); !isConst && !foldable(a) {
		return false
	}
	v, err := scalarOnce(f)
	return err == nil && v == nil
}
