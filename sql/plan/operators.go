package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// opName is an operator's name (pg_catalog qualification dropped).
func opName(name []*pg.Node) string {
	return name[len(name)-1].GetString_().Sval
}

// aexpr binds an operator expression.
func (b *binder) aexpr(a *pg.A_Expr, sc *scope, ctx *exprCtx) (Scalar, error) {
	side := func(n *pg.Node) (Scalar, error) { return b.expr(n, sc, ctx) }
	sides := func() (Scalar, Scalar, error) {
		l, err := side(a.Lexpr)
		if err != nil {
			return nil, nil, err
		}
		r, err := side(a.Rexpr)
		return l, r, err
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		op := opName(a.Name)
		if a.Lexpr == nil {
			r, err := side(a.Rexpr)
			if err != nil {
				return nil, err
			}
			if op == "-" {
				if c, ok := r.(*Const); ok && !c.Null && numericRank(c.T.OID) > 0 {
					// the literal's text negated: a sign it has already
					// is flipped (- '-Infinity'::float8 is Infinity, not
					// the unreadable "--Infinity")
					t := strings.TrimSpace(c.Text)
					switch {
					case strings.HasPrefix(t, "-"):
						t = t[1:]
					case strings.HasPrefix(t, "+"):
						t = "-" + t[1:]
					default:
						t = "-" + t
					}
					return &Const{T: c.T, Text: t}, nil
				}
				if numericRank(r.Type().OID) == 0 && r.Type().OID != Interval {
					return nil, errorf(CodeUndefinedFunction, "operator does not exist: - %s", r.Type()).at(a.Location)
				}
				return &Op{Op: "-", Args: []Scalar{r}, T: r.Type()}, nil
			}
			if op == "+" {
				return r, nil
			}
			return b.libraryOperator(op, []Scalar{r}, a.Location) // libops.go
		}
		l, r, err := sides()
		if err != nil {
			return nil, err
		}
		return b.binary(op, l, r, a.Location)
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE, pg.A_Expr_Kind_AEXPR_SIMILAR:
		// SIMILAR TO: the parser made the pattern similar_to_escape(…)
		// and the operator ~ or !~ (sql/builtin/similar.go).
		l, r, err := sides()
		if err != nil {
			return nil, err
		}
		return b.binary(opName(a.Name), l, r, a.Location)
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, r, err := sides()
		if err != nil {
			return nil, err
		}
		if lr, ok := l.(*Row); ok {
			if rr, ok := r.(*Row); ok {
				return b.rowDistinct(a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT, lr, rr, a.Location) // record.go
			}
		}
		eq, err := b.binary("=", l, r, a.Location)
		if err != nil {
			return nil, err
		}
		op := "IS DISTINCT FROM"
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			op = "IS NOT DISTINCT FROM"
		}
		o := eq.(*Op)
		return &Op{Op: op, Args: o.Args, T: T(Bool)}, nil
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return b.anyAll(a, a.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL, sc, ctx) // array.go
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		return b.variadic("nullif", []*pg.Node{a.Lexpr, a.Rexpr}, sc, ctx)
	case pg.A_Expr_Kind_AEXPR_IN:
		l, err := side(a.Lexpr)
		if err != nil {
			return nil, err
		}
		in := &InList{Arg: l, Not: opName(a.Name) == "<>"}
		ts := []Type{l.Type()}
		for _, n := range a.Rexpr.GetList().Items {
			e, err := side(n)
			if err != nil {
				return nil, err
			}
			in.List = append(in.List, e)
			ts = append(ts, e.Type())
		}
		if lr, ok := l.(*Row); ok {
			return b.rowIn(lr, in.List, in.Not, a.Location) // record.go
		}
		t, err := commonType(ts)
		if err != nil {
			return nil, err.(*Error).at(a.Location)
		}
		in.Arg = oidCoerce(coerce(in.Arg, t), t)
		for i := range in.List {
			in.List[i] = oidCoerce(coerce(in.List[i], t), t)
		}
		return in, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		// BETWEEN is x >= lo AND x <= hi, NOT BETWEEN x < lo OR x > hi
		// (PostgreSQL rewrites them so too); SYMMETRIC is either order of
		// the bounds: (x >= a AND x <= b) OR (x >= b AND x <= a), and
		// its NOT (x < a OR x > b) AND (x < b OR x > a).
		x, err := side(a.Lexpr)
		if err != nil {
			return nil, err
		}
		bounds := a.Rexpr.GetList().Items
		lo, err := side(bounds[0])
		if err != nil {
			return nil, err
		}
		hi, err := side(bounds[1])
		if err != nil {
			return nil, err
		}
		not := a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN || a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM
		ops, inner, outer := [2]string{">=", "<="}, "AND", "OR"
		if not {
			ops, inner, outer = [2]string{"<", ">"}, "OR", "AND"
		}
		arm := func(lo, hi Scalar) (Scalar, error) {
			l, err := b.binary(ops[0], x, lo, a.Location)
			if err != nil {
				return nil, err
			}
			h, err := b.binary(ops[1], x, hi, a.Location)
			if err != nil {
				return nil, err
			}
			return &BoolOp{Op: inner, Args: []Scalar{l, h}}, nil
		}
		first, err := arm(lo, hi)
		if err != nil || a.Kind == pg.A_Expr_Kind_AEXPR_BETWEEN || a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			return first, err
		}
		second, err := arm(hi, lo)
		if err != nil {
			return nil, err
		}
		return &BoolOp{Op: outer, Args: []Scalar{first, second}}, nil
	}
	return nil, unsupported("this operator", a.Location)
}

var comparisons = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

// binary types l op r with PostgreSQL's operator resolution for the types
// the planner knows: an untyped literal takes the other side's type.
func (b *binder) binary(op string, l, r Scalar, loc int32) (Scalar, error) {
	if op == "!=" {
		op = "<>"
	}
	if e, ok, err := b.recordOperator(op, l, r, loc); ok {
		return e, err // record.go
	}
	if e, ok, err := b.jsonbOperator(op, l, r, loc); ok {
		return e, err // jsonops.go
	}
	if op == "||" && (IsArray(l.Type()) || IsArray(r.Type())) {
		return b.arrayConcat(l, r, loc) // array.go
	}
	if (op == "@>" || op == "<@" || op == "&&") && (IsArray(l.Type()) || IsArray(r.Type())) {
		return b.arrayContainment(op, l, r, loc) // arraycontain.go
	}
	if e, ok, err := b.byteaOperator(op, l, r, loc); ok {
		return e, err // bytea.go
	}
	if e, ok, err := b.rangeOperator(op, l, r, loc); ok {
		return e, err // rangeops.go
	}
	if e, ok, err := b.inetOperator(op, l, r, loc); ok {
		return e, err // inetops.go
	}
	if e, ok, err := b.moneyBitOperator(op, l, r, loc); ok {
		return e, err // moneybitops.go
	}
	lt, rt := l.Type(), r.Type()
	like := op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*"
	switch {
	case like && (lt.OID == Unknown || rt.OID == Unknown) && (lt.OID == Bpchar || rt.OID == Bpchar):
		// every LIKE operator's pattern is text (bpchar ~~ text keeps
		// the padding of its bpchar operand, not of an untyped pattern)
		l, r = coerce(l, T(Text)), coerce(r, T(Text))
	case libraryOp(op) && (lt.OID == Unknown) != (rt.OID == Unknown):
		// An untyped literal opposite a typed operand takes that type only
		// when the library has the operator on two of it (PostgreSQL's
		// first rule); otherwise resolution picks (jsonb -> 'key' is
		// jsonb -> text). libops.go.
		if known := max(lt.OID, rt.OID); b.hasExactOperator(op, known) {
			l, r = coerce(l, T(known)), coerce(r, T(known))
		}
	case lt.OID == Unknown && rt.OID == Unknown:
		l, r = coerce(l, T(Text)), coerce(r, T(Text))
	case op == "+" && (lt.OID == Date) != (rt.OID == Date) && (lt.OID == Unknown || rt.OID == Unknown):
		// date + int4, + interval, + time, + timetz: PostgreSQL cannot
		// choose for an untyped operand.
		return nil, errorf("42725", "operator is not unique: %s + %s", lt, rt).at(loc)
	case lt.OID == Unknown:
		l = coerce(l, paramText(l, b.operandType(op, rt)))
	case rt.OID == Unknown:
		r = coerce(r, paramText(r, b.operandType(op, lt)))
	}
	b.noteParam(l)
	b.noteParam(r)
	lt, rt = l.Type(), r.Type()
	bad := func() error {
		return errorf(CodeUndefinedFunction, "operator does not exist: %s %s %s", b.typeString(lt), op, b.typeString(rt)).at(loc) // enum.go: an enum by its name
	}
	switch {
	case comparisons[op]:
		l, r = oidOperands(l, r) // extfunc.go
		l, r = bpcharOperands(l, r)
		lt, rt = l.Type(), r.Type()
		if !comparable(lt.OID, rt.OID) {
			return nil, bad()
		}
		return &Op{Op: op, Args: []Scalar{l, r}, T: T(Bool)}, nil
	case op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*":
		if !isString(lt.OID) || !isString(rt.OID) {
			return nil, bad()
		}
		if rt.OID == Bpchar {
			// the pattern is text (x LIKE c reads c without its padding);
			// a bpchar x keeps its padding (bpcharlike)
			r = &Cast{Arg: r, T: T(Text)}
		}
		return &Op{Op: op, Args: []Scalar{l, r}, T: T(Bool)}, nil
	case op == "||":
		if !isString(lt.OID) && !isString(rt.OID) {
			return nil, bad()
		}
		return &Op{Op: op, Args: []Scalar{l, r}, T: T(Text)}, nil
	case op == "+" || op == "-" || op == "*" || op == "/" || op == "%":
		if op == "+" && commutedDateArith(lt.OID, rt.OID) {
			// interval + date, interval + timestamp[tz], integer + date:
			// PostgreSQL's interval_pl_date, interval_pl_timestamp[tz],
			// integer_pl_date are the operations commuted.
			l, r, lt, rt = r, l, rt, lt
		}
		if ml, mr, ok := mixedDateTime(op, l, r); ok { // datemixed.go
			l, r = ml, mr
			lt, rt = l.Type(), r.Type()
		}
		t := dateArith(op, lt.OID, rt.OID)
		if t == 0 {
			t = arithResult(op, lt.OID, rt.OID)
		}
		if t == 0 {
			return nil, bad()
		}
		return &Op{Op: op, Args: []Scalar{l, r}, T: T(t)}, nil
	}
	return b.libraryOperator(op, []Scalar{l, r}, loc) // libops.go
}

// paramText is text for a parameter opposite varchar (varchar has no
// operators of its own: PostgreSQL infers text for $1 in v = $1), else t.
// (A literal keeps varchar: its value is the same, and plans read it so.)
func paramText(e Scalar, t Type) Type {
	if _, ok := e.(*Param); ok && t.OID == Varchar {
		return T(Text)
	}
	return t
}

// operandType is the type an untyped literal takes opposite an operand
// of type t (PostgreSQL picks the operator with both sides of t's type;
// date ± 'x' reads x as an integer for - and +).
func (b *binder) operandType(op string, t Type) Type {
	if op == "||" {
		return T(Text)
	}
	if (t.OID == Date || t.OID == Timestamp || t.OID == Timestamptz) && op == "-" {
		return T(t.OID) // date - date, timestamp - timestamp: the exact match
	}
	if (t.OID == Timestamp || t.OID == Timestamptz) && op == "+" {
		return T(Interval)
	}
	return T(t.OID)
}

// noteParam records a parameter's inferred type.
func (b *binder) noteParam(e Scalar) {
	if c, ok := e.(*Cast); ok {
		e = c.Arg // $1::char(3): $1 is bpchar (cast)
	}
	if p, ok := e.(*Param); ok && p.T.OID != Unknown && b.params[p.N-1].OID == Unknown {
		b.params[p.N-1] = p.T
	}
}

// comparable says whether PostgreSQL has a comparison between l and r.
func comparable(l, r OID) bool {
	dt := func(o OID) bool { return o == Date || o == Timestamp || o == Timestamptz }
	switch {
	case l == r:
		return true
	case numericRank(l) > 0 && numericRank(r) > 0:
		return true
	case isString(l) && isString(r):
		return true
	case dt(l) && dt(r):
		return true
	}
	return false
}

// commutedDateArith says whether l + r is one of PostgreSQL's date/time
// additions written with the date/time operand on the right.
func commutedDateArith(l, r OID) bool {
	return l == Interval && (r == Date || r == Timestamp || r == Timestamptz) || (l == Int4 || l == Int2) && r == Date
}

// dateArith is the result of date/time arithmetic (0: not date/time).
func dateArith(op string, l, r OID) OID {
	switch {
	case l == Date && r == Date && op == "-":
		return Int4
	case l == Date && (r == Int4 || r == Int2) && (op == "+" || op == "-"):
		return Date
	case l == Date && r == Interval && (op == "+" || op == "-"):
		return Timestamp
	case (l == Timestamp || l == Timestamptz) && r == Interval && (op == "+" || op == "-"):
		return l
	case (l == Timestamp || l == Timestamptz) && l == r && op == "-":
		return Interval
	case l == Interval && r == Interval && (op == "+" || op == "-"):
		return Interval
	case l == Interval && numericRank(r) > 0 && (op == "*" || op == "/"):
		return Interval
	case numericRank(l) > 0 && r == Interval && op == "*":
		return Interval // float8 * interval (mul_d_interval)
	case l == Time && r == Time && op == "-":
		return Interval // time_mi_time
	}
	return 0
}

// funcCall binds a function call: an aggregate (where allowed) or a
// function of the library (builtin.go).
func (b *binder) funcCall(f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, error) {
	if err := b.userFuncRefusal(f); err != nil {
		return nil, err // userfunc.go
	}
	name := strings.ToLower(opName(f.Funcname))
	b.markRowArgs(name, f) // record.go
	if f.Over != nil {
		return b.windowCall(name, f, sc, ctx)
	}
	if srfNames[name] && len(f.Funcname) <= 2 {
		return b.srfCall(name, f, sc, ctx) // projectset.go
	}
	if aggFuncs[name] || (OrderedAggArgs(name) > 0 || b.isExtraAgg(name)) && len(f.Funcname) <= 2 && (!HypoAggs[name] || f.AggWithinGroup) {
		return b.aggCall(name, f, sc, ctx) // array_agg: array.go; json: jsonagg.go; the others: aggextra.go
	}
	if f.AggStar || f.AggDistinct || f.AggFilter != nil || len(f.AggOrder) > 0 {
		return nil, errorf(CodeWrongObjectType, "%s is not an aggregate function", name).at(f.Location)
	}
	if e, found, err := b.enumCall(name, f, sc, ctx); found || err != nil {
		return e, err // enum.go
	}
	if e, found, err := b.arrayCall(name, f, sc, ctx); found || err != nil {
		return e, err // array.go
	}
	if e, found, err := b.extFuncCall(name, f, sc, ctx); found || err != nil {
		return e, err // a function of the catalog (extfunc.go)
	}
	f, err := b.positionalArgs(name, f) // namedargs.go
	if err != nil {
		return nil, err
	}
	return b.libraryCall(name, f, sc, ctx)
}

// aggCall binds an aggregate call: its arguments are bound at this level,
// it becomes an AggExpr of the level, and the expression reads its
// column.
//
// An aggregate in a subquery whose arguments (and FILTER) read columns
// of the enclosing query only is that query's aggregate, as in
// PostgreSQL: select (select max(0) filter (where o.b)) from o is one
// row (outerAgg).
func (b *binder) aggCall(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, error) {
	if ctx.inAgg {
		return nil, errorf(CodeGrouping, "aggregate function calls cannot be nested").at(f.Location)
	}
	levels := outerAggLevels(sc) // outeragg.go
	ae, label, err := b.bindAgg(name, f, sc, &exprCtx{clause: ctx.clause, aggs: &aggState{}})
	if err != nil {
		return nil, err
	}
	return b.placeAgg(ae, label, ctx, levels, f.Location)
}

// placeAgg adds ae (of text label) to the aggregates of its level:
// ctx's, or an enclosing query's (outerAggTarget), and gives the
// expression reading it.
func (b *binder) placeAgg(ae AggExpr, label string, ctx *exprCtx, levels *aggLevels, loc int32) (Scalar, error) {
	target, moved := ctx, func(ColumnID) {}
	if t, fix := b.outerAggTarget(levels, ae); t != nil {
		target, moved = t, fix
	}
	if target.aggs == nil {
		if ae.Name == "grouping" {
			return nil, errorf(CodeGrouping, "grouping operations are not allowed in %s", target.clause).at(loc)
		}
		return nil, errorf(CodeGrouping, "aggregate functions are not allowed in %s", target.clause).at(loc)
	}
	if target.inAgg {
		return nil, errorf(CodeGrouping, "aggregate function calls cannot be nested").at(loc)
	}
	for _, o := range target.aggs.list {
		if b.md.Column(o.Col).Name == label && ae.Name != "grouping" {
			ae = o // the same call: computed once
			break
		}
	}
	if ae.Col == 0 {
		ae.Col = b.md.Add(ColumnMeta{Name: label, Type: ae.T})
		target.aggs.list = append(target.aggs.list, ae)
	}
	moved(ae.Col)
	return &ColRef{ID: ae.Col, T: ae.T}, nil
}

// bindAgg binds an aggregate call at sc's level, and gives its text (the
// name of its column); aggCall decides the level it belongs to.
func (b *binder) bindAgg(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (AggExpr, string, error) {
	extra := b.isExtraAgg(name)
	if len(f.AggOrder) > 0 && OrderedAggArgs(name) == 0 && !extra {
		if err := b.orderFreeAgg(name, f, sc, ctx); err != nil {
			return AggExpr{}, "", err // aggorderfree.go: min(x ORDER BY y) and its kin
		}
	}
	inner := &exprCtx{clause: ctx.clause, aggs: ctx.aggs, inAgg: true}
	ae := AggExpr{Name: name, Distinct: f.AggDistinct}
	arg := T(Unknown)
	for _, a := range f.Args {
		e, err := b.expr(a, sc, inner)
		if err != nil {
			return AggExpr{}, "", err
		}
		ae.Args = append(ae.Args, e)
		arg = e.Type()
	}
	if f.AggStar {
		if name != "count" {
			return AggExpr{}, "", errorf(CodeSyntax, "%s(*) specified, but %s is not an aggregate function taking no arguments", name, name).at(f.Location)
		}
	} else if extra {
		if err := b.extraAgg(name, &ae, f, sc, inner); err != nil {
			return AggExpr{}, "", err // aggextra.go
		}
	} else if len(ae.Args) != max(1, OrderedAggArgs(name)) {
		return AggExpr{}, "", errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(ae.Args)).at(f.Location)
	}
	if name == "array_agg" {
		if err := b.arrayAgg(&ae, f, sc, inner); err != nil {
			return AggExpr{}, "", err // array.go
		}
	} else if OrderedAggArgs(name) > 0 {
		if err := b.jsonAgg(&ae, f, sc, inner); err != nil {
			return AggExpr{}, "", err // jsonagg.go
		}
	}
	if len(ae.Args) == 1 && arg.OID == Unknown && !extra {
		arg = unknownAggArg(name)
		ae.Args[0] = coerce(ae.Args[0], arg)
	}
	if f.AggFilter != nil {
		e, err := b.expr(f.AggFilter, sc, inner)
		if err != nil {
			return AggExpr{}, "", err
		}
		if ae.Filter, err = boolean(e, "FILTER"); err != nil {
			return AggExpr{}, "", err
		}
	}
	if !extra {
		t, err := aggResult(name, arg.OID, b.functions().Version())
		if err != nil {
			return AggExpr{}, "", err.(*Error).at(f.Location)
		}
		ae.T = T(t) // an aggregate's result has no typmod
		if len(ae.Args) == 1 {
			ae.Args[0] = minMaxArg(name, ae.Args[0])
		}
	}
	var sb strings.Builder
	sb.WriteString(name + "(")
	if f.AggStar {
		sb.WriteByte('*')
	}
	if ae.Distinct {
		sb.WriteString("DISTINCT ")
	}
	formatList(&sb, b.md, ae.Args)
	for _, o := range ae.Order {
		sb.WriteString(map[bool]string{true: " DESC", false: " ASC"}[o.Desc] + map[bool]string{true: " NULLS FIRST", false: ""}[o.NullsFirst])
	}
	sb.WriteByte(')')
	if ae.Filter != nil {
		sb.WriteString(" FILTER (WHERE " + FormatScalar(ae.Filter, b.md) + ")")
	}
	return ae, sb.String(), nil
}

// subLink binds a subquery in an expression at a new query level whose
// unresolved names are looked up in sc (correlation).
func (b *binder) subLink(sl *pg.SubLink, sc *scope, ctx *exprCtx) (Scalar, error) {
	child := &scope{parent: sc, subCtx: ctx}
	rel, cols, _, err := b.bindSelect(sl.Subselect.GetSelectStmt(), child)
	if err != nil {
		return nil, err
	}
	// child.outer: the columns of sc's level and above it reads (the
	// lookup noted those above sc's level in sc.outer too).
	sq := &Subquery{Plan: rel, Outer: child.outer.Sorted()}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		sq.Kind, sq.T = SubExists, T(Bool)
		return sq, nil
	case pg.SubLinkType_EXPR_SUBLINK:
		if len(cols) != 1 {
			return nil, errorf(CodeSyntax, "subquery must return only one column").at(sl.Location)
		}
		sq.Kind, sq.T = SubScalar, b.md.Column(cols[0]).Type
		return sq, nil
	case pg.SubLinkType_ARRAY_SUBLINK:
		return b.arraySubLink(sq, cols, sl.Location) // array.go
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
		if row := sl.Testexpr.GetRowExpr(); row != nil && len(row.Args) > 1 {
			return b.rowSubLink(sl, row.Args, sq, cols, sc, ctx)
		}
		if len(cols) != 1 {
			return nil, unsupported("a row comparison with a subquery", sl.Location)
		}
		test := sl.Testexpr
		if row := test.GetRowExpr(); row != nil && len(row.Args) == 1 {
			test = row.Args[0] // ROW(x) op ANY (SELECT y): x op y, as PostgreSQL pairs a row's fields with the columns
		}
		left, err := b.expr(test, sc, ctx)
		if err != nil {
			return nil, err
		}
		op := "="
		if len(sl.OperName) > 0 {
			op = opName(sl.OperName)
		}
		cmp, err := b.binary(op, left, &ColRef{ID: cols[0], T: b.md.Column(cols[0]).Type}, sl.Location)
		if err != nil {
			return nil, err
		}
		o := cmp.(*Op)
		sq.Left, sq.Op, sq.T = o.Args[0], op, T(Bool)
		sq.Col, _ = o.Args[1].(*ColRef)
		sq.Kind = SubAny
		if sl.SubLinkType == pg.SubLinkType_ALL_SUBLINK {
			sq.Kind = SubAll
		}
		return sq, nil
	}
	return nil, unsupported("this kind of subquery", sl.Location)
}

// rowSubLink binds (a, b, …) IN (SELECT x, y, …) — = ANY over rows: a
// row is equal when every column is, unequal when one is, else unknown.
// Other operators (row ordering) and ALL are refused.
func (b *binder) rowSubLink(sl *pg.SubLink, args []*pg.Node, sq *Subquery, cols []ColumnID, sc *scope, ctx *exprCtx) (Scalar, error) {
	op := "="
	if len(sl.OperName) > 0 {
		op = opName(sl.OperName)
	}
	if op != "=" || sl.SubLinkType != pg.SubLinkType_ANY_SUBLINK {
		return nil, unsupported("a row comparison with a subquery other than IN / = ANY", sl.Location)
	}
	switch {
	case len(cols) > len(args):
		return nil, errorf(CodeSyntax, "subquery has too many columns").at(sl.Location)
	case len(cols) < len(args):
		return nil, errorf(CodeSyntax, "subquery has too few columns").at(sl.Location)
	}
	for k, a := range args {
		left, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, err
		}
		cmp, err := b.binary(op, left, &ColRef{ID: cols[k], T: b.md.Column(cols[k]).Type}, sl.Location)
		if err != nil {
			return nil, err
		}
		o, ok := cmp.(*Op)
		if !ok {
			return nil, unsupported("this row comparison with a subquery", sl.Location)
		}
		col, ok := o.Args[1].(*ColRef)
		if !ok {
			return nil, unsupported("this row comparison with a subquery", sl.Location)
		}
		if k == 0 {
			sq.Left, sq.Col = o.Args[0], col
			continue
		}
		sq.RowLeft, sq.RowCols = append(sq.RowLeft, o.Args[0]), append(sq.RowCols, col)
	}
	sq.Op, sq.T, sq.Kind = op, T(Bool), SubAny
	return sq, nil
}

// bpcharOperands resolves a comparison of character(n) with character
// varying as PostgreSQL does: no varchar operator exists, and of the
// candidates bpchar = bpchar matches one operand exactly where text =
// text matches none (varchar → bpchar is an implicit cast), so the
// varchar side is read as bpchar and trailing blanks do not count:
// 'x'::char(4) = 'x '::varchar is true. Compared as text (before), such
// rows were dropped from WHERE, joins and IN. bpchar with text compares
// as text (text is the preferred type), unchanged.
func bpcharOperands(l, r Scalar) (Scalar, Scalar) {
	lt, rt := l.Type().OID, r.Type().OID
	switch {
	case lt == Bpchar && rt == Varchar:
		r = cast(r, T(Bpchar))
	case lt == Varchar && rt == Bpchar:
		l = cast(l, T(Bpchar))
	}
	return l, r
}
