package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// semiPush moves a semi (or anti) join whose left side is a tree of inner joins
// down onto the one relation of that tree (a leaf, as joinOrder
// calls them) whose columns its condition reads, when that leaf is
// estimated to give no more rows than the whole tree. Why: the binder
// puts `x IN (SELECT …)` and a decorrelated EXISTS above the FROM
// list's joins, so every join below ran on rows the semi join would
// drop: TPC-H Q18 joined all of orders with customer and all of
// lineitem before its IN kept 57 orders (SF 1); PostgreSQL joins orders
// with the IN's rows first. The semi join on the leaf filters the same
// rows (its condition reads only that leaf's columns and its right
// side), so the answer is the same; it runs before joinOrder, which
// then orders the tree with the leaf's reduced estimate. Where the
// tree's other joins already reduce the leaf (TPC-H Q21's one nation's
// suppliers and orders of status F against its EXISTS over all of
// lineitem), the estimate keeps the semi join above them: pushed down,
// it would probe every row of the leaf instead.
//
// An anti join (a decorrelated NOT EXISTS) moves the same way: whether
// it keeps a row of the tree depends only on that row's columns of the
// leaf and on the right side's rows, so dropping the leaf's rows that
// have a match before the other joins keeps the same rows. NOT IN's
// anti join (notin.go) moves too: its condition makes it a test of the
// leaf's row against the whole right side (a NULL there drops every
// row wherever the join runs). sqlfront's proof that a pg_catalog scan
// reads user objects only (pgcatalog_reach.go) takes the conditions
// above an anti join to its left side: a NOT EXISTS moved onto
// pg_attribute below the join with pg_class that restricts it stays
// proven.
func semiPush(rel plan.Rel) plan.Rel {
	return rewriteJoins(rel, func(e *estimator, j *plan.Join) plan.Rel { // joinrewrite.go
		if j.Kind == plan.SemiJoin || j.Kind == plan.AntiJoin {
			if pushed := pushSemiJoin(j, e); pushed != nil {
				return pushed
			}
		}
		return j
	})
}

// pushSemiJoin is s's left tree of inner joins with s put on the leaf
// its condition reads, nil when s stays where it is.
func pushSemiJoin(s *plan.Join, e *estimator) plan.Rel {
	tree, ok := s.Left.(*plan.Join)
	if !ok || (tree.Kind != plan.InnerJoin && tree.Kind != plan.CrossJoin) || !columnComparisons(s.On) {
		return nil
	}
	var leaves []plan.Rel
	var flatten func(r plan.Rel)
	flatten = func(r plan.Rel) {
		if x, ok := r.(*plan.Join); ok && (x.Kind == plan.InnerJoin || x.Kind == plan.CrossJoin) {
			if volatile(x.On) {
				leaves = nil // where a volatile condition runs, and how often, must not change
				return
			}
			flatten(x.Left)
			flatten(x.Right)
			return
		}
		leaves = append(leaves, r)
	}
	flatten(tree)
	reads := plan.ColumnsOf(s.On)
	var leaf plan.Rel
	for _, l := range leaves {
		lc := plan.SetOf(l.Columns())
		if !reads.Intersects(lc) {
			continue
		}
		if leaf != nil {
			return nil // the condition reads two leaves
		}
		leaf = l
	}
	if leaf == nil || len(leaves) < 2 || e.rows(leaf) > e.rows(tree) {
		return nil
	}
	// Only the leaf's columns of the tree: what else the condition reads
	// is the right side's or an enclosing query's.
	own := plan.SetOf(leaf.Columns())
	for _, id := range tree.Columns() {
		if reads.Has(id) && !own.Has(id) {
			return nil
		}
	}
	semi := &plan.Join{Kind: s.Kind, Left: leaf, Right: s.Right, On: s.On}
	var put func(r plan.Rel) plan.Rel
	put = func(r plan.Rel) plan.Rel {
		if r == leaf {
			return semi
		}
		x, ok := r.(*plan.Join)
		if !ok || (x.Kind != plan.InnerJoin && x.Kind != plan.CrossJoin) {
			return r // another leaf
		}
		c := *x
		c.Left, c.Right = put(x.Left), put(x.Right)
		return &c
	}
	return put(tree)
}

// columnComparisons says whether every conjunct of on compares two
// columns (no cast, call or subquery: nothing that can fail or that
// runs per row). Moved onto a leaf, the condition is evaluated on rows
// the tree's other joins would have dropped: an expression that can
// fail (a division, a cast, a subquery returning two rows) could fail
// there where it did not above the joins.
func columnComparisons(on plan.Scalar) bool {
	if eq := plan.NotInEquality(on); eq != nil {
		on = eq // its IS NULL tests read the same columns and cannot fail
	}
	cs := plan.Conjuncts(on)
	for _, p := range cs {
		o, ok := p.(*plan.Op)
		if !ok || len(o.Args) != 2 {
			return false
		}
		switch o.Op {
		case "=", "<>", "<", "<=", ">", ">=":
		default:
			return false
		}
		for _, a := range o.Args {
			if _, ok := a.(*plan.ColRef); !ok {
				return false
			}
		}
	}
	return len(cs) > 0
}
