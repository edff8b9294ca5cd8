package exec

import (
	"sort"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The order a scan evaluates its filter's conjuncts in. PostgreSQL does
// not evaluate a scan's quals in the order they were written: the
// planner sorts them by their estimated per-row cost (createplan.c,
// order_qual_clauses; equal costs keep their order), so
// `100 / d > 30 AND d <> 0` runs `d <> 0` first and never divides by
// zero. Which conjunct runs first decides whether a statement fails
// (22012) or answers, so the scan sorts its conjuncts the same way, by
// the same costs (costsize.c, cost_qual_eval_walker) in units of
// cpu_operator_cost: an operator or function call costs its procost (1
// for nearly every built-in), a cast through a function 1, a cast
// through text output and input 2, a relabelling cast nothing, x IN
// (a, b, c) of constants half an operator per element, CASE, COALESCE,
// AND/OR/NOT, IS NULL, columns and constants nothing, an expression
// over constants nothing (folded while planning). When a conjunct holds
// something whose cost this does not know (a subquery, a catalog
// function, a cast it has no rule for), the conjuncts keep their
// written order (what the executor did before).

// orderQuals is filter's conjuncts in PostgreSQL's evaluation order.
func orderQuals(filter plan.Scalar) []plan.Scalar {
	return OrderByCost(plan.Conjuncts(filter), qualCost)
}

// OrderByCost is xs sorted by cost, equal costs in their order
// (order_qual_clauses); xs as they are when one's cost is not known.
func OrderByCost[T any](xs []T, cost func(T) (float64, bool)) []T {
	if len(xs) < 2 {
		return xs
	}
	costs := make([]float64, len(xs))
	for i, x := range xs {
		c, ok := cost(x)
		if !ok {
			return xs
		}
		costs[i] = c
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return costs[idx[a]] < costs[idx[b]] })
	out := make([]T, len(xs))
	for i, k := range idx {
		out[i] = xs[k]
	}
	return out
}

// SumCosts is the sum of xs' costs (ok=false: one is not known).
func SumCosts[T any](xs []T, cost func(T) (float64, bool)) (float64, bool) {
	var c float64
	for _, a := range xs {
		ac, ok := cost(a)
		if !ok {
			return 0, false
		}
		c += ac
	}
	return c, true
}

// quals compiles a filter (a scan's, a Filter's, a join's residual) as
// PostgreSQL's ExecQual runs a qual list: the conjuncts in orderQuals'
// order, each on the rows every earlier one was true for — a NULL stops
// a row as a false does (EEOP_QUAL; an AND inside an expression goes
// on past a NULL: boolOp) — so a later conjunct never sees, and never
// fails on, a row an earlier one did not accept. out[i] is true or
// false (never NULL: the caller keeps the true rows).
func (c *compiler) quals(filter plan.Scalar) (vexpr, error) {
	cj := orderQuals(filter)
	if len(cj) == 1 {
		return c.compile(cj[0])
	}
	evs := make([]vexpr, len(cj))
	for k, x := range cj {
		ev, err := c.compile(x)
		if err != nil {
			return nil, err
		}
		evs[k] = ev
	}
	var res valScratch
	var rowsBuf intScratch
	return func(b *Batch, sel []int, out []types.Value) error {
		r := res.get(b.N)
		rows := rowsBuf.copyOf(sel)
		for _, i := range sel {
			out[i] = false
		}
		for _, ev := range evs {
			if len(rows) == 0 {
				break
			}
			if err := ev(b, rows, r); err != nil {
				return err
			}
			n := 0
			for _, i := range rows {
				if t, ok := r[i].(bool); ok && t {
					rows[n] = i
					n++
				}
			}
			rows = rows[:n]
		}
		for _, i := range rows {
			out[i] = true
		}
		return nil
	}, nil
}

// qualCost is x's per-row cost as PostgreSQL's planner estimates it, in
// cpu_operator_cost units (ok=false: not known here).
func qualCost(x plan.Scalar) (float64, bool) {
	if foldable(x) {
		return 0, true
	}
	switch x := x.(type) {
	case *plan.ColRef, *plan.Const, *plan.Param:
		return 0, true
	case *plan.BoolOp:
		return sumCost(x.Args)
	case *plan.IsNull:
		return qualCost(x.Arg)
	case *plan.Op:
		c, ok := sumCost(x.Args)
		if !ok {
			return 0, false
		}
		if len(x.Args) == 2 {
			cc, ok := opCastCost(x)
			if !ok {
				return 0, false
			}
			c += cc
		}
		return c + 1, true
	case *plan.Cast:
		c, ok := qualCost(x.Arg)
		if !ok {
			return 0, false
		}
		cc, ok := castCost(x.Arg.Type(), x.T)
		return c + cc, ok
	case *plan.Case:
		var c float64
		for _, w := range x.Whens {
			a, ok := sumCost([]plan.Scalar{w.Cond, w.Result})
			if !ok {
				return 0, false
			}
			c += a
		}
		if x.Else != nil {
			a, ok := qualCost(x.Else)
			if !ok {
				return 0, false
			}
			c += a
		}
		return c, true
	case *plan.Func:
		return funcCost(x)
	case *plan.InList:
		return inListCost(x)
	}
	return 0, false
}

func sumCost(xs []plan.Scalar) (float64, bool) { return SumCosts(xs, qualCost) }

// funcCost is a function call's cost: its procost plus its arguments'.
func funcCost(x *plan.Func) (float64, bool) {
	if x.Ext != nil {
		return 0, false // a catalog function: its procost is the catalog's
	}
	args, ok := sumCost(x.Args)
	if !ok {
		return 0, false
	}
	switch x.Name {
	case "coalesce": // CoalesceExpr: free
		return args, true
	case "nullif", "greatest", "least": // NullIfExpr (its = operator), MinMaxExpr
		return args + 1, true
	}
	if x.Call == nil {
		return 0, false
	}
	for i, a := range x.Args {
		if i >= len(x.Call.Params) || i >= len(x.Call.Args) {
			break
		}
		from, to := x.Call.Args[i], x.Call.Params[i]
		if from == to || to == builtin.Any || isConst(a) {
			continue
		}
		cc, ok := castCost(plan.T(from), plan.T(to))
		if !ok {
			return 0, false
		}
		args += cc
	}
	return args + procost(x.Name), true
}

// procost is a built-in function's pg_proc.procost (1 but for a few).
func procost(name string) float64 {
	switch {
	case strings.HasPrefix(name, "pg_") && strings.HasSuffix(name, "_is_visible"),
		name == "has_any_column_privilege", name == "pg_column_is_updatable",
		name == "pg_relation_is_updatable", name == "pg_get_replica_identity_index":
		return 10
	case name == "col_description", name == "obj_description", name == "shobj_description",
		name == "to_tsvector", name == "to_tsquery", name == "plainto_tsquery",
		name == "phraseto_tsquery", name == "websearch_to_tsquery", name == "ts_headline":
		return 100
	}
	return 1
}

// isConst says whether x is a constant after planning (folded).
func isConst(x plan.Scalar) bool {
	switch x.(type) {
	case *plan.Const, *plan.Param:
		return true
	}
	return foldable(x)
}

// opCastCost is the cost of the casts PostgreSQL puts on a binary
// operator's operands where no operator takes both types as they are
// (int4 < numeric: the int4 operand cast to numeric).
func opCastCost(x *plan.Op) (float64, bool) {
	l, r := x.Args[0], x.Args[1]
	lt, rt := l.Type(), r.Type()
	if lt.OID == rt.OID {
		return 0, true
	}
	var to plan.Type
	switch x.Op {
	case "=", "<>", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		t, ok := cmpType(lt, rt)
		if !ok {
			return 0, false
		}
		to = t
	case "+", "-", "*", "/", "%":
		if numRank(lt.OID) == 0 || numRank(rt.OID) == 0 {
			// date + interval, timestamp - date, …: operators of both
			// types, no cast
			return 0, true
		}
		to = x.T
	default:
		return 0, false
	}
	var c float64
	for _, a := range []plan.Scalar{l, r} {
		if isConst(a) {
			continue
		}
		cc, ok := implicitCastCost(a.Type().OID, to.OID)
		if !ok {
			return 0, false
		}
		c += cc
	}
	return c, true
}

// implicitCastCost is the cost of the cast an operator's operand of type
// from gets to be compared or computed as type to: none where
// PostgreSQL has a cross-type operator (int2/int4/int8, float4/float8,
// date/timestamp, the string types but char(n)).
func implicitCastCost(from, to plan.OID) (float64, bool) {
	switch {
	case from == to:
		return 0, true
	case isInt(from) && isInt(to),
		(from == plan.Float4 || from == plan.Float8) && (to == plan.Float4 || to == plan.Float8),
		(from == plan.Date || from == plan.Timestamp) && (to == plan.Date || to == plan.Timestamp),
		isStr(from) && isStr(to) && from != plan.Bpchar:
		return 0, true
	case from == plan.Bpchar && isStr(to):
		return 1, true // text(bpchar)
	case numRank(from) > 0 && numRank(to) > numRank(from):
		return 1, true // int4 → numeric, numeric → float8, …
	}
	return 0, false
}

// castCost is the cost of an explicit cast from → to: a function (1,
// and 1 more for a length coercion to a typmod), output and input
// through text (2), a relabelling (0).
func castCost(from, to plan.Type) (float64, bool) {
	var mod float64
	if to.Mod >= 0 && (to.OID == plan.Numeric || to.OID == plan.Varchar || to.OID == plan.Bpchar ||
		to.OID == plan.Timestamp || to.OID == plan.Timestamptz || to.OID == plan.Time || to.OID == types.Timetz || to.OID == plan.Interval) {
		mod = 1 // numeric(n,m), varchar(n), char(n), timestamp(p): the length coercion function
		if from.OID == to.OID {
			return mod, true
		}
	}
	f, t := from.OID, to.OID
	switch {
	case f == t:
		return 0, true
	case f == plan.Unknown:
		return 0, true // a literal: folded
	case isStr(f) && isStr(t):
		if f == plan.Bpchar || f == plan.Name || t == plan.Name {
			return 1 + mod, true // text(bpchar), text(name), name(text)
		}
		return mod, true // text ↔ varchar: relabelled
	case numRank(f) > 0 && numRank(t) > 0:
		return 1 + mod, true
	case isInt(f) && t == plan.Bool, f == plan.Bool && isInt(t):
		return 1, true
	case isDateTime(f) && isDateTime(t):
		return 1 + mod, true
	case isStr(t) && f == plan.Bool:
		return 1 + mod, true // text(boolean)
	case isStr(f) || isStr(t):
		return 2 + mod, true // CoerceViaIO: the output and the input function
	}
	return 0, false
}

func isDateTime(o plan.OID) bool {
	switch o {
	case plan.Date, plan.Timestamp, plan.Timestamptz, plan.Time, types.Timetz, plan.Interval:
		return true
	}
	return false
}

// inListCost is x [NOT] IN (list) as PostgreSQL transforms it: items
// holding a column are an = (<>) each, the others one = ANY over an
// array costing half an operator per element (one = when it is alone).
func inListCost(x *plan.InList) (float64, bool) {
	arg, ok := qualCost(x.Arg)
	if !ok {
		return 0, false
	}
	var c float64
	vars, nonVars := 0, 0
	for _, it := range x.List {
		ic, ok := qualCost(it)
		if !ok {
			return 0, false
		}
		c += ic
		if hasColumn(it) {
			vars++
		} else {
			nonVars++
		}
	}
	return inListTotal(c, arg, vars, nonVars)
}

// inListTotal is an IN list's cost from its items' (c), its argument's
// and how many items read a column.
func inListTotal(c, arg float64, vars, nonVars int) (float64, bool) {
	if nonVars >= 9 {
		// ≥ 9 constants: PostgreSQL may hash the array
		// (convert_saop_to_hashed_saop), which costs it otherwise
		return 0, false
	}
	copies := vars
	c += float64(vars)
	switch {
	case nonVars > 1:
		copies++
		c += float64(nonVars) * 0.5
	case nonVars == 1:
		copies++
		c++
	}
	return c + arg*float64(copies), true
}

// hasColumn says whether x reads a column.
func hasColumn(x plan.Scalar) bool {
	found := false
	plan.Walk(x, func(y plan.Scalar) bool {
		if _, ok := y.(*plan.ColRef); ok {
			found = true
		}
		return !found
	})
	return found
}

// QualCastCost is the cost PostgreSQL's planner gives the cast of an
// operand of type from to an operator's type to (none across the
// integer, float, date/timestamp and string types but char(n)), for the
// SQL front end's own planner (ok=false: not known).
func QualCastCost(from, to types.OID) (float64, bool) { return implicitCastCost(from, to) }

// QualExplicitCastCost is castCost for the SQL front end's casts
// (no typmod).
func QualExplicitCastCost(from, to types.OID) (float64, bool) {
	return castCost(plan.T(from), plan.T(to))
}

// QualInListCost is the cost of x [NOT] IN (list) given the argument's
// cost, the items' costs and which items read a column (inListCost).
func QualInListCost(arg float64, items []float64, reads []bool) (float64, bool) {
	var c float64
	vars, nonVars := 0, 0
	for i, ic := range items {
		c += ic
		if reads[i] {
			vars++
		} else {
			nonVars++
		}
	}
	return inListTotal(c, arg, vars, nonVars)
}
