package exec

import "github.com/sidecar-dev/sidecar/sql/plan"

// joinNeeds is, for each Join of the tree under root whose consumers are
// followed here (projections, filters, aggregations and other joins), the
// columns of its output read above it; a join absent from the map emits
// every column (its consumer is one this does not follow: a window, a
// sort, a set operation, the statement's result…).
//
// Why: a join's output is every column of both inputs, and each output
// batch gathers every one of them (joinOut.flush), while the columns
// read only by the join's own condition (TPC-H's key columns, most of
// them) are dropped by the next projection or aggregation. The scans
// below are already narrowed to what the tree reads (sql/opt prune);
// this narrows what each join carries upward and what its hash table
// holds, with the same rules prune follows.
func joinNeeds(root plan.Rel) map[*plan.Join]plan.ColSet {
	m := map[*plan.Join]plan.ColSet{}
	var walk func(rel plan.Rel, need plan.ColSet, all bool)
	walk = func(rel plan.Rel, need plan.ColSet, all bool) {
		switch x := rel.(type) {
		case *plan.Join:
			if all {
				walk(x.Left, plan.ColSet{}, true)
				walk(x.Right, plan.ColSet{}, true)
				return
			}
			m[x] = need
			in := need
			if x.On != nil {
				in = unionCols(need, plan.ColumnsOf(x.On))
			}
			walk(x.Left, in, false)
			walk(x.Right, in, false)
		case *plan.Project:
			var in plan.ColSet
			for _, e := range x.Exprs {
				in.AddSet(plan.ColumnsOf(e))
			}
			walk(x.Input, in, false)
		case *plan.Filter:
			if all {
				walk(x.Input, plan.ColSet{}, true)
				return
			}
			walk(x.Input, unionCols(need, plan.ColumnsOf(x.Pred)), false)
		case *plan.Aggregate:
			in := plan.SetOf(x.GroupBy)
			for _, s := range x.Sets {
				in.AddSet(plan.SetOf(s))
			}
			for _, a := range x.Aggs {
				for _, e := range a.Args {
					in.AddSet(plan.ColumnsOf(e))
				}
				if a.Filter != nil {
					in.AddSet(plan.ColumnsOf(a.Filter))
				}
			}
			walk(x.Input, in, false)
		default:
			for _, in := range rel.Inputs() {
				walk(in, plan.ColSet{}, true)
			}
		}
	}
	walk(root, plan.ColSet{}, true)
	return m
}

func unionCols(a, b plan.ColSet) plan.ColSet {
	var out plan.ColSet
	out.AddSet(a)
	out.AddSet(b)
	return out
}
