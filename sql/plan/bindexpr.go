package plan

import (
	"strconv"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// exprCtx is where an expression is bound: the clause (for messages) and,
// where aggregates are allowed (select list, HAVING, ORDER BY), the
// level's aggregate collector.
type exprCtx struct {
	clause string
	aggs   *aggState
	inAgg  bool      // inside an aggregate's arguments
	wins   *winState // window functions allowed (select list, ORDER BY); window.go
	// srfs collects set-returning functions where allowed (select
	// list); srfBan names the construct refusing them inside it, inSRF
	// is inside one's arguments (projectset.go).
	srfs   *srfState
	srfBan string
	inSRF  bool
}

// expr binds one expression in sc.
func (b *binder) expr(n *pg.Node, sc *scope, ctx *exprCtx) (Scalar, error) {
	if ctx == nil {
		ctx = &exprCtx{}
	}
	switch {
	case n.GetColumnRef() != nil:
		return b.columnRef(n.GetColumnRef(), sc)
	case n.GetAConst() != nil:
		return constant(n.GetAConst())
	case n.GetParamRef() != nil:
		p := n.GetParamRef()
		for len(b.params) < int(p.Number) {
			b.params = append(b.params, T(Unknown))
		}
		return &Param{N: int(p.Number), T: b.params[p.Number-1]}, nil
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		arg, err := b.expr(tc.Arg, sc, ctx)
		if err != nil {
			return nil, err
		}
		if e, ok, err := b.regCast(arg, tc.TypeName); ok {
			return e, err // regtypes.go
		}
		t, err := TypeOf(tc.TypeName)
		if err != nil {
			et, ok, eerr := b.enumTypeOf(tc.TypeName) // enum.go
			if !ok {
				return nil, err
			}
			if eerr != nil {
				return nil, eerr
			}
			t = et
		}
		if arg, err = intervalFields(arg, tc.TypeName); err != nil {
			return nil, err
		}
		e := cast(arg, t)
		if c, ok := e.(*Const); ok && !c.Null && (t.OID == Varchar || t.OID == Bpchar) && t.Mod >= 4 {
			// An explicit cast truncates: 'éclair'::char(4) is 'écla'
			// (PostgreSQL reads the literal without the typmod, then
			// applies the length coercion as the cast's).
			if n := int(t.Mod - 4); utf8.RuneCountInString(c.Text) > n {
				c.Text = string([]rune(c.Text)[:n])
			}
		}
		if err := checkRangeLiteral(e, tc.Location); err != nil {
			return nil, err // rangeops.go: range_in at parse time
		}
		b.noteParam(e)
		return e, nil
	case n.GetAExpr() != nil:
		return b.aexpr(n.GetAExpr(), sc, ctx)
	case n.GetBoolExpr() != nil:
		be := n.GetBoolExpr()
		op := map[pg.BoolExprType]string{pg.BoolExprType_AND_EXPR: "AND", pg.BoolExprType_OR_EXPR: "OR", pg.BoolExprType_NOT_EXPR: "NOT"}[be.Boolop]
		out := &BoolOp{Op: op}
		for _, a := range be.Args {
			e, err := b.expr(a, sc, ctx)
			if err != nil {
				return nil, err
			}
			if e, err = boolean(e, op); err != nil {
				return nil, err
			}
			out.Args = append(out.Args, e)
		}
		return out, nil
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		e, err := b.expr(nt.Arg, sc, ctx)
		if err != nil {
			return nil, err
		}
		return &IsNull{Arg: e, Not: nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case n.GetBooleanTest() != nil:
		return b.booleanTest(n.GetBooleanTest(), sc, ctx)
	case n.GetFuncCall() != nil:
		return b.funcCall(n.GetFuncCall(), sc, ctx)
	case n.GetCoalesceExpr() != nil:
		return b.variadic("coalesce", n.GetCoalesceExpr().Args, sc, ctx.noSRF("COALESCE"))
	case n.GetMinMaxExpr() != nil:
		m := n.GetMinMaxExpr()
		name := "greatest"
		if m.Op == pg.MinMaxOp_IS_LEAST {
			name = "least"
		}
		return b.variadic(name, m.Args, sc, ctx)
	case n.GetCaseExpr() != nil:
		return b.caseExpr(n.GetCaseExpr(), sc, ctx.noSRF("CASE"))
	case n.GetSubLink() != nil:
		return b.subLink(n.GetSubLink(), sc, ctx)
	case n.GetGroupingFunc() != nil:
		return b.groupingFunc(n.GetGroupingFunc(), sc, ctx)
	case n.GetSqlvalueFunction() != nil:
		return b.sqlValueFunction(n.GetSqlvalueFunction()) // clock.go
	case n.GetAArrayExpr() != nil:
		return b.arrayExpr(n.GetAArrayExpr(), sc, ctx) // array.go
	case n.GetAIndirection() != nil:
		return b.indirection(n.GetAIndirection(), sc, ctx) // array.go
	case n.GetRowExpr() != nil:
		return b.rowExpr(n.GetRowExpr(), sc, ctx) // record.go
	case n.GetCollateClause() != nil:
		// COLLATE pg_catalog.default (psql's patterns) is bound as its
		// argument: the caller checks that the database default's order
		// cannot change the answer (sqlfront). Other collations are
		// bound as a marker (collate.go).
		cc := n.GetCollateClause()
		if !IsDefaultCollation(cc) {
			return b.collate(cc, sc, ctx)
		}
		e, err := b.expr(cc.Arg, sc, ctx)
		if err == nil {
			if o := e.Type().OID; o != Text && o != Varchar && o != Bpchar && o != Name && o != Unknown {
				return nil, unsupported("COLLATE on a value of a type other than text, varchar, char or name", -1)
			}
		}
		return e, err
	}
	return nil, unsupported("this expression", -1)
}

// IsDefaultCollation says whether cc names the database default
// collation: COLLATE "default" or pg_catalog."default".
func IsDefaultCollation(cc *pg.CollateClause) bool {
	var names []string
	for _, n := range cc.Collname {
		names = append(names, n.GetString_().GetSval())
	}
	return len(names) == 1 && names[0] == "default" || len(names) == 2 && names[0] == "pg_catalog" && names[1] == "default"
}

// booleanTest binds x IS [NOT] TRUE / FALSE / UNKNOWN, which are never
// NULL: IS TRUE is CASE WHEN x THEN true ELSE false END, the others alike.
func (b *binder) booleanTest(bt *pg.BooleanTest, sc *scope, ctx *exprCtx) (Scalar, error) {
	e, err := b.expr(bt.Arg, sc, ctx)
	if err != nil {
		return nil, err
	}
	if e, err = boolean(e, "IS TRUE"); err != nil {
		return nil, err
	}
	yes, no := &Const{T: T(Bool), Text: "true"}, &Const{T: T(Bool), Text: "false"}
	when := func(cond Scalar, then, els Scalar) Scalar {
		return &Case{Whens: []When{{Cond: cond, Result: then}}, Else: els, T: T(Bool)}
	}
	switch bt.Booltesttype {
	case pg.BoolTestType_IS_TRUE:
		return when(e, yes, no), nil
	case pg.BoolTestType_IS_NOT_TRUE:
		return when(e, no, yes), nil
	case pg.BoolTestType_IS_FALSE:
		return when(&BoolOp{Op: "NOT", Args: []Scalar{e}}, yes, no), nil
	case pg.BoolTestType_IS_NOT_FALSE:
		return when(&BoolOp{Op: "NOT", Args: []Scalar{e}}, no, yes), nil
	case pg.BoolTestType_IS_UNKNOWN:
		return &IsNull{Arg: e}, nil
	case pg.BoolTestType_IS_NOT_UNKNOWN:
		return &IsNull{Arg: e, Not: true}, nil
	}
	return nil, unsupported("this boolean test", bt.Location)
}

// columnRef resolves a column name.
func (b *binder) columnRef(cr *pg.ColumnRef, sc *scope) (Scalar, error) {
	var parts []string
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			if f.GetAStar() != nil && len(parts) == 1 && len(cr.Fields) == 2 {
				if e, ok, err := b.wholeRow(sc, parts[0], cr.Location, b.rowArgs[cr]); ok {
					return e, err // t.* as a value: record.go
				}
				return nil, errorf(CodeUndefinedTable, "missing FROM-clause entry for table %q", parts[0]).at(cr.Location)
			}
			return nil, unsupported("this column reference", cr.Location)
		}
		parts = append(parts, s.Sval)
	}
	table, name := "", parts[len(parts)-1]
	switch len(parts) {
	case 1:
	case 2:
		table = parts[0]
	case 3:
		table = parts[1]
	default:
		return nil, errorf(CodeSyntax, "improper qualified name (too many dotted names): %s", strings.Join(parts, ".")).at(cr.Location)
	}
	c, _, err := sc.lookup(table, name, cr.Location)
	if err != nil {
		if pe, ok := err.(*Error); ok && pe.Code == CodeUndefinedColumn && table == "" {
			if e, ok, werr := b.wholeRow(sc, name, cr.Location, b.rowArgs[cr]); ok {
				return e, werr // a table name as a value: record.go
			}
		}
		return nil, err
	}
	return &ColRef{ID: c.id, T: c.t}, nil
}

// constant types a literal as PostgreSQL's parser does: an integer that
// fits int4 is int4, then int8, then numeric; a decimal is numeric; a
// string is unknown until context types it.
func constant(c *pg.A_Const) (Scalar, error) {
	if c.Isnull {
		return &Const{T: T(Unknown), Null: true}, nil
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return &Const{T: T(Int4), Text: strconv.Itoa(int(v.Ival.Ival))}, nil
	case *pg.A_Const_Fval:
		s := v.Fval.Fval
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			if i == int64(int32(i)) { // -2147483648: int4, as PostgreSQL's make_const
				return &Const{T: T(Int4), Text: s}, nil
			}
			return &Const{T: T(Int8), Text: s}, nil
		}
		return &Const{T: T(Numeric), Text: s}, nil
	case *pg.A_Const_Boolval:
		return &Const{T: T(Bool), Text: strconv.FormatBool(v.Boolval.Boolval)}, nil
	case *pg.A_Const_Sval:
		return &Const{T: T(Unknown), Text: v.Sval.Sval}, nil
	case *pg.A_Const_Bsval:
		// B'…' and X'…': make_const reads "b…"/"x…" with bit_in, of type
		// bit without a length.
		return &Const{T: T(bitOID), Text: v.Bsval.Bsval}, nil
	}
	return nil, unsupported("this constant", c.Location)
}

// TypeOf resolves a TypeName (a column definition's, a cast's).
func TypeOf(tn *pg.TypeName) (Type, error) {
	if len(tn.ArrayBounds) > 0 {
		elem, err := TypeOf(&pg.TypeName{Names: tn.Names, Typmods: tn.Typmods, Location: tn.Location})
		if err != nil {
			return Type{}, err
		}
		if t := ArrayType(elem); t.OID != 0 {
			return t, nil // int[][] is int[] too, as in PostgreSQL
		}
		return Type{}, unsupported("arrays of "+elem.String(), tn.Location)
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().Sval)
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	var mods []int32
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			if strings.Join(parts, ".") == "interval" {
				continue // interval's field qualifiers (DAY, …) do not change the type
			}
			return Type{}, unsupported("this type modifier", tn.Location)
		}
		mods = append(mods, c.GetIval().Ival)
	}
	name := strings.Join(parts, ".")
	if name == "interval" {
		// [INTERVAL_FULL_RANGE, p] is interval(p); a field qualifier
		// (DAY, …) is intervalFields' business.
		if len(mods) == 2 && mods[0] == IntervalFullRange {
			mods = mods[1:]
		} else {
			mods = nil
		}
	}
	t, err := parseType(name, mods)
	if err != nil {
		return Type{}, err.(*Error).at(tn.Location)
	}
	return t, nil
}

// intervalUnits names the single-field qualifiers of interval by their
// INTERVAL_MASK bit (PostgreSQL's datetime.h: MONTH 1, YEAR 2, DAY 3,
// HOUR 10, MINUTE 11, SECOND 12).
var intervalUnits = map[int32]string{1 << 1: "months", 1 << 2: "years", 1 << 3: "days", 1 << 10: "hours", 1 << 11: "minutes", 1 << 12: "seconds"}

// intervalFields applies an interval literal's field qualifier
// (interval '90' day): a bare integer is read in the qualifier's unit,
// as PostgreSQL's interval input does; other qualified literals are
// refused (the qualifier also truncates lower fields, not done here).
func intervalFields(arg Scalar, tn *pg.TypeName) (Scalar, error) {
	if len(tn.Names) == 0 || tn.Names[len(tn.Names)-1].GetString_().Sval != "interval" || len(tn.Typmods) == 0 {
		return arg, nil
	}
	c := tn.Typmods[0].GetAConst()
	if c == nil || c.GetIval() == nil || c.GetIval().Ival == IntervalFullRange {
		return arg, nil
	}
	unit, ok := intervalUnits[c.GetIval().Ival]
	lit, isConst := arg.(*Const)
	if ok && isConst && lit.T.OID == Unknown && !lit.Null && len(tn.Typmods) == 1 {
		if _, err := strconv.ParseInt(strings.TrimSpace(lit.Text), 10, 32); err == nil {
			return &Const{T: lit.T, Text: strings.TrimSpace(lit.Text) + " " + unit}, nil
		}
	}
	return nil, unsupported("an interval field qualifier (YEAR, MONTH, DAY, …) on this value", tn.Location)
}

// IntervalFullRange is INTERVAL_FULL_RANGE: the typmod fields of an
// interval without a qualifier.
const IntervalFullRange = 0x7FFF

// cast is e::t: a literal takes the type directly (as PostgreSQL's parser
// reads 'x'::t into a constant of type t).
func cast(e Scalar, t Type) Scalar {
	if a := emptyArray(e, t); a != nil {
		return a // ARRAY[]::int[] (array.go)
	}
	if c, ok := e.(*Const); ok && (c.T.OID == Unknown || c.Null) {
		return &Const{T: t, Text: c.Text, Null: c.Null}
	}
	if p, ok := e.(*Param); ok && p.T.OID == Unknown {
		if t.Mod < 0 {
			return &Param{N: p.N, T: t}
		}
		// A parameter's type has no typmod: $1::char(3) reads $1 as
		// bpchar, then the cast's length coercion pads or truncates
		// ('ab' → 'ab '), as for numeric(p,s), varchar(n), time(p)…
		return &Cast{Arg: &Param{N: p.N, T: Type{OID: t.OID, Mod: -1}}, T: t}
	}
	if e.Type() == t {
		return e
	}
	return &Cast{Arg: e, T: t}
}

// coerce gives an untyped literal or parameter the type t (the operand
// the context expects); typed expressions stay as they are.
func coerce(e Scalar, t Type) Scalar {
	switch x := e.(type) {
	case *Const:
		if x.T.OID == Unknown {
			return &Const{T: t, Text: x.Text, Null: x.Null}
		}
	case *Param:
		if x.T.OID == Unknown {
			return &Param{N: x.N, T: t}
		}
	}
	return e // typed: an implicit widening is the operator's
}

// boolean checks that e is a boolean condition (an untyped literal
// becomes bool).
func boolean(e Scalar, clause string) (Scalar, error) {
	e = coerce(e, T(Bool))
	if e.Type().OID != Bool {
		return nil, errorf(CodeDatatypeMismatch, "argument of %s must be type boolean, not type %s", clause, e.Type())
	}
	return e, nil
}

// variadic binds coalesce/greatest/least: the arguments' common type.
func (b *binder) variadic(name string, args []*pg.Node, sc *scope, ctx *exprCtx) (Scalar, error) {
	f := &Func{Name: name}
	var ts []Type
	for _, a := range args {
		e, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, err
		}
		f.Args = append(f.Args, e)
		ts = append(ts, e.Type())
	}
	t, err := commonType(ts)
	if err != nil {
		return nil, err
	}
	if name == "nullif" && len(ts) == 2 && CrossTypeEq(ts[0].OID, ts[1].OID) {
		// PostgreSQL's = of the two types (int24eq, float48eq, …)
		// compares them as they are: the result is the first
		// argument's type and value, never cast. The executor compares
		// the first widened to the second's (the common) type.
		f.Args[1] = coerce(f.Args[1], t)
		f.T = ts[0]
		return f, nil
	}
	for i := range f.Args {
		f.Args[i] = coerce(f.Args[i], t)
	}
	f.T = t
	if name == "nullif" {
		f.T = nullifType(f.Args[0].Type(), f.Args[1].Type(), t)
	}
	return f, nil
}

// CrossTypeEq says whether PostgreSQL has an = operator of l and r
// whose result is the same as widening l to r's type and comparing:
// the integer pairs (int24eq, int28eq, int42eq, …) and float4 = float8
// (float48eq) where l is the narrower. (Where l is the wider, the
// common type is l's and NULLIF needs no cross-type compare. Dates and
// timestamps have cross-type = too, but widening a date can fail where
// the operator does not: not taken here.)
func CrossTypeEq(l, r OID) bool {
	rank := func(o OID) (family, width int) {
		switch o {
		case Int2:
			return 1, 2
		case Int4:
			return 1, 4
		case Int8:
			return 1, 8
		case Float4:
			return 2, 4
		case Float8:
			return 2, 8
		}
		return 0, 0
	}
	lf, lw := rank(l)
	rf, rw := rank(r)
	return lf != 0 && lf == rf && lw < rw
}

// nullifType is NULLIF(l, r)'s type: PostgreSQL's is l's after the
// = operator's resolution coerced it, and varchar (which has no = of
// its own) compares as text, as do two string types that differ.
func nullifType(l, r, common Type) Type {
	if isString(l.OID) && isString(r.OID) && l.OID != Unknown {
		switch {
		case l.OID == Varchar:
			return T(Text)
		case l.OID == r.OID:
			return common
		case l.OID == Name:
			return l
		}
		return T(Text)
	}
	return common
}

// caseExpr binds CASE; CASE x WHEN v … becomes CASE WHEN x = v ….
func (b *binder) caseExpr(c *pg.CaseExpr, sc *scope, ctx *exprCtx) (Scalar, error) {
	var operand Scalar
	if c.Arg != nil {
		var err error
		if operand, err = b.expr(c.Arg, sc, ctx); err != nil {
			return nil, err
		}
		if operand.Type().OID == Unknown {
			// transformCaseExpr: an untyped test expression is text (so
			// CASE NULL WHEN 1.5::float8 is text = float8, 42883)
			operand = &Cast{Arg: operand, T: T(Text)}
		}
	}
	out := &Case{}
	var ts []Type
	for _, w := range c.Args {
		cw := w.GetCaseWhen()
		cond, err := b.expr(cw.Expr, sc, ctx)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			if cond, err = b.binary("=", operand, cond, cw.Location); err != nil {
				return nil, err
			}
		}
		if cond, err = boolean(cond, "CASE/WHEN"); err != nil {
			return nil, err
		}
		res, err := b.expr(cw.Result, sc, ctx)
		if err != nil {
			return nil, err
		}
		out.Whens = append(out.Whens, When{Cond: cond, Result: res})
		ts = append(ts, res.Type())
	}
	if c.Defresult != nil {
		e, err := b.expr(c.Defresult, sc, ctx)
		if err != nil {
			return nil, err
		}
		out.Else = e
		// PostgreSQL resolves the ELSE first (transformCaseExpr): CASE
		// WHEN … THEN varchar ELSE text END is text.
		ts = append([]Type{e.Type()}, ts...)
	}
	t, err := commonType(ts)
	if err != nil {
		return nil, err
	}
	out.T = t
	for i := range out.Whens {
		out.Whens[i].Result = coerce(out.Whens[i].Result, t)
	}
	if out.Else != nil {
		out.Else = coerce(out.Else, t)
	}
	return out, nil
}

// colName is the name PostgreSQL gives an output column without an alias
// (FigureColname). b15: the followed major is before 15, where TRUE and
// FALSE are casts of strings ('t'::bool), named bool (constkey.go).
func colName(n *pg.Node, b15 bool) string {
	switch {
	case b15 && n.GetAConst() != nil && n.GetAConst().GetBoolval() != nil:
		return "bool"
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		if s := f[len(f)-1].GetString_(); s != nil {
			return s.Sval
		}
	case n.GetFuncCall() != nil:
		f := n.GetFuncCall().Funcname
		return f[len(f)-1].GetString_().Sval
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		// the argument's name only when strong: timestamp 'x'::date is
		// "date", not "timestamp"
		if name, ok := strongColName(tc.Arg, b15); ok {
			return name
		}
		if k, ok := regTypeOf(tc.TypeName); ok {
			return RegTypeName(k)
		}
		if t, err := TypeOf(tc.TypeName); err == nil {
			if IsArray(t) {
				t = ElemType(t) // int[] is named int4, as PostgreSQL names it
			}
			return typeNames[t.OID]
		}
		if names := tc.TypeName.Names; len(names) > 0 && names[len(names)-1].GetString_() != nil {
			return names[len(names)-1].GetString_().Sval // a user type ('ok'::mood): its name, as FigureColname
		}
	case n.GetCaseExpr() != nil:
		// named after its ELSE when that has a name of its own
		// (FigureColnameInternal: strength 2)
		if name, ok := strongColName(n.GetCaseExpr().Defresult, b15); ok {
			return name
		}
		return "case"
	case n.GetRowExpr() != nil:
		return "row"
	case n.GetAArrayExpr() != nil:
		return "array"
	case n.GetAIndirection() != nil:
		// the last field name selected, else the argument's name
		field := ""
		for _, x := range n.GetAIndirection().Indirection {
			if x.GetString_() != nil {
				field = x.GetString_().Sval
			}
		}
		if field != "" {
			return field
		}
		return colName(n.GetAIndirection().Arg, b15)
	case n.GetGroupingFunc() != nil:
		return "grouping"
	case n.GetCollateClause() != nil:
		return colName(n.GetCollateClause().Arg, b15) // FigureColnameInternal looks through COLLATE
	case n.GetSqlvalueFunction() != nil:
		return sqlValueName(n.GetSqlvalueFunction())
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().Op == pg.MinMaxOp_IS_LEAST {
			return "least"
		}
		return "greatest"
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg.A_Expr_Kind_AEXPR_NULLIF:
		return "nullif"
	case n.GetSubLink() != nil:
		sl := n.GetSubLink()
		switch sl.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return "exists"
		case pg.SubLinkType_ARRAY_SUBLINK:
			return "array"
		case pg.SubLinkType_EXPR_SUBLINK:
			if s := sl.Subselect.GetSelectStmt(); s != nil && len(s.ValuesLists) > 0 {
				return "column1" // (VALUES (…)): its first column's name
			}
			if s := sl.Subselect.GetSelectStmt(); s != nil && len(s.TargetList) > 0 {
				rt := s.TargetList[0].GetResTarget()
				if rt.Name != "" {
					return rt.Name
				}
				return colName(rt.Val, b15)
			}
		}
	}
	return "?column?"
}

// strongColName is n's column name when PostgreSQL ranks it strong (a
// name from a column, function, … — not "?column?", nor a type's or
// "case" given to a cast or CASE of a nameless expression). A scalar,
// EXISTS or ARRAY subquery's name is strong even when it is "?column?"
// (FigureColnameInternal: 2): CASE … ELSE (SELECT 1) END is "?column?".
func strongColName(n *pg.Node, b15 bool) (string, bool) {
	switch {
	case n == nil, n.GetAConst() != nil:
		return "", false
	case n.GetTypeCast() != nil:
		return strongColName(n.GetTypeCast().Arg, b15)
	case n.GetCaseExpr() != nil:
		return strongColName(n.GetCaseExpr().Defresult, b15)
	case n.GetCollateClause() != nil:
		return strongColName(n.GetCollateClause().Arg, b15)
	case n.GetSubLink() != nil:
		switch n.GetSubLink().SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK, pg.SubLinkType_ARRAY_SUBLINK, pg.SubLinkType_EXPR_SUBLINK:
			return colName(n, b15), true
		}
		return "", false
	}
	name := colName(n, b15)
	return name, name != "?column?"
}

// colNameOf names a computed GROUP BY column for EXPLAIN.
func colNameOf(e Scalar) string {
	if f, ok := e.(*Func); ok {
		return f.Name
	}
	return "?column?"
}
