package plan

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// maxGroupingSets bounds the expansion of GROUP BY into grouping sets
// (PostgreSQL: "too many grouping sets present (maximum 4096)").
const maxGroupingSets = 4096

// groupingSets binds a GROUP BY that uses GROUPING SETS, ROLLUP, CUBE or
// (): it expands them as PostgreSQL's expand_grouping_sets does (the
// items' sets multiplied out; GROUP BY DISTINCT drops repeated sets)
// into ag.sets and returns the distinct grouping expressions. A plain
// GROUP BY returns nil and leaves ag.sets nil.
func (b *binder) groupingSets(sel *pg.SelectStmt, sc *scope, targets []target, ag *aggState) ([]Scalar, error) {
	has, rows := false, false
	for _, g := range sel.GroupClause {
		has = has || g.GetGroupingSet() != nil
		rows = rows || implicitRow(g) != nil
	}
	if !has && !rows {
		return nil, nil
	}
	leaf := func(n *pg.Node) ([]Scalar, error) {
		e, err := b.groupExpr(n, sc, sel, targets)
		if err != nil {
			return nil, err
		}
		return []Scalar{e}, nil
	}
	// row is a ROLLUP/CUBE element: (a, b) or one expression.
	row := func(n *pg.Node) ([]Scalar, error) {
		if args := implicitRow(n); args != nil {
			n = &pg.Node{Node: &pg.Node_GroupingSet{GroupingSet: &pg.GroupingSet{Kind: pg.GroupingSetKind_GROUPING_SET_SIMPLE, Content: args, Location: -1}}}
		}
		if gs := n.GetGroupingSet(); gs != nil {
			if gs.Kind != pg.GroupingSetKind_GROUPING_SET_SIMPLE {
				return nil, unsupported("a nested ROLLUP or CUBE", gs.Location)
			}
			var out []Scalar
			for _, c := range gs.Content {
				es, err := leaf(c)
				if err != nil {
					return nil, err
				}
				out = append(out, es...)
			}
			return out, nil
		}
		return leaf(n)
	}
	var expand func(n *pg.Node) ([][]Scalar, error)
	expand = func(n *pg.Node) ([][]Scalar, error) {
		if implicitRow(n) != nil {
			es, err := row(n)
			return [][]Scalar{es}, err
		}
		gs := n.GetGroupingSet()
		if gs == nil {
			es, err := leaf(n)
			return [][]Scalar{es}, err
		}
		switch gs.Kind {
		case pg.GroupingSetKind_GROUPING_SET_EMPTY:
			return [][]Scalar{{}}, nil
		case pg.GroupingSetKind_GROUPING_SET_SIMPLE:
			es, err := row(n)
			return [][]Scalar{es}, err
		case pg.GroupingSetKind_GROUPING_SET_ROLLUP, pg.GroupingSetKind_GROUPING_SET_CUBE:
			var rows [][]Scalar
			for _, c := range gs.Content {
				r, err := row(c)
				if err != nil {
					return nil, err
				}
				rows = append(rows, r)
			}
			var out [][]Scalar
			if gs.Kind == pg.GroupingSetKind_GROUPING_SET_ROLLUP {
				for i := len(rows); i >= 0; i-- {
					out = append(out, slices.Concat(rows[:i]...))
				}
				return out, nil
			}
			if len(rows) > 12 {
				return nil, errorf("54001", "CUBE is limited to 12 elements").at(gs.Location)
			}
			for mask := (1 << len(rows)) - 1; mask >= 0; mask-- {
				var set []Scalar
				for i, r := range rows {
					if mask&(1<<(len(rows)-1-i)) != 0 {
						set = append(set, r...)
					}
				}
				out = append(out, set)
			}
			return out, nil
		case pg.GroupingSetKind_GROUPING_SET_SETS:
			var out [][]Scalar
			for _, c := range gs.Content {
				sets, err := expand(c)
				if err != nil {
					return nil, err
				}
				out = append(out, sets...)
			}
			return out, nil
		}
		return nil, unsupported("this grouping set", gs.Location)
	}
	sets := [][]Scalar{{}}
	for _, g := range sel.GroupClause {
		item, err := expand(g)
		if err != nil {
			return nil, err
		}
		var next [][]Scalar
		for _, s := range sets {
			for _, t := range item {
				next = append(next, slices.Concat(s, t))
			}
		}
		if len(next) > maxGroupingSets {
			return nil, errorf("54001", "too many grouping sets present (maximum %d)", maxGroupingSets)
		}
		sets = next
	}
	// The distinct expressions, in order of appearance; each set as a
	// set of them (a repeated expression in one set counts once).
	var groups []Scalar
	seen := map[string]bool{}
	var keys []string
	var kept [][]Scalar
	for _, s := range sets {
		var in []string
		for _, e := range s {
			k := FormatScalar(e, b.md)
			if !seen[k] {
				seen[k] = true
				groups = append(groups, e)
			}
			if !slices.Contains(in, k) {
				in = append(in, k)
			}
		}
		slices.Sort(in)
		key := ""
		for _, k := range in {
			key += k + "\x00"
		}
		if sel.GroupDistinct && slices.Contains(keys, key) {
			continue
		}
		keys = append(keys, key)
		kept = append(kept, s)
	}
	if has {
		// PostgreSQL tells grouping columns apart by select-list entry,
		// not by expression: in `SELECT g AS a, g AS b … GROUP BY a,
		// ROLLUP(b)` b is NULL in the sets without it although g is
		// grouped through a. Two entries with the same grouped
		// expression are refused rather than answered differently.
		byKey := map[string]bool{}
		for _, t := range targets {
			k := FormatScalar(t.e, b.md)
			if !seen[k] {
				continue
			}
			if byKey[k] {
				return nil, unsupported("grouping sets with a grouped expression in two select-list entries", -1)
			}
			byKey[k] = true
		}
	}
	ag.sets = kept
	if !has {
		ag.sets = nil // GROUP BY (a, b): a plain GROUP BY a, b
	}
	return groups, nil
}

// implicitRow is the elements of (a, b) in GROUP BY, which PostgreSQL
// reads as a grouping set of a and b, not a row value (nil otherwise).
func implicitRow(n *pg.Node) []*pg.Node {
	if r := n.GetRowExpr(); r != nil && r.RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
		return r.Args
	}
	return nil
}

// groupingSetsOf sets a.Sets from ag.sets over the group columns
// (byText: a grouping expression's column) and binds GROUPING()'s
// arguments to group columns (42803 for another expression).
func (b *binder) groupingSetsOf(a *Aggregate, ag *aggState, byText map[string]ColumnID) error {
	if ag.sets != nil {
		a.Sets = [][]ColumnID{}
		for _, s := range ag.sets {
			set := []ColumnID{}
			for _, e := range s {
				id := byText[FormatScalar(e, b.md)]
				if !slices.Contains(set, id) {
					set = append(set, id)
				}
			}
			a.Sets = append(a.Sets, set)
		}
	}
	for i := range a.Aggs {
		g := &a.Aggs[i]
		if g.Name != "grouping" {
			continue
		}
		for k, e := range g.Args {
			id, ok := byText[FormatScalar(e, b.md)]
			if !ok {
				return errorf(CodeGrouping, "arguments to GROUPING must be grouping expressions of the associated query level")
			}
			g.Args[k] = &ColRef{ID: id, T: e.Type()}
		}
	}
	return nil
}

// groupingFunc binds GROUPING(e, …): an int4 whose bit i (from the
// right, last argument lowest) is 1 when argument i is not grouped in
// the current grouping set. It is computed by the Aggregate.
//
// GROUPING() of an enclosing query's expressions, in a subquery, is that
// query's (placeAgg, as an aggregate).
func (b *binder) groupingFunc(g *pg.GroupingFunc, sc *scope, ctx *exprCtx) (Scalar, error) {
	if ctx.inAgg {
		return nil, errorf(CodeGrouping, "aggregate function calls cannot contain grouping operations").at(g.Location)
	}
	if len(g.Args) > 31 {
		return nil, errorf("54023", "GROUPING must have fewer than 32 arguments").at(g.Location)
	}
	levels := outerAggLevels(sc) // outeragg.go
	ae := AggExpr{Name: "grouping", T: T(Int4)}
	for _, a := range g.Args {
		e, err := b.expr(a, sc, &exprCtx{clause: ctx.clause})
		if err != nil {
			return nil, err
		}
		ae.Args = append(ae.Args, e)
	}
	return b.placeAgg(ae, "grouping", ctx, levels, g.Location)
}
