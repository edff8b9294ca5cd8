package opt

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// Restriction OR clauses, as PostgreSQL's extract_restriction_or_clauses
// (optimizer/util/orclauses.c): a join condition that is an OR of arms,
// each reading both sides (TPC-H Q19: (p_brand = … AND l_quantity … AND
// p_size …) OR (…) OR (…)), implies for each side the OR of the parts of
// every arm that read only that side — when every arm has such a part.
// That implied condition filters the side's rows before the join (Q19:
// part's rows from all of them to the few of three brands and
// containers), while the join keeps the whole OR, so the answer is the
// same: a row the implied condition drops fails every arm.
//
// The implied condition is evaluated on rows the original would not have
// reached (rows with no partner on the other side). PostgreSQL does the
// same, but only when it estimates the condition selective; so that no
// row raises an error PostgreSQL would not, only parts that cannot fail
// are taken (comparisons and IN lists of columns and constants of plain
// types: orSafe).

// orRestrictions are the conditions that the OR conjuncts of preds imply
// for the columns in side (a join's side), one per OR that has a part
// reading only side in every arm.
func orRestrictions(preds []plan.Scalar, side, all plan.ColSet) []plan.Scalar {
	var out []plan.Scalar
	for _, p := range preds {
		or, ok := p.(*plan.BoolOp)
		if !ok || or.Op != "OR" || volatile(p) {
			continue
		}
		var arms []plan.Scalar
		for _, arm := range or.Args {
			var parts []plan.Scalar
			for _, c := range plan.Conjuncts(arm) {
				if plan.ColumnsOf(c).Intersects(side) && readsOnly(c, side, all) && orSafe(c) {
					parts = append(parts, c)
				}
			}
			if len(parts) == 0 {
				arms = nil // this arm says nothing of side: the OR implies nothing
				break
			}
			arms = append(arms, plan.And(parts))
		}
		if len(arms) == 0 {
			continue
		}
		r := plan.Scalar(&plan.BoolOp{Op: "OR", Args: arms})
		if slices.ContainsFunc(out, func(q plan.Scalar) bool { return plan.Equal(q, r) }) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// orSafe says whether evaluating p cannot raise an error: only columns,
// constants, AND/OR/NOT, IS NULL, comparisons and IN lists of numbers or
// dates, and equality of strings (an ordering comparison of strings can
// be refused under a collation the engine does not reproduce).
func orSafe(p plan.Scalar) bool {
	switch x := p.(type) {
	case *plan.ColRef, *plan.Const:
		return true
	case *plan.BoolOp:
		return !slices.ContainsFunc(x.Args, func(a plan.Scalar) bool { return !orSafe(a) })
	case *plan.IsNull:
		return orOperand(x.Arg)
	case *plan.Op:
		switch x.Op {
		case "=", "<>":
		case "<", "<=", ">", ">=":
			if len(x.Args) == 2 && (orString(x.Args[0]) || orString(x.Args[1])) {
				return false
			}
		default:
			return false
		}
		return len(x.Args) == 2 && orComparable(x.Args[0], x.Args[1])
	case *plan.InList:
		for _, e := range x.List {
			if !orComparable(x.Arg, e) {
				return false
			}
		}
		return true
	}
	return false
}

// orOperand: a column or a constant.
func orOperand(s plan.Scalar) bool {
	switch s.(type) {
	case *plan.ColRef, *plan.Const:
		return true
	}
	return false
}

// orComparable: two operands whose comparison cannot fail: both numbers
// (integers, numeric, float8), both dates, or both strings.
func orComparable(a, b plan.Scalar) bool {
	if !orOperand(a) || !orOperand(b) {
		return false
	}
	num := func(o plan.OID) bool {
		return o == plan.Int2 || o == plan.Int4 || o == plan.Int8 || o == plan.Numeric || o == plan.Float8
	}
	ta, tb := a.Type().OID, b.Type().OID
	switch {
	case num(ta) && num(tb), ta == plan.Date && tb == plan.Date, orString(a) && orString(b):
		return true
	}
	return false
}

// orString: a text, varchar or bpchar operand.
func orString(s plan.Scalar) bool {
	o := s.Type().OID
	return o == plan.Text || o == plan.Varchar || o == plan.Bpchar
}
