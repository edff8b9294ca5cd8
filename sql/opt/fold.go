package opt

import (
	"math"
	"slices"
	"strconv"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// fold simplifies one expression node whose arguments are folded already:
// AND/OR/NOT with boolean constants, IS NULL of a constant, a strict
// operator with a NULL constant argument, and integer arithmetic and
// comparison of two integer constants when the result cannot fail (no
// overflow, no division). Anything that could raise an error is left for
// execution, where PostgreSQL raises it.
func fold(s plan.Scalar) plan.Scalar {
	switch x := s.(type) {
	case *plan.BoolOp:
		return foldBool(x)
	case *plan.IsNull:
		if c, ok := x.Arg.(*plan.Const); ok {
			return boolConst(c.Null != x.Not)
		}
	case *plan.Op:
		if strictOps[x.Op] && slices.ContainsFunc(x.Args, isNullConst) && !slices.ContainsFunc(x.Args, hasConstCall) && !slices.ContainsFunc(x.Args, hasBadLiteral) {
			// PostgreSQL's eval_const_expressions makes a strict
			// function with a NULL constant argument NULL without
			// evaluating its other arguments: (a * a) <> NULL is NULL
			// even where a * a overflows.
			return &plan.Const{T: x.T, Null: true}
		}
		if len(x.Args) != 2 {
			return s
		}
		l, lok := intConst(x.Args[0])
		r, rok := intConst(x.Args[1])
		if !lok || !rok {
			return s
		}
		switch x.Op {
		case "=":
			return boolConst(l == r)
		case "<>":
			return boolConst(l != r)
		case "<":
			return boolConst(l < r)
		case "<=":
			return boolConst(l <= r)
		case ">":
			return boolConst(l > r)
		case ">=":
			return boolConst(l >= r)
		}
		var v int64
		var ok bool
		switch x.Op {
		case "+":
			v, ok = l+r, (r >= 0) == (l+r >= l)
		case "-":
			v, ok = l-r, (r <= 0) == (l-r >= l)
		case "*":
			v = l * r
			ok = l == 0 || (v/l == r && !(l == -1 && r == math.MinInt64))
		}
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		if x.T.OID == plan.Int4 {
			lo, hi = math.MinInt32, math.MaxInt32
		}
		if ok && v >= lo && v <= hi && (x.T.OID == plan.Int4 || x.T.OID == plan.Int8) {
			return &plan.Const{T: x.T, Text: strconv.FormatInt(v, 10)}
		}
	}
	return s
}

// strictOps are the operators whose functions are strict for every type
// the planner binds them to (comparison, arithmetic, pattern matching).
// Not ||: array_append/array_prepend/array_cat are not strict (the binder
// makes those calls, but || of other types stays out to be sure), nor IS
// [NOT] DISTINCT FROM.
var strictOps = map[string]bool{
	"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
	"+": true, "-": true, "*": true, "/": true, "%": true,
	"~~": true, "!~~": true, "~~*": true, "!~~*": true,
}

// hasConstCall says whether s holds an operator, function or cast over
// constants only: PostgreSQL's eval_const_expressions folds it (and
// raises its error: 1/0, an overflow) before it makes a strict operator
// with a NULL argument NULL or an AND with a false argument false, so
// neither is folded away here (sql/exec raises the error while
// compiling: env.foldErr).
func hasConstCall(s plan.Scalar) bool {
	found := false
	plan.Walk(s, func(x plan.Scalar) bool {
		switch x.(type) {
		case *plan.Op, *plan.Func, *plan.Cast:
		default:
			return !found
		}
		constant := true
		plan.Walk(x, func(y plan.Scalar) bool {
			switch y.(type) {
			case *plan.ColRef, *plan.Param, *plan.Subquery:
				constant = false
			}
			return constant
		})
		found = found || constant
		return !found
	})
	return found
}

func isNullConst(s plan.Scalar) bool {
	c, ok := s.(*plan.Const)
	return ok && c.Null
}

func foldBool(x *plan.BoolOp) plan.Scalar {
	if x.Op == "NOT" {
		if b, ok := boolOf(x.Args[0]); ok {
			return boolConst(!b)
		}
		return x
	}
	absorb := x.Op == "OR" // OR: true absorbs, false drops; AND: the reverse
	var keep []plan.Scalar
	for i, a := range x.Args {
		b, ok := boolOf(a)
		switch {
		case ok && b == absorb:
			if slices.ContainsFunc(x.Args[:i], hasConstCall) || othersHaveBadLiteral(x.Args, i) {
				return x // folding an argument before it raises an error; a malformed literal fails parsing (foldlit.go)
			}
			return boolConst(absorb)
		case ok:
			continue
		case isBoolOp(a, x.Op):
			keep = append(keep, a.(*plan.BoolOp).Args...)
		default:
			keep = append(keep, a)
		}
	}
	switch len(keep) {
	case 0:
		return boolConst(!absorb)
	case 1:
		return keep[0]
	}
	if x.Op == "OR" {
		return factorOr(keep)
	}
	return &plan.BoolOp{Op: x.Op, Args: keep}
}

// factorOr pulls the conjuncts every arm of an OR has out of it:
// (A AND B) OR (A AND C) is A AND (B OR C), as PostgreSQL's
// canonicalize_qual does, so a join condition repeated in each arm (TPC-H
// Q19) becomes a join condition.
func factorOr(arms []plan.Scalar) plan.Scalar {
	var common []plan.Scalar
	for _, c := range plan.Conjuncts(arms[0]) {
		inAll := true
		for _, a := range arms[1:] {
			if !slices.ContainsFunc(plan.Conjuncts(a), func(d plan.Scalar) bool { return plan.Equal(c, d) }) {
				inAll = false
				break
			}
		}
		if inAll && !slices.ContainsFunc(common, func(d plan.Scalar) bool { return plan.Equal(c, d) }) {
			common = append(common, c)
		}
	}
	if len(common) == 0 {
		return &plan.BoolOp{Op: "OR", Args: arms}
	}
	var rest []plan.Scalar
	for _, a := range arms {
		left := slices.DeleteFunc(slices.Clone(plan.Conjuncts(a)), func(d plan.Scalar) bool {
			return slices.ContainsFunc(common, func(c plan.Scalar) bool { return plan.Equal(c, d) })
		})
		if len(left) == 0 {
			return plan.And(common) // an arm that is only the common part: the OR is true there
		}
		rest = append(rest, plan.And(left))
	}
	return plan.And(append(common, &plan.BoolOp{Op: "OR", Args: rest}))
}

func isBoolOp(s plan.Scalar, op string) bool {
	b, ok := s.(*plan.BoolOp)
	return ok && b.Op == op
}

// boolOf is a non-NULL boolean constant's value.
func boolOf(s plan.Scalar) (bool, bool) {
	c, ok := s.(*plan.Const)
	if !ok || c.Null || c.T.OID != plan.Bool {
		return false, false
	}
	return c.Text == "true", true
}

func boolConst(b bool) plan.Scalar {
	return &plan.Const{T: plan.T(plan.Bool), Text: strconv.FormatBool(b)}
}

// intConst is an int4/int8 constant's value.
func intConst(s plan.Scalar) (int64, bool) {
	c, ok := s.(*plan.Const)
	if !ok || c.Null || (c.T.OID != plan.Int4 && c.T.OID != plan.Int8) {
		return 0, false
	}
	v, err := strconv.ParseInt(c.Text, 10, 64)
	return v, err == nil
}
