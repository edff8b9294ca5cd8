package sqlfront

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// planSelect plans a SELECT.
func (pl *planner) planSelect(s *pg.SelectStmt) error {
	p := pl.p
	p.kind, p.tag = "select", "SELECT"
	switch {
	case s.Op != pg.SetOperation_SETOP_NONE && s.Op != pg.SetOperation_SET_OPERATION_UNDEFINED:
		return unsupported(pl.kwPos("UNION", "INTERSECT", "EXCEPT"), "UNION/INTERSECT/EXCEPT")
	case s.WithClause != nil:
		return unsupported(int(s.WithClause.Location), "WITH")
	case len(s.ValuesLists) > 0:
		return unsupported(pl.kwPos("VALUES"), "VALUES")
	case s.IntoClause != nil:
		return errf(codeReadOnly, -1, "cannot execute SELECT INTO in a read-only transaction")
	case len(s.LockingClause) > 0:
		return errf(codeReadOnly, nodeLoc(s.LockingClause[0]), "cannot execute SELECT FOR UPDATE/SHARE in a read-only transaction")
	case len(s.WindowClause) > 0:
		return unsupported(pl.kwPos("WINDOW"), "WINDOW")
	case s.GroupDistinct:
		return unsupported(pl.kwPos("GROUP"), "GROUP BY DISTINCT")
	}
	if len(s.DistinctClause) > 0 {
		if len(s.DistinctClause) != 1 || s.DistinctClause[0] != nil && nodeMsg(s.DistinctClause[0]) != nil {
			return unsupported(nodeLoc(s.DistinctClause[0]), "DISTINCT ON")
		}
		p.distinct = true
	}
	if err := pl.planFrom(s.FromClause); err != nil {
		return err
	}
	if err := pl.restrictDatabases(s.WhereClause); err != nil { // catalog.go
		return err
	}
	if s.WhereClause != nil {
		w, err := pl.compileBool(s.WhereClause, "WHERE")
		if err != nil {
			return pl.targetsFirst(s, err) // errorder.go
		}
		p.where, p.whereAsWritten = orderWhere(w), w // qualorder.go
	}
	// Grouping: GROUP BY, HAVING or an aggregate in the targets.
	p.grouping = len(s.GroupClause) > 0 || s.HavingClause != nil || hasAgg(s.TargetList) || hasAggSort(s.SortClause)
	if p.grouping {
		pl.groupNodes = nil
		for _, g := range s.GroupClause {
			e, err := pl.groupItem(g, s.TargetList)
			if err != nil {
				return err
			}
			if err := pl.textOrderCheck(nodeLoc(g), pl.typeOf(e), true, e); err != nil {
				return err
			}
			if t := pl.typeOf(e); !comparableType(t, "=") {
				return unsupported(nodeLoc(g), "GROUP BY on type "+typeName(t))
			}
			p.groupBy = append(p.groupBy, e)
		}
		pl.groupSet = p.groupBy
		pl.aggMode = true
	}
	// Targets.
	var names []string
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		if len(rt.Indirection) > 0 {
			return unsupported(int(rt.Location), "subscripts")
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			if err := pl.star(cr, &names); err != nil {
				return err
			}
			continue
		}
		e, err := pl.compile(rt.Val)
		if err != nil {
			return err
		}
		if pl.typeOf(e) == oidUnknown {
			if e, err = pl.coerce(e, oidText, nodeLoc(rt.Val)); err != nil {
				return err
			}
		}
		name := rt.Name
		if name == "" {
			name, _ = figureName(rt.Val, before15(pl.src.Tables()))
		}
		col := outCol{name: name, typmod: -1}
		if c, ok := e.(*colExpr); ok && !p.grouping || ok && pl.inGroup(c.idx) {
			sc := pl.scope[c.idx]
			col.typmod = sc.typmod
			if it := p.from[sc.item]; it.table != nil {
				col.tableOID, col.attnum = it.table.OID, wireAttnum(it.table, sc.attnum) // catalog_columns.go
			}
		}
		p.targets = append(p.targets, e)
		p.cols = append(p.cols, col)
		names = append(names, name)
	}
	if s.HavingClause != nil {
		h, err := pl.compileBool(s.HavingClause, "HAVING")
		if err != nil {
			return err
		}
		p.having = h
	}
	for _, sn := range s.SortClause {
		sb := sn.GetSortBy()
		if sb.SortbyDir == pg.SortByDir_SORTBY_USING {
			return unsupported(int(sb.Location), "ORDER BY … USING")
		}
		e, err := pl.outputRef(sb.Node, s.TargetList, names, "ORDER BY")
		if err != nil {
			return err
		}
		if p.distinct && !inTargets(e, p.targets) {
			// PostgreSQL: 42P10 (`SELECT DISTINCT status FROM orders
			// ORDER BY qty` was answered here). A column is not in the
			// list; an expression may equal a target's in ways this
			// planner does not compare: sql/exec decides.
			if _, ok := e.(*colExpr); ok {
				return errf(codeInvalidColumnRef, nodeLoc(sb.Node), "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
			}
			return unsupported(nodeLoc(sb.Node), "ORDER BY an expression not in the select list of a SELECT DISTINCT")
		}
		if !comparableType(pl.typeOf(e), "<") {
			return unsupported(nodeLoc(sb.Node), "ORDER BY on type "+typeName(pl.typeOf(e)))
		}
		if err := pl.textOrderCheck(nodeLoc(sb.Node), pl.typeOf(e), false, e); err != nil {
			return err
		}
		k := orderKey{e: e, desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
		k.nullsFirst = k.desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			k.nullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			k.nullsFirst = false
		}
		p.order = append(p.order, k)
	}
	pl.aggMode = false
	if s.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		return unsupported(pl.kwPos("TIES"), "FETCH … WITH TIES")
	}
	var err error
	if p.limit, err = pl.limitExpr(s.LimitCount); err != nil {
		return err
	}
	if p.offset, err = pl.limitExpr(s.LimitOffset); err != nil {
		return err
	}
	if !pl.explaining && !p.limitDetermined() {
		return unsupported(pl.kwPos("LIMIT", "OFFSET", "FETCH"), "LIMIT or OFFSET without an ORDER BY on the primary key (PostgreSQL's answer is the rows its plan reads first)")
	}
	if p.distinct {
		for i, c := range p.cols {
			if !comparableType(c.typ, "=") && !comparableType(pl.typeOf(p.targets[i]), "=") {
				return unsupported(pl.kwPos("DISTINCT"), "DISTINCT on type "+typeName(pl.typeOf(p.targets[i])))
			}
			if err := pl.textOrderCheck(pl.kwPos("DISTINCT"), pl.typeOf(p.targets[i]), true, p.targets[i]); err != nil {
				return err
			}
		}
	}
	pl.pushdown()
	return nil
}

func hasAgg(targets []*pg.Node) bool {
	for _, t := range targets {
		if containsAgg(t.GetResTarget().GetVal()) {
			return true
		}
	}
	return false
}

func hasAggSort(sorts []*pg.Node) bool {
	for _, s := range sorts {
		if containsAgg(s.GetSortBy().GetNode()) {
			return true
		}
	}
	return false
}

// containsAgg looks for a call of an aggregate in n (not in subqueries,
// which are refused anyway).
func containsAgg(n *pg.Node) bool {
	if n == nil {
		return false
	}
	if f := n.GetFuncCall(); f != nil {
		names := strs(f.Funcname)
		if isAggName(names[len(names)-1]) && (len(names) == 1 || names[0] == "pg_catalog") && f.Over == nil {
			return true
		}
		for _, a := range f.Args {
			if containsAgg(a) {
				return true
			}
		}
		return false
	}
	switch {
	case n.GetAExpr() != nil:
		return containsAgg(n.GetAExpr().Lexpr) || containsAgg(n.GetAExpr().Rexpr)
	case n.GetBoolExpr() != nil:
		for _, a := range n.GetBoolExpr().Args {
			if containsAgg(a) {
				return true
			}
		}
	case n.GetTypeCast() != nil:
		return containsAgg(n.GetTypeCast().Arg)
	case n.GetCollateClause() != nil:
		return containsAgg(n.GetCollateClause().Arg)
	case n.GetNullTest() != nil:
		return containsAgg(n.GetNullTest().Arg)
	case n.GetCoalesceExpr() != nil:
		for _, a := range n.GetCoalesceExpr().Args {
			if containsAgg(a) {
				return true
			}
		}
	case n.GetList() != nil:
		for _, a := range n.GetList().Items {
			if containsAgg(a) {
				return true
			}
		}
	}
	return false
}

// groupItem compiles a GROUP BY item: an output ordinal, an output
// name, or an expression over the input.
func (pl *planner) groupItem(g *pg.Node, targets []*pg.Node) (expr, error) {
	if c := g.GetAConst(); c != nil && c.GetIval() != nil {
		i := int(c.GetIval().Ival)
		if i < 1 || i > len(targets) {
			return nil, errf(codeInvalidColumnRef, int(c.Location), "GROUP BY position %d is not in select list", i)
		}
		v := targets[i-1].GetResTarget().Val
		if containsAgg(v) {
			return nil, errf(codeGrouping, nodeLoc(v), "aggregate functions are not allowed in GROUP BY")
		}
		pl.groupNodes = append(pl.groupNodes, v)
		return pl.compile(v)
	}
	if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
		name := cr.Fields[0].GetString_().GetSval()
		inScope := false
		for _, sc := range pl.scope {
			inScope = inScope || sc.name == name
		}
		if !inScope {
			for _, t := range targets {
				if rt := t.GetResTarget(); rt.Name == name {
					pl.groupNodes = append(pl.groupNodes, rt.Val)
					return pl.compile(rt.Val)
				}
			}
		}
	}
	if containsAgg(g) {
		return nil, errf(codeGrouping, nodeLoc(g), "aggregate functions are not allowed in GROUP BY")
	}
	pl.groupNodes = append(pl.groupNodes, g)
	return pl.compile(g)
}

const codeInvalidColumnRef = "42P10"

// outputRef compiles an ORDER BY item: an output ordinal, an output name,
// or an expression.
// inTargets says whether e is one of the targets (the same expression,
// as outputRef resolves ordinals and names, or the same column).
func inTargets(e expr, targets []expr) bool {
	c, col := e.(*colExpr)
	for _, t := range targets {
		if t == e {
			return true
		}
		if tc, ok := t.(*colExpr); ok && col && tc.idx == c.idx {
			return true
		}
	}
	return false
}

func (pl *planner) outputRef(n *pg.Node, targets []*pg.Node, names []string, what string) (expr, error) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		i := int(c.GetIval().Ival)
		if i < 1 || i > len(pl.p.targets) {
			return nil, errf(codeInvalidColumnRef, int(c.Location), "%s position %d is not in select list", what, i)
		}
		return pl.p.targets[i-1], nil
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		match := -1
		for i, nm := range names {
			if nm == name {
				if match >= 0 && pl.p.targets[match] != pl.p.targets[i] {
					return nil, errf(codeAmbiguousColumn, int(cr.Location), "%s \"%s\" is ambiguous", what, name)
				}
				match = i
			}
		}
		if match >= 0 {
			return pl.p.targets[match], nil
		}
	}
	return pl.compile(n)
}

func (pl *planner) limitExpr(n *pg.Node) (expr, error) {
	if n == nil {
		return nil, nil
	}
	if c := n.GetAConst(); c != nil && c.Isnull {
		return nil, nil
	}
	e, err := pl.compile(n)
	if err != nil {
		return nil, err
	}
	for _, sc := range []expr{e} {
		if _, ok := sc.(*colExpr); ok {
			return nil, errf(codeGrouping, nodeLoc(n), "argument of LIMIT must not contain variables")
		}
	}
	t := pl.typeOf(e)
	if t == oidUnknown || isIntType(t) {
		return pl.coerce(e, oidInt8, nodeLoc(n))
	}
	if isNumericType(t) {
		return &castExpr{arg: e, from: t, to: oidInt8}, nil
	}
	return nil, errf(codeDatatype, nodeLoc(n), "argument of LIMIT must be type bigint, not type %s", typeName(t))
}

// star expands * or t.*.
func (pl *planner) star(cr *pg.ColumnRef, names *[]string) error {
	qual := ""
	if len(cr.Fields) > 1 {
		qual = cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
	}
	if len(pl.scope) == 0 && len(pl.p.from) == 0 {
		return errf(codeSyntax, int(cr.Location), "SELECT * with no tables specified is not valid")
	}
	if pl.p.grouping {
		return unsupported(int(cr.Location), "* in a grouped query") // sql/exec expands it
	}
	found := false
	for i, sc := range pl.scope {
		if qual != "" && sc.alias != qual {
			continue
		}
		found = true
		if sc.domain {
			return domainFlatRefusal(int(cr.Location)) // domaincols.go
		}
		col := outCol{name: sc.name, typ: sc.typ, typmod: sc.typmod}
		if it := pl.p.from[sc.item]; it.table != nil {
			col.tableOID, col.attnum = it.table.OID, wireAttnum(it.table, sc.attnum) // catalog_columns.go
		}
		pl.p.targets = append(pl.p.targets, &colExpr{idx: i, t: sc.typ})
		pl.p.cols = append(pl.p.cols, col)
		*names = append(*names, sc.name)
	}
	if !found {
		return errf(codeUndefinedTable, int(cr.Location), "missing FROM-clause entry for table \"%s\"", qual)
	}
	return nil
}

// planFrom resolves the FROM clause: nothing, one relation, or a join of
// two.
func (pl *planner) planFrom(from []*pg.Node) error {
	switch len(from) {
	case 0:
		pl.p.noRows = true
		return nil
	case 1:
	default:
		return unsupported(nodeLoc(from[1]), "a FROM list with several items (write JOIN … ON)")
	}
	n := from[0]
	if j := n.GetJoinExpr(); j != nil {
		return pl.planJoin(j)
	}
	return pl.addItem(n)
}

func (pl *planner) planJoin(j *pg.JoinExpr) error {
	switch j.Jointype {
	case pg.JoinType_JOIN_INNER:
	case pg.JoinType_JOIN_LEFT:
		pl.p.joinLeft = true
	default:
		return unsupported(pl.kwPos("RIGHT", "FULL"), "RIGHT and FULL joins")
	}
	if j.IsNatural || len(j.UsingClause) > 0 {
		return unsupported(pl.kwPos("NATURAL", "USING"), "NATURAL and USING joins (write ON a.x = b.y)")
	}
	if j.Quals == nil {
		return unsupported(pl.kwPos("JOIN"), "a join without ON")
	}
	if j.Larg.GetJoinExpr() != nil || j.Rarg.GetJoinExpr() != nil {
		return unsupported(nodeLoc(j.Rarg), "a join of more than two tables")
	}
	if err := pl.addItem(j.Larg); err != nil {
		return err
	}
	if err := pl.addItem(j.Rarg); err != nil {
		return err
	}
	on, err := pl.compileBool(j.Quals, "JOIN/ON")
	if err != nil {
		return err
	}
	pl.p.joinOn = on
	// The hash key: the first conjunct comparing a left column with a
	// right column for equality.
	split := pl.p.from[1].base
	for _, c := range conjuncts(on) {
		ce, ok := c.(*cmpExpr)
		if !ok || ce.op != "=" {
			continue
		}
		l, r := ce.l, ce.r
		if side(l, split) == 1 && side(r, split) == 0 {
			l, r = r, l
		}
		if side(l, split) == 0 && side(r, split) == 1 {
			pl.p.joinKeys = [2]expr{l, r}
			pl.p.joinType = ce.t
			return nil
		}
	}
	return unsupported(nodeLoc(j.Quals), "a join without an equality between the two tables' columns (sidecar runs hash joins)")
}

// side reports whether e reads only left columns (0), only right ones
// (1), both or none (-1); split is the first right column.
func side(e expr, split int) int {
	s := -1
	ok := true
	walk(e, func(x expr) {
		if c, isCol := x.(*colExpr); isCol {
			cs := 0
			if c.idx >= split {
				cs = 1
			}
			if s == -1 {
				s = cs
			} else if s != cs {
				ok = false
			}
		}
	})
	if !ok {
		return -1
	}
	return s
}

// walk calls fn on e and every expression under it.
func walk(e expr, fn func(expr)) {
	fn(e)
	switch x := e.(type) {
	case *castExpr:
		walk(x.arg, fn)
	case *arithExpr:
		walk(x.l, fn)
		walk(x.r, fn)
	case *negExpr:
		walk(x.arg, fn)
	case *cmpExpr:
		walk(x.l, fn)
		walk(x.r, fn)
	case *boolExpr:
		for _, a := range x.args {
			walk(a, fn)
		}
	case *nullTest:
		walk(x.arg, fn)
	case *inExpr:
		walk(x.arg, fn)
		for _, a := range x.list {
			walk(a, fn)
		}
	case *likeExpr:
		walk(x.arg, fn)
		walk(x.pat, fn)
	case *anyExpr:
		walk(x.l, fn)
		for _, a := range x.elems {
			walk(a, fn)
		}
		if x.arr != nil {
			walk(x.arr, fn)
		}
	case *coalesceExpr:
		for _, a := range x.args {
			walk(a, fn)
		}
	case *funcExpr:
		for _, a := range x.args {
			walk(a, fn)
		}
	}
}

func conjuncts(e expr) []expr {
	if b, ok := e.(*boolExpr); ok && b.op == "and" {
		var out []expr
		for _, a := range b.args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []expr{e}
}

// isConstant says whether e reads no column (constants, parameters).
func isConstant(e expr) bool {
	ok := true
	walk(e, func(x expr) {
		switch x.(type) {
		case *colExpr, *aggRef, *funcExpr:
			ok = false
		}
	})
	return ok
}

// addItem adds one FROM item (a table, a catalog relation or a sidecar
// function) to the scope.
func (pl *planner) addItem(n *pg.Node) error {
	it := &fromItem{base: len(pl.scope)}
	var cols []Column
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		if rv.Catalogname != "" {
			return unsupported(int(rv.Location), "a database-qualified table name")
		}
		it.alias = rv.Relname
		if rv.Alias != nil {
			if len(rv.Alias.Colnames) > 0 {
				return unsupported(int(rv.Location), "column aliases in FROM")
			}
			it.alias = rv.Alias.Aliasname
		}
		if ref, ok := pl.asOf[int(rv.Location)]; ok {
			it.asOf = ref
		}
		if v := catalogRelation(rv.Schemaname, rv.Relname); v != nil {
			if it.asOf != "" {
				return unsupported(int(rv.Location), "AS OF on a catalog relation")
			}
			it.virt = v
			cols = v.cols
			break
		}
		t, err := pl.table(rv, it.asOf)
		if err != nil {
			return err
		}
		if err := pl.inheritance(it, rv, t); err != nil {
			return err
		}
		it.table = t
		cols = t.Columns
		pl.p.tables = append(pl.p.tables, t)
	case n.GetRangeFunction() != nil && asOfCall(n.GetRangeFunction()) != nil:
		// sidecar.as_of('table', 'ref'): the table at ref, for tools that
		// cannot write AS OF.
		rf := n.GetRangeFunction()
		f := asOfCall(rf)
		args, err := pl.constArgs(f)
		if err != nil {
			return err
		}
		if len(args) != 2 {
			return errf(codeUndefinedFunc, int(f.Location), "function sidecar.as_of with %d arguments does not exist", len(args)).hint("usage: sidecar.as_of('table', 'ref')")
		}
		rv := &pg.RangeVar{Relname: args[0], Location: f.Location, Inh: true}
		if schema, rel, ok := strings.Cut(args[0], "."); ok {
			rv.Schemaname, rv.Relname = schema, rel
		}
		it.alias, it.asOf = rv.Relname, args[1]
		if rf.Alias != nil {
			it.alias = rf.Alias.Aliasname
		}
		t, err := pl.table(rv, it.asOf)
		if err != nil {
			return err
		}
		if err := pl.inheritance(it, rv, t); err != nil {
			return err
		}
		it.table = t
		cols = t.Columns
		pl.p.tables = append(pl.p.tables, t)
	case n.GetRangeFunction() != nil:
		v, alias, err := pl.rangeFunction(n.GetRangeFunction())
		if err != nil {
			return err
		}
		it.virt, it.alias, cols = v, alias, v.cols
	case n.GetRangeSubselect() != nil:
		return unsupported(nodeLoc(n), "a subquery in FROM")
	default:
		return unsupported(nodeLoc(n), nodeName(n))
	}
	for _, other := range pl.p.from {
		if other.alias == it.alias {
			return errf(codeDuplicateAlias, nodeLoc(n), "table name \"%s\" specified more than once", it.alias)
		}
	}
	idx := len(pl.p.from)
	pl.p.from = append(pl.p.from, it)
	for i, c := range cols {
		sc := scopeCol{item: idx, alias: it.alias, name: c.Name, typ: c.TypeOID, typmod: c.TypeMod, attnum: int16(i + 1), coll: c.Collation}
		if it.table != nil {
			sc.typ, sc.typmod, sc.domain = flatColumnType(it.table, i) // domaincols.go
		}
		pl.scope = append(pl.scope, sc)
	}
	return nil
}

const codeDuplicateAlias = "42712"

// table finds a followed table named by rv at the version it is read.
func (pl *planner) table(rv *pg.RangeVar, asOf string) (*Table, error) {
	schema := rv.Schemaname
	if schema == "" {
		schema = pl.unqualifiedSchema(rv.Relname) // searchpath.go
	}
	var found *Table
	for _, t := range pl.src.Tables() {
		if t.Schema == schema && t.Rel == rv.Relname {
			found = &t
			break
		}
	}
	if found == nil {
		found = pl.goneTableAt(schema, rv.Relname, asOf)
	}
	if found == nil {
		if t, err := pl.partRootTable(rv, schema, asOf); t != nil || err != nil { // partroot.go
			return t, err
		}
		if err := pl.partitionedRoot(rv, schema); err != nil {
			return nil, err
		}
		if err := pl.viewRefusal(rv, schema); err != nil {
			return nil, err // views.go
		}
		sysSchema := rv.Schemaname
		if sysSchema == "" {
			// pg_catalog comes first on every search path: an unqualified
			// name no followed relation has is PostgreSQL's own when
			// pg_catalog has it (pg_stat_user_tables, …).
			sysSchema = "pg_catalog"
		}
		if systemRelation(sysSchema, rv.Relname, serverVersion(pl.src.Tables())) { // pgcatalog_plan.go
			// PostgreSQL has it and sidecar does not serve it: 0A000,
			// not 42P01 (a name the followed major lacks is 42P01).
			return nil, unsupported(int(rv.Location), sysSchema+"."+rv.Relname+" (sidecar's catalog does not serve it yet)")
		}
		if err := unfollowedRefusal(pl.src.Tables(), schema, rv.Relname, int(rv.Location)); err != nil {
			return nil, err // pgcatalog_relations.go
		}
		var names []string
		for _, t := range pl.src.Tables() {
			names = append(names, t.Name)
		}
		list := strings.Join(names, ", ")
		if list == "" {
			list = "none yet"
		}
		name := rv.Relname
		if rv.Schemaname != "" {
			name = rv.Schemaname + "." + rv.Relname
		}
		return nil, (&Error{Code: codeUndefinedTable, Pos: int(rv.Location),
			Msg: "relation \"" + name + "\" does not exist"}).hint("sidecar follows these tables: " + list)
	}
	v, err := pl.sess.versionFor(pl.ctx, asOf)
	if err != nil {
		return nil, withPos(err, int(rv.Location))
	}
	t, err := pl.src.Table(pl.ctx, v, found.Name)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

func withPos(err error, pos int) error {
	if e, ok := err.(*Error); ok && e.Pos < 0 {
		e.Pos = pos
	}
	return err
}

// pushdown finds primary-key predicates among the WHERE conjuncts of the
// first (or only) followed table: equality on every key column becomes
// point gets; bounds on the first key column a key-range scan. The WHERE
// clause is still evaluated on every row read, so pushdown only narrows.
func (pl *planner) pushdown() {
	p := pl.p
	if p.where == nil || len(p.from) == 0 {
		return
	}
	for i, it := range p.from {
		if it.table == nil || len(it.table.KeyCols) == 0 || (i == 1 && p.joinLeft) || it.inherit {
			continue
		}
		keyIdx := make([]int, len(it.table.KeyCols))
		for k, c := range it.table.KeyCols {
			keyIdx[k] = it.base + c
		}
		eq := make([]expr, len(keyIdx))
		var inList []expr
		first := it.table.Columns[it.table.KeyCols[0]].TypeOID
		it.keyType = first
		pushable := func(t uint32, col uint32) bool {
			return t == col && (isIntType(col) || col == oidText || col == oidVarchar || col == oidNumeric || col == oidDate || col == oidUUID || col == oidTimestamp || col == oidTimestamptz)
		}
		for _, c := range conjuncts(p.where) {
			switch x := c.(type) {
			case *cmpExpr:
				col, val, op, ok := colCmp(x)
				if !ok {
					continue
				}
				for k, ki := range keyIdx {
					if col.idx != ki || !pushable(x.t, it.table.Columns[it.table.KeyCols[k]].TypeOID) {
						continue
					}
					if op == "=" {
						eq[k] = val
					}
					if k == 0 {
						switch op {
						case "=":
							it.lo, it.loIncl, it.hi, it.hiIncl = val, true, val, true
						case ">", ">=":
							if it.lo == nil {
								it.lo, it.loIncl = val, op == ">="
							}
						case "<", "<=":
							if it.hi == nil {
								it.hi, it.hiIncl = val, op == "<="
							}
						}
					}
				}
			case *likeExpr:
				if col, ok := x.arg.(*colExpr); ok && !x.not && col.idx == keyIdx[0] && (first == oidText || first == oidVarchar) && isConstant(x.pat) {
					it.likePat = x.pat
				}
			case *inExpr:
				if col, ok := x.arg.(*colExpr); ok && !x.not && len(keyIdx) == 1 && col.idx == keyIdx[0] && pushable(x.t, first) {
					all := true
					for _, l := range x.list {
						all = all && isConstant(l)
					}
					if all {
						inList = x.list
					}
				}
			}
		}
		complete := true
		for _, e := range eq {
			complete = complete && e != nil
		}
		switch {
		case complete:
			it.keyEq = [][]expr{eq}
		case inList != nil:
			for _, l := range inList {
				it.keyEq = append(it.keyEq, []expr{l})
			}
		}
	}
}

// colCmp matches col op constant (or constant op col, flipped).
func colCmp(c *cmpExpr) (*colExpr, expr, string, bool) {
	if col, ok := c.l.(*colExpr); ok && isConstant(c.r) {
		return col, c.r, c.op, true
	}
	if col, ok := c.r.(*colExpr); ok && isConstant(c.l) {
		flip := map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "<>": "<>", "!=": "!="}
		return col, c.l, flip[c.op], true
	}
	return nil, nil, "", false
}

// kwPos is the offset of the first of the keywords in the statement, -1
// when absent (for errors about constructs the parse tree has no
// location for).
func (pl *planner) kwPos(kws ...string) int {
	sr, err := pg.Scan(pl.query)
	if err != nil {
		return -1
	}
	for _, t := range sr.Tokens {
		w := strings.ToUpper(pl.query[t.Start:t.End])
		for _, k := range kws {
			if w == k {
				return int(t.Start)
			}
		}
	}
	return -1
}

// asOfCall returns the sidecar.as_of call of a FROM function, or nil.
func asOfCall(rf *pg.RangeFunction) *pg.FuncCall {
	if len(rf.Functions) != 1 {
		return nil
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 {
		return nil
	}
	if f := items[0].GetFuncCall(); f != nil && qualName(f.Funcname) == "sidecar.as_of" {
		return f
	}
	return nil
}
