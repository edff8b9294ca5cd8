package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// target is one bound select-list entry.
type target struct {
	name string
	e    Scalar
}

// bindSimple binds SELECT … FROM … WHERE … GROUP BY … HAVING … ORDER BY
// … LIMIT …, in PostgreSQL's order of evaluation.
func (b *binder) bindSimple(sel *pg.SelectStmt, parent *scope) (Rel, []ColumnID, []string, error) {
	sc := &scope{parent: parent}
	rel, err := b.bindFrom(sel.FromClause, sc)
	if err != nil {
		return nil, nil, nil, err
	}
	if sel.WhereClause != nil {
		e, err := b.expr(sel.WhereClause, sc, &exprCtx{clause: "WHERE"})
		if err != nil {
			return nil, nil, nil, earlier(b.probeTargets(sel, sc), err) // bindorder.go
		}
		if e, err = boolean(e, "WHERE"); err != nil {
			return nil, nil, nil, earlier(b.probeTargets(sel, sc), err)
		}
		rel = &Filter{Input: rel, Pred: e}
	}
	ws, err := newWinState(sel.WindowClause)
	if err != nil {
		return nil, nil, nil, err
	}
	ag := &aggState{}
	srfs := &srfState{}
	ctx := &exprCtx{clause: "SELECT", aggs: ag, wins: ws, srfs: srfs}
	var targets []target
	for _, n := range sel.TargetList {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			cols, err := b.star(cr, sc)
			if err != nil {
				return nil, nil, nil, err
			}
			for _, c := range cols {
				targets = append(targets, target{name: c.name, e: &ColRef{ID: c.id, T: c.t}})
			}
			continue
		}
		e, err := b.expr(rt.Val, sc, ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		name := rt.Name
		if name == "" {
			name = b.targetName(rt.Val) // constkey.go
		}
		targets = append(targets, target{name: name, e: e})
	}
	// GROUP BY: input columns or expressions, an output column's position
	// or name.
	groups, err := b.groupingSets(sel, sc, targets, ag)
	if err != nil {
		return nil, nil, nil, earlier(b.probeHavingOrder(sel, sc, targets), err) // bindorder.go
	}
	bound := groups != nil || ag.sets != nil // by groupingSets
	for _, g := range sel.GroupClause {
		if bound {
			break
		}
		if c := g.GetAConst(); c != nil && c.GetIval() == nil && !b.boolKeyIsExpr(c) { // constkey.go
			// findTargetlistEntrySQL92, as ORDER BY's (orderKeys)
			return nil, nil, nil, earlier(b.probeHavingOrder(sel, sc, targets), errorf(CodeSyntax, "non-integer constant in GROUP BY").at(c.Location))
		}
		e, err := b.groupExpr(g, sc, sel, targets)
		if err != nil {
			return nil, nil, nil, earlier(b.probeHavingOrder(sel, sc, targets), err)
		}
		groups = append(groups, e)
	}
	var having Scalar
	if sel.HavingClause != nil {
		if having, err = b.expr(sel.HavingClause, sc, &exprCtx{clause: "HAVING", aggs: ag}); err != nil {
			return nil, nil, nil, err
		}
		if having, err = boolean(having, "HAVING"); err != nil {
			return nil, nil, nil, err
		}
	}
	keys, err := b.orderKeys(sel.SortClause, sc, targets, &exprCtx{clause: "ORDER BY", aggs: ag, wins: ws})
	if err != nil {
		return nil, nil, nil, err
	}
	// DISTINCT ON items resolve as ORDER BY items do (positions, output
	// names, input expressions); they ride behind the ORDER BY keys.
	nOrder := len(keys)
	if d := sel.DistinctClause; len(d) > 0 && d[0] != nil && d[0].Node != nil {
		var on []*pg.Node
		for _, n := range d {
			on = append(on, &pg.Node{Node: &pg.Node_SortBy{SortBy: &pg.SortBy{Node: n, Location: -1}}})
		}
		onKeys, err := b.orderKeys(on, sc, targets, &exprCtx{clause: "DISTINCT ON", aggs: ag})
		if err != nil {
			return nil, nil, nil, err
		}
		keys = append(keys, onKeys...)
	}
	if err := b.bindWindows(sel, sc, ws); err != nil {
		return nil, nil, nil, earlier(b.probeLimit(sel, parent), err) // bindorder.go
	}
	for _, c := range ws.calls {
		ag.extra.Add(c.fn.Col)
	}
	if len(srfs.calls) > 0 && len(groups) > 0 && ag.sets == nil {
		var below bool
		if rel, below, err = b.srfsBelowGrouping(rel, srfs, groups); err != nil { // projectset.go
			return nil, nil, nil, err
		}
		if below {
			srfs.calls = nil
		}
	}
	if len(groups) == 0 && len(ag.list) == 0 && having != nil && ag.sets == nil && !plainScan(sel) {
		// PostgreSQL's degenerate grouping (a HAVING alone) reads no
		// row: a Result without input, WHERE and join conditions never
		// evaluated (`WHERE 1/a = 1 HAVING 1 < 2` answers one row over
		// a = 0), while its planner still folds their constants. This
		// plan would evaluate them per row: refused unless the input is
		// one table read whole (sqlfront's flat plan answers the rest:
		// constfold.go degenerateGrouping).
		return nil, nil, nil, unsupported("a HAVING without GROUP BY or aggregates over a WHERE clause, a join or a computed FROM item", -1)
	}
	if len(groups) > 0 || len(ag.list) > 0 || having != nil || ag.sets != nil {
		if rel, err = b.aggregate(rel, sc, groups, ag, targets, keys, &having); err != nil {
			return nil, nil, nil, earlier(b.probeLate(sel, sc, parent), err) // bindorder.go
		}
		if having != nil {
			rel = &Filter{Input: rel, Pred: having}
		}
	}
	if len(ws.calls) > 0 {
		var share func(Scalar) Scalar
		if rel, share, err = b.windows(rel, ws, ag.rewrite); err != nil {
			return nil, nil, nil, err
		}
		for i := range targets {
			targets[i].e = share(targets[i].e)
		}
		for i := range keys {
			if keys[i].e != nil {
				keys[i].e = share(keys[i].e)
			}
		}
	}
	if len(srfs.calls) > 0 {
		if rel, err = b.projectSet(rel, srfs, groups, ag.rewrite); err != nil { // projectset.go
			return nil, nil, nil, err
		}
	}
	return b.finish(rel, sel, parent, targets, keys, nOrder)
}

// star expands `*` or `t.*`.
func (b *binder) star(cr *pg.ColumnRef, sc *scope) ([]scopeCol, error) {
	if len(cr.Fields) == 1 {
		cols := sc.star()
		if len(sc.items) == 0 {
			return nil, errorf(CodeSyntax, "SELECT * with no tables specified is not valid").at(cr.Location)
		}
		return cols, nil
	}
	return sc.starOf(cr.Fields[len(cr.Fields)-2].GetString_().Sval, cr.Location)
}

// groupExpr binds one GROUP BY item.
func (b *binder) groupExpr(g *pg.Node, sc *scope, sel *pg.SelectStmt, targets []target) (Scalar, error) {
	if c := g.GetAConst(); c != nil && c.GetIval() != nil {
		i := int(c.GetIval().Ival)
		if i < 1 || i > len(targets) {
			return nil, errorf("42P10", "GROUP BY position %d is not in select list", i).at(c.Location)
		}
		return targets[i-1].e, nil
	}
	switch {
	case g.GetGroupingSet() != nil:
		return nil, unsupported("GROUPING SETS, ROLLUP and CUBE", -1)
	}
	// A bare name that is no input column but an output name is that
	// output column, before it could be a whole-row reference (record.go),
	// as PostgreSQL's findTargetlistEntrySQL92.
	if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		if _, _, lerr := sc.lookup("", name, cr.Location); lerr != nil && lerr.(*Error).Code == CodeUndefinedColumn {
			for _, t := range targets {
				if t.name == name {
					return t.e, nil
				}
			}
		}
	}
	e, err := b.expr(g, sc, &exprCtx{clause: "GROUP BY"})
	if err == nil {
		return e, nil
	}
	// A name no input column has: an output column's alias.
	if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
		if pe, ok := err.(*Error); ok && pe.Code == CodeUndefinedColumn {
			for _, t := range targets {
				if t.name == cr.Fields[0].GetString_().GetSval() {
					return t.e, nil
				}
			}
		}
	}
	return nil, err
}

// orderKey is one bound ORDER BY key: a target's position, or an
// expression over the input.
type orderKey struct {
	target     int // index into targets; -1: e
	e          Scalar
	desc       bool
	nullsFirst bool
}

// orderKeys binds ORDER BY: a position, an output column name, or an
// expression over the input (PostgreSQL's precedence).
func (b *binder) orderKeys(list []*pg.Node, sc *scope, targets []target, ctx *exprCtx) ([]orderKey, error) {
	var keys []orderKey
	for _, n := range list {
		sb := n.GetSortBy()
		k, err := sortDirection(sb)
		if err != nil {
			return nil, err
		}
		if c := sb.Node.GetAConst(); c != nil && c.GetIval() != nil {
			i := int(c.GetIval().Ival)
			if i < 1 || i > len(targets) {
				return nil, errorf("42P10", "%s position %d is not in select list", ctx.clause, i).at(c.Location)
			}
			k.target = i - 1
			if err := usingOrdered(sb, targets[k.target].e.Type()); err != nil {
				return nil, err
			}
			keys = append(keys, k)
			continue
		}
		if c := sb.Node.GetAConst(); c != nil && !b.boolKeyIsExpr(c) { // constkey.go
			// findTargetlistEntrySQL92: a constant there is a position
			// or an error (before: ordered by, or DISTINCT ON, the value)
			return nil, errorf(CodeSyntax, "non-integer constant in %s", ctx.clause).at(c.Location)
		}
		if cr := sb.Node.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name, hits := cr.Fields[0].GetString_().Sval, 0
			for i, t := range targets {
				if t.name == name {
					k.target, hits = i, hits+1
				}
			}
			if hits > 1 {
				return nil, errorf(CodeAmbiguousColumn, "ORDER BY %q is ambiguous", name).at(cr.Location)
			}
			if hits == 1 {
				if err := usingOrdered(sb, targets[k.target].e.Type()); err != nil {
					return nil, err
				}
				keys = append(keys, k)
				continue
			}
		}
		e, err := b.expr(sb.Node, sc, ctx)
		if err != nil {
			return nil, err
		}
		if err := usingOrdered(sb, e.Type()); err != nil {
			return nil, err
		}
		k.e = e
		keys = append(keys, k)
	}
	return keys, nil
}

// sortDirection is an ORDER BY item's direction and NULLs placement
// (NULLS FIRST is the default of DESC), with no key yet. `USING <` is
// ASC and `USING >` DESC — the btree ordering operators of every type
// the engine sorts; PostgreSQL's default NULLs placement follows the
// direction there too. Any other operator is refused.
func sortDirection(sb *pg.SortBy) (orderKey, error) {
	k := orderKey{target: -1, desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
	if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
		k.desc = usingOp(sb) == ">" // other operators: usingOrdered

	}
	k.nullsFirst = k.desc
	switch sb.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		k.nullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		k.nullsFirst = false
	}
	return k, nil
}

// usingOp is the operator name of ORDER BY … USING op ("" when it is
// qualified by a schema other than pg_catalog).
func usingOp(sb *pg.SortBy) string {
	var parts []string
	for _, n := range sb.UseOp {
		parts = append(parts, n.GetString_().GetSval())
	}
	switch {
	case len(parts) == 1:
		return parts[0]
	case len(parts) == 2 && parts[0] == "pg_catalog":
		return parts[1]
	}
	return ""
}

// usingOrdered refuses ORDER BY … USING over a key whose type has no
// btree ordering the engine knows as that operator's (json, arrays,
// records, types outside the catalog): PostgreSQL looks the operator up
// in the type's operator classes, which the engine does not model.
func usingOrdered(sb *pg.SortBy, t Type) error {
	if sb.SortbyDir != pg.SortByDir_SORTBY_USING {
		return nil
	}
	switch t.OID {
	case Bool, Char, Name, Int8, Int2, Int4, Text, Oid, Float4, Float8, Bpchar, Varchar, Date, Time, Timestamp,
		Timestamptz, Interval, Numeric, UUID, Unknown:
	default:
		return unsupported("ORDER BY … USING over type "+t.String(), sb.Location)
	}
	switch op := usingOp(sb); op {
	case "<", ">":
		return nil
	case "<=", ">=", "=", "<>":
		return errorf(CodeWrongObjectType, "operator %s is not a valid ordering operator", op).at(sb.Location)
	}
	return unsupported("ORDER BY … USING an operator other than < or >", sb.Location)
}

// finish adds the select list, DISTINCT, ORDER BY and LIMIT over rel.
// Order keys that are not output columns ride in hidden columns that a
// last Project drops.
//
// keys[:nOrder] are ORDER BY's, keys[nOrder:] DISTINCT ON's: the leading
// ORDER BY keys must be the DISTINCT ON ones (42P10), and the first row
// of each DISTINCT ON group in that order is kept.
func (b *binder) finish(rel Rel, sel *pg.SelectStmt, parent *scope, targets []target, keys []orderKey, nOrder int) (Rel, []ColumnID, []string, error) {
	p := &Project{Input: rel}
	var names []string
	for i, t := range targets {
		// An untyped literal in a select list is text (PostgreSQL 10+),
		// except in a set operation's branch (bindSetOp resolves it).
		if c, ok := t.e.(*Const); ok && c.T.OID == Unknown && sel == b.untypedLeaf {
		} else if t.e.Type().OID == Unknown {
			t.e = coerce(t.e, T(Text))
			targets[i].e = t.e
		}
		id := b.colFor(t.e, t.name)
		p.Cols, p.Exprs = append(p.Cols, id), append(p.Exprs, t.e)
		names = append(names, t.name)
	}
	out := append([]ColumnID(nil), p.Cols...)
	distinct := len(sel.DistinctClause) > 0
	distinctOn := len(keys) > nOrder
	var sortKeys []SortKey
	for _, k := range keys {
		col := ColumnID(0)
		if k.target >= 0 {
			col = out[k.target]
		} else {
			for i, e := range p.Exprs[:len(targets)] {
				if FormatScalar(e, b.md) == FormatScalar(k.e, b.md) {
					col = out[i]
					break
				}
			}
			if col == 0 {
				if distinct && !distinctOn {
					return nil, nil, nil, errorf("42P10", "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
				}
				col = b.colFor(k.e, "?order?")
				p.Cols, p.Exprs = append(p.Cols, col), append(p.Exprs, k.e)
			}
		}
		sortKeys = append(sortKeys, SortKey{Col: col, Desc: k.desc, NullsFirst: k.nullsFirst})
	}
	rel = p
	onKeys := sortKeys[nOrder:]
	sortKeys = sortKeys[:nOrder]
	switch {
	case distinctOn:
		var on ColSet
		for _, k := range onKeys {
			on.Add(k.Col)
		}
		for i, k := range sortKeys {
			if i < len(onKeys) && !on.Has(k.Col) {
				return nil, nil, nil, errorf("42P10", "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
			}
		}
		if len(sortKeys) > 0 {
			rel = &Sort{Input: rel, Keys: sortKeys}
		}
		d := &Distinct{Input: rel}
		for _, k := range onKeys {
			d.On = append(d.On, k.Col)
		}
		rel = d
	case distinct:
		rel = &Distinct{Input: rel}
		if len(sortKeys) > 0 {
			rel = &Sort{Input: rel, Keys: sortKeys}
		}
	case len(sortKeys) > 0:
		rel = &Sort{Input: rel, Keys: sortKeys}
	}
	rel, err := b.bindLimit(rel, sel, parent)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(p.Cols) > len(out) {
		rel = &Project{Input: rel, Cols: out, Exprs: b.refs(out)}
	}
	return rel, out, names, nil
}

// colFor is the output column of expression e: the input column itself
// for a plain column reference, a new column otherwise.
func (b *binder) colFor(e Scalar, name string) ColumnID {
	if c, ok := e.(*ColRef); ok {
		return c.ID
	}
	return b.md.Add(ColumnMeta{Name: name, Type: e.Type()})
}

// orderOutput sorts a set operation's or VALUES' output by position or
// output name.
func (b *binder) orderOutput(rel Rel, cols []ColumnID, names []string, list []*pg.Node) (Rel, error) {
	if len(list) == 0 {
		return rel, nil
	}
	targets := make([]target, len(cols))
	for i, id := range cols {
		targets[i] = target{name: names[i], e: &ColRef{ID: id, T: b.md.Column(id).Type}}
	}
	sc := &scope{items: []*item{newItem("", b.scopeCols(cols, names))}}
	keys, err := b.orderKeys(list, sc, targets, &exprCtx{clause: "ORDER BY"})
	if err != nil {
		return nil, err
	}
	s := &Sort{Input: rel}
	for _, k := range keys {
		col := ColumnID(0)
		if k.target >= 0 {
			col = cols[k.target]
		} else if c, ok := k.e.(*ColRef); ok {
			col = c.ID
		} else {
			return nil, unsupported("ORDER BY an expression over a set operation's result", -1)
		}
		s.Keys = append(s.Keys, SortKey{Col: col, Desc: k.desc, NullsFirst: k.nullsFirst})
	}
	return s, nil
}

// plainScan says whether sel reads one table (or no FROM) without WHERE:
// reading its rows evaluates no expression.
func plainScan(sel *pg.SelectStmt) bool {
	return sel.WhereClause == nil && sel.WithClause == nil && (len(sel.FromClause) == 0 || len(sel.FromClause) == 1 && sel.FromClause[0].GetRangeVar() != nil)
}
