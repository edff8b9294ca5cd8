// Package opt rewrites a logical plan (package plan) into an equivalent
// one that reads less: one rule per file, applied in a fixed order by
// Optimize.
//
//   - inline.go: a CTE PostgreSQL inlines (referenced once, not
//     recursive, not MATERIALIZED) is put in place of its reference.
//   - fold.go: constant folding (boolean algebra with constants,
//     integer arithmetic and comparisons of constants that cannot fail)
//     and the conjuncts common to every arm of an OR pulled out of it.
//   - decorrelate.go: a correlated EXISTS / NOT EXISTS in a filter
//     becomes a semi / anti join on the correlation conditions.
//   - pushdown.go: predicate pushdown: a filter's conjuncts move below
//     projections, sorts, DISTINCT and (on group columns) aggregations,
//     into the side of a join they read or into the join's condition (a
//     comma list's cross joins become inner joins), and into scans.
//   - keyrange.go: a scan's conjuncts on the primary key's leading
//     columns against constants become a key range (a point get when
//     every key column is equal).
//   - prune.go: projection pushdown: each scan reads only the columns
//     something above it uses; projections that only pass their input
//     through go.
//   - joinorder.go: each tree of inner joins is reordered from row
//     estimates (estimate.go: the tables' row counts and distinct
//     counts, fixed fractions for filters, primary keys for joins):
//     greedily the connected pair with the smallest estimated result
//     first, the hash table built on the smaller side.
//
// Subqueries' plans are optimized the same way. The rules keep the
// answer exactly: they move or drop work, never change a value.
package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// Optimize applies the rules to q's plan.
func Optimize(q *plan.Query) *plan.Query {
	out := *q
	out.Plan = optimize(q.Plan, q.Plan.Columns(), q.MD)
	return &out
}

// optimize runs every rule over rel, whose columns need are used above.
// md types the columns of the query (the projections a rule adds).
func optimize(rel plan.Rel, need []plan.ColumnID, md *plan.Metadata) plan.Rel {
	rel = inlineCTEs(rel, md)
	rel = mapExprs(rel, fold, md)
	rel = decorrelate(rel)
	rel = pushdown(rel)
	rel = keyRanges(rel)
	rel = prune(rel, plan.SetOf(need), md)
	rel = keyOrder(rel) // keyorder.go
	rel = semiPush(rel) // semipush.go
	rel = joinOrder(rel, md)
	rel = semiBuild(rel)
	return rel
}

// mapExprs rebuilds rel with fn applied to every expression of every
// operator (subquery plans optimized on the way).
func mapExprs(rel plan.Rel, fn func(plan.Scalar) plan.Scalar, md *plan.Metadata) plan.Rel {
	f := func(s plan.Scalar) plan.Scalar {
		if s == nil {
			return nil
		}
		return plan.Map(s, func(x plan.Scalar) plan.Scalar {
			if sq, ok := x.(*plan.Subquery); ok {
				c := *sq
				need := sq.Plan.Columns()
				if sq.Kind == plan.SubExists {
					need = nil // EXISTS reads no column, only whether a row is there
				}
				c.Plan = optimize(sq.Plan, need, md)
				return fn(&c)
			}
			return fn(x)
		})
	}
	switch x := rel.(type) {
	case *plan.Scan:
		c := *x
		c.Filter = f(x.Filter)
		return &c
	case *plan.Filter:
		return &plan.Filter{Input: mapExprs(x.Input, fn, md), Pred: f(x.Pred), Gate: x.Gate}
	case *plan.Project:
		c := &plan.Project{Input: mapExprs(x.Input, fn, md), Cols: x.Cols}
		for _, e := range x.Exprs {
			c.Exprs = append(c.Exprs, f(e))
		}
		return c
	case *plan.Join:
		return &plan.Join{Kind: x.Kind, Left: mapExprs(x.Left, fn, md), Right: mapExprs(x.Right, fn, md), On: f(x.On)}
	case *plan.Aggregate:
		c := &plan.Aggregate{Input: mapExprs(x.Input, fn, md), GroupBy: x.GroupBy, Sets: x.Sets}
		for _, a := range x.Aggs {
			na := a
			na.Args = nil
			for _, e := range a.Args {
				na.Args = append(na.Args, f(e))
			}
			na.Filter = f(a.Filter)
			c.Aggs = append(c.Aggs, na)
		}
		return c
	case *plan.Sort:
		return &plan.Sort{Input: mapExprs(x.Input, fn, md), Keys: x.Keys}
	case *plan.Window:
		c := *x
		c.Input = mapExprs(x.Input, fn, md)
		return &c
	case *plan.Limit:
		return &plan.Limit{Input: mapExprs(x.Input, fn, md), Count: x.Count, Offset: x.Offset, Ties: x.Ties}
	case *plan.Distinct:
		return &plan.Distinct{Input: mapExprs(x.Input, fn, md), On: x.On}
	case *plan.SetOp:
		c := *x
		c.Left, c.Right = mapExprs(x.Left, fn, md), mapExprs(x.Right, fn, md)
		return &c
	case *plan.Values:
		c := &plan.Values{Cols: x.Cols}
		for _, row := range x.Rows {
			var r []plan.Scalar
			for _, e := range row {
				r = append(r, f(e))
			}
			c.Rows = append(c.Rows, r)
		}
		return c
	case *plan.LateralJoin:
		// The left side is an ordinary input: the later rules descend
		// into it (rebuild), so a WHERE conjunct on its columns reaches
		// its scans before the right side runs once per left row. The
		// right side is optimized on its own, as a correlated
		// subquery's plan is.
		c := *x
		c.Left = mapExprs(x.Left, fn, md)
		c.Right = optimize(x.Right, x.Right.Columns(), md)
		return &c
	case *plan.With:
		c := &plan.With{Body: mapExprs(x.Body, fn, md)}
		for _, cte := range x.CTEs {
			cte.Plan = optimize(cte.Plan, cte.Cols, md)
			c.CTEs = append(c.CTEs, cte)
		}
		return c
	}
	return rel
}
