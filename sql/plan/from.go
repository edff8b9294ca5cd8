package plan

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// bindFrom binds a FROM list into sc (its items) and returns the plan:
// comma-separated items are cross joins (the rules turn WHERE's
// conditions into join conditions); no FROM is one row of no columns.
func (b *binder) bindFrom(list []*pg.Node, sc *scope) (Rel, error) {
	if len(list) == 0 {
		return &Values{Rows: [][]Scalar{{}}}, nil
	}
	var rel Rel
	saved := b.lat
	defer func() { b.lat = saved }()
	for _, n := range list {
		// Earlier items are visible to a LATERAL item (lateral.go).
		b.lat = latState{visible: slices.Clip(sc.items)}
		r, it, err := b.fromItem(n, sc)
		if err != nil {
			return nil, err
		}
		if err := checkAliases(sc.items, it); err != nil {
			return nil, err
		}
		sc.items = append(sc.items, it)
		rel = b.lateralOrCross(rel, r, b.lat.refs)
	}
	return rel, nil
}

// checkAliases refuses a FROM list naming the same alias twice.
func checkAliases(items []*item, it *item) error {
	var names []string
	var collect func(*item)
	collect = func(x *item) {
		if x.alias != "" {
			names = append(names, x.alias)
		}
		for _, s := range x.sub {
			collect(s)
		}
	}
	collect(it)
	for _, n := range names {
		for _, o := range items {
			if len(o.find(n, nil)) > 0 {
				return errorf(CodeDuplicateAlias, "table name %q specified more than once", n)
			}
		}
	}
	return nil
}

// fromItem binds one FROM item. Its expressions (ON) see only the item's
// own tables and the enclosing query levels (no LATERAL).
func (b *binder) fromItem(n *pg.Node, sc *scope) (Rel, *item, error) {
	switch {
	case n.GetRangeVar() != nil:
		return b.rangeVar(n.GetRangeVar())
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if rs.Lateral {
			return b.lateralSubquery(rs, sc) // lateral.go
		}
		// The subquery sees the enclosing levels, not its siblings; what
		// it reads of them is this level's outer reference too.
		sub := &scope{parent: sc.parent}
		rel, cols, names, err := b.bindSelect(rs.Subquery.GetSelectStmt(), sub)
		if err != nil {
			return nil, nil, err
		}
		sc.outer.AddSet(sub.outer)
		alias := ""
		var colAlias []*pg.Node
		if rs.Alias != nil {
			alias, colAlias = rs.Alias.Aliasname, rs.Alias.Colnames
		}
		if names, err = aliasNames(names, colAlias, "subquery "+alias, -1); err != nil {
			return nil, nil, err
		}
		return rel, newItem(alias, b.scopeCols(cols, names)), nil
	case n.GetJoinExpr() != nil:
		return b.join(n.GetJoinExpr(), sc)
	case n.GetRangeFunction() != nil:
		return b.rangeFunction(n.GetRangeFunction(), sc)
	}
	return nil, nil, unsupported("this FROM item", -1)
}

// rangeFunction binds a function in FROM (srf.go: unnest and
// generate_series, WITH ORDINALITY, reading earlier items LATERALly);
// ROWS FROM, column definition lists and other functions are refused.
func (b *binder) rangeFunction(rf *pg.RangeFunction, sc *scope) (Rel, *item, error) {
	for _, fn := range rf.Functions {
		if items := fn.GetList().GetItems(); len(items) > 0 && items[0].GetFuncCall() != nil {
			if err := b.userFuncRefusal(items[0].GetFuncCall()); err != nil {
				return nil, nil, err // userfunc.go
			}
		}
	}
	if rel, it, ok, err := b.srfInFrom(rf, sc); ok {
		return rel, it, err
	}
	if rel, it, ok, err := b.jsonToRecord(rf, sc); ok {
		return rel, it, err // jsonrecord.go
	}
	if rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		return nil, nil, unsupported("this function in FROM (ROWS FROM, column definitions)", -1)
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil {
		return nil, nil, unsupported("a function in FROM", -1)
	}
	fc := items[0].GetFuncCall()
	return nil, nil, unsupported("the function "+strings.ToLower(opName(fc.Funcname))+" in FROM", fc.Location)
}

// nodeNotNil says whether a parse node holds something.
func nodeNotNil(n *pg.Node) bool { return n.GetNode() != nil }

// scopeCols names cols for a scope.
func (b *binder) scopeCols(cols []ColumnID, names []string) []scopeCol {
	out := make([]scopeCol, len(cols))
	for i, id := range cols {
		out[i] = scopeCol{name: names[i], id: id, t: b.md.Column(id).Type}
	}
	return out
}

// rangeVar binds a table or CTE name.
func (b *binder) rangeVar(rv *pg.RangeVar) (Rel, *item, error) {
	alias := rv.Relname
	var colAlias []*pg.Node
	if rv.Alias != nil {
		alias, colAlias = rv.Alias.Aliasname, rv.Alias.Colnames
	}
	if rv.Schemaname == "" {
		if cte := b.lookupCTE(rv.Relname); cte != nil {
			cte.Refs++
			names, err := aliasNames(cte.Names, colAlias, "table "+alias, rv.Location)
			if err != nil {
				return nil, nil, err
			}
			ref := &CTERef{CTE: cte}
			for i, id := range cte.Cols {
				ref.Cols = append(ref.Cols, b.md.Add(ColumnMeta{Name: names[i], Table: alias, Type: b.md.Column(id).Type}))
			}
			it := newItem(alias, b.scopeCols(ref.Cols, names))
			it.star = it.star[:len(it.star)-cte.Hidden]
			return ref, it, nil
		}
	}
	if v, err := b.catalogView(rv); v != nil || err != nil { // view.go
		if err != nil {
			return nil, nil, err
		}
		rel, it, err := b.view(v, alias, colAlias, rv.Location)
		if it != nil {
			// A view's whole-row value is of its composite type too
			// (its OID is not kept): refused as a table's (record.go).
			it.table = true
			it.aliasedView = len(colAlias) > 0
		}
		return rel, it, err
	}
	t := b.catalogTable(rv) // asof.go
	if t == nil {
		name := rv.Relname
		if rv.Schemaname != "" {
			name = rv.Schemaname + "." + name
		}
		return nil, nil, errorf(CodeUndefinedTable, "relation %q does not exist", name).at(rv.Location)
	}
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	names, err := aliasNames(names, colAlias, "table "+alias, rv.Location)
	if err != nil {
		return nil, nil, err
	}
	s := &Scan{Table: t, Alias: alias}
	b.addTableEnums(t) // enum.go
	for i, c := range t.Columns {
		s.Cols = append(s.Cols, b.md.Add(ColumnMeta{Name: names[i], Table: alias, Type: c.Type}))
		s.Ords = append(s.Ords, i)
	}
	cols := b.scopeCols(s.Cols, names)
	var sys []scopeCol
	for i := len(t.Columns) - 1; i >= 0 && t.Columns[i].System; i-- {
		sys = append(sys, cols[i])
		cols = cols[:i]
	}
	it := newItem(alias, cols)
	it.system = sys
	it.table = true // record.go
	if len(colAlias) > 0 {
		for _, c := range t.Columns[:len(cols)] {
			it.rowNames = append(it.rowNames, c.Name)
		}
	}
	return s, it, nil
}

var joinKinds = map[pg.JoinType]JoinKind{
	pg.JoinType_JOIN_INNER: InnerJoin,
	pg.JoinType_JOIN_LEFT:  LeftJoin,
	pg.JoinType_JOIN_RIGHT: RightJoin,
	pg.JoinType_JOIN_FULL:  FullJoin,
}

// join binds a JoinExpr: ON, USING or NATURAL (the common column names),
// CROSS JOIN (no condition).
func (b *binder) join(j *pg.JoinExpr, sc *scope) (Rel, *item, error) {
	kind, ok := joinKinds[j.Jointype]
	if !ok {
		return nil, nil, unsupported("this join type", -1)
	}
	before := b.lat.refs
	b.lat.refs = ColSet{}
	l, lit, err := b.fromItem(j.Larg, sc)
	lrefs := b.lat.refs
	b.lat.refs = before
	b.lat.refs.AddSet(lrefs)
	if err != nil {
		return nil, nil, err
	}
	// The right side may read the left one LATERALly (lateral.go).
	outerLat := b.lat
	b.lat = latState{visible: append(slices.Clip(outerLat.visible), lit)}
	r, rit, err := b.fromItem(j.Rarg, sc)
	rrefs := b.lat.refs
	b.lat = outerLat
	b.lat.refs.AddSet(rrefs)
	if err != nil {
		return nil, nil, err
	}
	if err := checkAliases([]*item{lit}, rit); err != nil {
		return nil, nil, err
	}
	join := &Join{Kind: kind, Left: l, Right: r}
	markNullable(kind, lit, rit) // record.go
	it := &item{sub: []*item{lit, rit}}
	var using []string
	if j.IsNatural {
		for _, lc := range lit.star {
			if slices.ContainsFunc(rit.star, func(c scopeCol) bool { return c.name == lc.name }) {
				using = append(using, lc.name)
			}
		}
	}
	for _, u := range j.UsingClause {
		using = append(using, u.GetString_().Sval)
	}
	var rel Rel = join
	if len(using) > 0 || j.IsNatural {
		if rel, err = b.joinUsing(join, lit, rit, using, it); err != nil {
			return nil, nil, err
		}
		if a := j.JoinUsingAlias; a != nil {
			// USING (…) AS x qualifies the merged columns alone (x.*
			// is them); the sides keep their own names.
			if len(a.Colnames) > 0 {
				return nil, nil, unsupported("column names in a JOIN USING alias", -1)
			}
			ua := newItem(a.Aliasname, append([]scopeCol(nil), it.star[:len(using)]...))
			if err := checkAliases([]*item{lit, rit}, ua); err != nil {
				return nil, nil, err
			}
			it.sub = append(it.sub, ua)
		}
	} else {
		it.unq = append(append([]scopeCol(nil), lit.unq...), rit.unq...)
		it.star = append(append([]scopeCol(nil), lit.star...), rit.star...)
		if j.Quals != nil {
			on := &scope{parent: sc.parent, items: []*item{lit, rit}}
			e, err := b.expr(j.Quals, on, &exprCtx{clause: "JOIN conditions"})
			if err != nil {
				return nil, nil, err
			}
			sc.outer.AddSet(on.outer)
			if join.On, err = boolean(e, "JOIN/ON"); err != nil {
				return nil, nil, err
			}
		} else if kind == InnerJoin {
			join.Kind = CrossJoin
		}
	}
	joinMarkers(join, lit, rit) // record.go
	if rel == Rel(join) {
		if rel, err = lateralJoin(join, rrefs, -1); err != nil {
			return nil, nil, err
		}
		if rel == Rel(join) {
			b.lat.split = &latSplit{join: join, leftRefs: lrefs} // lateralOrCross
		}
	} else if len(readOf(rrefs, l)) > 0 {
		return nil, nil, unsupported("a LATERAL reference in a FULL JOIN … USING", -1)
	}
	if j.Alias != nil {
		names := make([]string, len(it.star))
		cols := make([]ColumnID, len(it.star))
		for i, c := range it.star {
			names[i], cols[i] = c.name, c.id
		}
		if names, err = aliasNames(names, j.Alias.Colnames, "join "+j.Alias.Aliasname, -1); err != nil {
			return nil, nil, err
		}
		ja := newItem(j.Alias.Aliasname, b.scopeCols(cols, names))
		return rel, ja, nil
	}
	return rel, it, nil
}

// joinUsing completes a USING/NATURAL join: the condition, and the merged
// columns (the left one for inner and left joins, the right one for right
// joins, COALESCE of both for full joins) first in `*`.
func (b *binder) joinUsing(join *Join, lit, rit *item, using []string, it *item) (Rel, error) {
	var conds []Scalar
	var merged []scopeCol
	var coalesce []Scalar
	find := func(cols []scopeCol, name, side string) (scopeCol, error) {
		var hit []scopeCol
		for _, c := range cols {
			if c.name == name {
				hit = append(hit, c)
			}
		}
		switch len(hit) {
		case 0:
			return scopeCol{}, errorf(CodeUndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
		case 1:
			return hit[0], nil
		}
		return scopeCol{}, errorf(CodeAmbiguousColumn, "common column name %q appears more than once in %s table", name, side)
	}
	for _, name := range using {
		lc, err := find(lit.star, name, "left")
		if err != nil {
			return nil, err
		}
		rc, err := find(rit.star, name, "right")
		if err != nil {
			return nil, err
		}
		eq, err := b.binary("=", &ColRef{ID: lc.id, T: lc.t}, &ColRef{ID: rc.id, T: rc.t}, -1)
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
		switch join.Kind {
		case RightJoin:
			merged = append(merged, rc)
		case FullJoin:
			t, err := commonType([]Type{lc.t, rc.t})
			if err != nil {
				return nil, err
			}
			id := b.md.Add(ColumnMeta{Name: name, Type: t})
			merged = append(merged, scopeCol{name: name, id: id, t: t})
			coalesce = append(coalesce, &Func{Name: "coalesce", Args: []Scalar{coerce(&ColRef{ID: lc.id, T: lc.t}, t), coerce(&ColRef{ID: rc.id, T: rc.t}, t)}, T: t})
		default:
			merged = append(merged, lc)
		}
	}
	join.On = And(conds)
	if len(using) == 0 {
		join.Kind = CrossJoin
	}
	rest := func(cols []scopeCol) []scopeCol {
		var out []scopeCol
		for _, c := range cols {
			if !slices.Contains(using, c.name) {
				out = append(out, c)
			}
		}
		return out
	}
	it.unq = append(append(append([]scopeCol(nil), merged...), rest(lit.unq)...), rest(rit.unq)...)
	it.star = append(append(append([]scopeCol(nil), merged...), rest(lit.star)...), rest(rit.star)...)
	if len(coalesce) == 0 {
		return join, nil
	}
	p := &Project{Input: join}
	for _, c := range join.Columns() {
		p.Cols = append(p.Cols, c)
		p.Exprs = append(p.Exprs, &ColRef{ID: c, T: b.md.Column(c).Type})
	}
	for i, m := range merged {
		p.Cols = append(p.Cols, m.id)
		p.Exprs = append(p.Exprs, coalesce[i])
	}
	return p, nil
}
