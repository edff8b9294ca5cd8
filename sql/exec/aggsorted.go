package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// An aggregate whose value keeps its input's order (array_agg,
// string_agg, the JSON aggregates) with no ORDER BY of its own, in a
// query without GROUP BY over a sorted subquery — SELECT json_agg(s)
// FROM (SELECT … ORDER BY k) s, what API layers generate — reads its
// rows in that subquery's order in PostgreSQL (a plain Agg reads its
// input as it comes; projections, filters and limits keep the order).
// sortedAggInput gives such aggregates the subquery's ORDER BY keys as
// their own, so sidecar follows the same order and, like an explicit
// ORDER BY, refuses where rows the keys leave tied print differently
// (PostgreSQL's sort decides their order).

// inputOrderAggs are the aggregates whose value follows the order of
// their input rows, their ORDER BY keys being trailing Args.
var inputOrderAggs = map[string]bool{
	"array_agg": true, "string_agg": true, "json_agg": true, "jsonb_agg": true,
	"json_object_agg": true, "jsonb_object_agg": true,
}

// sortedAggInput is a: unchanged unless it has no GROUP BY, an
// aggregate of inputOrderAggs without ORDER BY or DISTINCT, and an
// input that is a Sort under projections, filters and limits only;
// then those aggregates take the Sort's keys as their ORDER BY, and
// the input is rebuilt so that its projections pass the key columns
// through.
func sortedAggInput(a *plan.Aggregate, md *plan.Metadata) *plan.Aggregate {
	if len(a.GroupBy) > 0 || len(a.Sets) > 0 {
		return a
	}
	want := false
	for _, ae := range a.Aggs {
		want = want || inputOrderAggs[ae.Name] && len(ae.Order) == 0 && !ae.Distinct
	}
	if !want {
		return a
	}
	in, keys, ok := passSortKeys(a.Input, md)
	if !ok {
		return a
	}
	out := &plan.Aggregate{Input: in, GroupBy: a.GroupBy, Sets: a.Sets, Aggs: slices.Clone(a.Aggs)}
	for i, ae := range out.Aggs {
		if !inputOrderAggs[ae.Name] || len(ae.Order) > 0 || ae.Distinct {
			continue
		}
		ae.Args = slices.Clone(ae.Args)
		for _, k := range keys {
			ae.Args = append(ae.Args, &plan.ColRef{ID: k.Col, T: md.Column(k.Col).Type})
			ae.Order = append(ae.Order, plan.AggOrder{Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		out.Aggs[i] = ae
	}
	return out
}

// passSortKeys finds the Sort ordering rel's rows under Project, Filter
// and Limit nodes, and rebuilds those nodes so that the Sort's key
// columns reach rel's output (ok=false: no such Sort).
func passSortKeys(rel plan.Rel, md *plan.Metadata) (plan.Rel, []plan.SortKey, bool) {
	switch r := rel.(type) {
	case *plan.Sort:
		return r, r.Keys, len(r.Keys) > 0
	case *plan.Scan:
		keys := scanKeyOrder(r) // scan_ordered.go
		return r, keys, len(keys) > 0
	case *plan.Filter:
		in, keys, ok := passSortKeys(r.Input, md)
		if !ok {
			return rel, nil, false
		}
		return &plan.Filter{Input: in, Pred: r.Pred, Gate: r.Gate}, keys, true
	case *plan.Limit:
		in, keys, ok := passSortKeys(r.Input, md)
		if !ok {
			return rel, nil, false
		}
		l := *r
		l.Input = in
		return &l, keys, true
	case *plan.Project:
		in, keys, ok := passSortKeys(r.Input, md)
		if !ok {
			return rel, nil, false
		}
		p := &plan.Project{Input: in, Cols: slices.Clone(r.Cols), Exprs: slices.Clone(r.Exprs)}
		for _, k := range keys {
			if !slices.Contains(p.Cols, k.Col) {
				p.Cols = append(p.Cols, k.Col)
				p.Exprs = append(p.Exprs, &plan.ColRef{ID: k.Col, T: md.Column(k.Col).Type})
			}
		}
		return p, keys, true
	}
	return rel, nil, false
}
