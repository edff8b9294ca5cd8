package sqlfront

// PostgreSQL's planner folds every immutable expression over constants
// (eval_const_expressions) before it reads a row, so an error there —
// 1/0, an overflow, timestamp 'infinity' subtracted — fails the
// statement even where no row reaches the expression (WHERE false, an
// empty table). The flat evaluator computes expressions per row, so
// without this check `SELECT 1/0 FROM t WHERE false` answered no rows
// where PostgreSQL fails with 22012 (found by internal/sqldiff's
// randmix generator). sql/exec does the same while compiling
// (env.foldErr).

// foldError is the first error PostgreSQL's planner would raise folding
// p's constant subexpressions: the select list, the join condition,
// WHERE, GROUP BY, HAVING, ORDER BY and the aggregates' arguments, in
// the order the planner preprocesses them. none says WHERE folds to a
// constant false or NULL: PostgreSQL then reads no row (a One-Time
// Filter), and the conjuncts folding dropped (`false AND id = 1/0`) are
// never evaluated, so the key lookup must not evaluate them either.
func (p *plan) foldError(e *env) (none bool, err error) {
	var exprs []expr
	exprs = append(exprs, p.targets...)
	for _, a := range p.aggs {
		exprs = append(exprs, a.arg)
	}
	exprs = append(exprs, p.groupBy...)
	for _, k := range p.order {
		exprs = append(exprs, k.e)
	}
	exprs = append(exprs, p.joinOn, p.whereAsWritten, p.having)
	for _, x := range exprs {
		if x == nil {
			continue
		}
		c, v, err := foldConst(x, e)
		if err != nil {
			return false, err
		}
		if x == p.whereAsWritten && c && (v == nil || v == false) {
			none = true
		}
	}
	return none || p.degenerateGrouping(), nil
}

// degenerateGrouping says whether p groups without GROUP BY and without
// an aggregate (a HAVING alone makes it grouped): PostgreSQL's
// is_degenerate_grouping. Its one group's row is the HAVING's answer
// alone, and PostgreSQL's plan (a Result with no input) reads no table:
// WHERE and FROM are not evaluated, so `WHERE 1/a = 1 HAVING 1 < 2`
// answers one row over a row with a = 0, and an empty table answers it
// too.
func (p *plan) degenerateGrouping() bool {
	return p.grouping && p.having != nil && len(p.groupBy) == 0 && len(p.aggs) == 0
}

// foldConst folds x as eval_const_expressions does, children first: it
// reports whether x is a constant PostgreSQL would fold, with its value,
// and the error folding raised. AND/OR stop at a constant that decides
// them and COALESCE at its first non-NULL constant (the arguments after
// are not folded); a strict operator's other arguments are folded even
// beside a NULL constant.
func foldConst(x expr, e *env) (bool, Value, error) {
	switch y := x.(type) {
	case *constExpr:
		return true, y.v, nil
	case *boolExpr:
		all := true
		for _, a := range y.args {
			c, v, err := foldConst(a, e)
			if err != nil {
				return false, nil, err
			}
			if c && v != nil && y.op != "not" && v.(bool) == (y.op == "or") {
				return true, v, nil // decides the whole; the rest is dropped
			}
			all = all && c
		}
		if !all {
			return false, nil, nil
		}
	case *coalesceExpr:
		all := true
		for _, a := range y.args {
			c, v, err := foldConst(a, e)
			if err != nil {
				return false, nil, err
			}
			if c && v != nil {
				if all {
					return true, v, nil
				}
				return false, nil, nil
			}
			all = all && c
		}
		if !all {
			return false, nil, nil
		}
	default:
		kids, ok := foldKids(x)
		all := ok
		null := false
		for _, k := range kids {
			c, v, err := foldConst(k, e)
			if err != nil {
				return false, nil, err
			}
			all = all && c
			null = null || c && v == nil
		}
		if null && strictNode(x) {
			// evaluate_function: a strict function with a constant
			// NULL argument is NULL, whatever its other arguments
			// and its volatility.
			return true, nil, nil
		}
		if !all || !foldableNode(x, kids) {
			return false, nil, nil
		}
	}
	v, err := x.eval(e)
	if err != nil {
		return false, nil, err
	}
	return true, v, nil
}

// foldKids are x's operands; ok is false for an expression that is never
// a constant (a column, a parameter, an aggregate, a function call not
// immutable — its arguments are still folded).
func foldKids(x expr) ([]expr, bool) {
	switch y := x.(type) {
	case *castExpr:
		return []expr{y.arg}, true
	case *arithExpr:
		return []expr{y.l, y.r}, true
	case *negExpr:
		return []expr{y.arg}, true
	case *cmpExpr:
		return []expr{y.l, y.r}, true
	case *nullTest:
		return []expr{y.arg}, true
	case *inExpr:
		return append([]expr{y.arg}, y.list...), true
	case *likeExpr:
		return []expr{y.arg, y.pat}, true
	case *anyExpr:
		kids := append([]expr{y.l}, y.elems...)
		if y.arr != nil {
			kids = append(kids, y.arr)
		}
		return kids, true
	case *funcExpr:
		return y.args, y.immutable
	}
	return nil, false
}

// foldableNode says whether PostgreSQL folds x over constant operands:
// its operator or cast is immutable — nothing over timestamptz or time
// with time zone (the session's zone), no conversion between text and a
// date/time type (DateStyle, IntervalStyle).
func foldableNode(x expr, kids []expr) bool {
	stable := func(t uint32) bool { return t == oidTimestamptz || t == types1266 }
	if stable(x.typ()) {
		return false
	}
	for _, k := range kids {
		if stable(k.typ()) {
			return false
		}
	}
	switch y := x.(type) {
	case *cmpExpr:
		return !stable(y.t)
	case *arithExpr:
		return !stable(y.t)
	case *castExpr:
		dt := func(t uint32) bool {
			return t == oidDate || t == oidTime || t == oidTimestamp || t == oidTimestamptz || t == oidInterval || t == types1266
		}
		str := func(t uint32) bool { return isTextType(t) || t == oidUnknown }
		return !(str(y.from) && dt(y.to) || dt(y.from) && str(y.to))
	}
	return true
}

// types1266 is time with time zone's OID.
const types1266 = 1266

// strictNode says whether x is a strict operator, cast or function
// (NULL in, NULL out), which PostgreSQL's planner replaces by a NULL
// constant when one of its arguments folds to NULL.
func strictNode(x expr) bool {
	switch y := x.(type) {
	case *castExpr, *arithExpr, *negExpr, *cmpExpr, *likeExpr:
		return true
	case *funcExpr:
		return y.strict
	}
	return false
}

// nullConst says whether x folds to a NULL constant by the rule above
// alone: a NULL literal, or a strict operator, cast or function over
// one. The row-at-a-time evaluator checks an operand with it before it
// evaluates the operands before that one (strict2, funcExpr), so
// t.f8::int2 < (NULL::int + 1) is NULL without the cast being
// evaluated, as in PostgreSQL's folded plan (22003 on a row whose f8 is
// out of int2's range, before).
func nullConst(x expr) bool {
	switch y := x.(type) {
	case *constExpr:
		return y.v == nil
	case *castExpr:
		return nullConst(y.arg)
	case *negExpr:
		return nullConst(y.arg)
	case *arithExpr:
		return nullConst(y.l) || nullConst(y.r)
	case *cmpExpr:
		return nullConst(y.l) || nullConst(y.r)
	case *likeExpr:
		return nullConst(y.arg) || nullConst(y.pat)
	case *funcExpr:
		if !y.strict {
			return false
		}
		for _, a := range y.args {
			if nullConst(a) {
				return true
			}
		}
	}
	return false
}
