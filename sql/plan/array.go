package plan

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// Arrays (one-dimensional; types.Array is the value). The binder writes
// every array construct as a Func without a library Call, so the walks,
// rewrites and EXPLAIN of expressions need nothing new; the executor
// runs them by name (sql/exec/array.go):
//
//	ARRAY[a, b]            Func{Name: "array", Args: a, b}
//	a[i]                   Func{Name: "subscript", Args: a, i}
//	x op ANY (a) / ALL (a) Func{Name: "= ANY" / "= ALL" …, Args: x, a}
//	array_length, cardinality, array_upper, array_lower, array_ndims,
//	array_dims, array_to_string, array_position, array_positions,
//	array_remove, array_replace: Func by their own names.
//
//	a[lo:hi], a[:hi], a[lo:], a[:] Func{Name: "slice", Args: a, lo, hi}
//	(an omitted bound is the array's: 1, or past the end)
//
// Multi-dimensional arrays and the array operators not listed are
// refused with 0A000.

// arrayFuncs are the array functions the executor runs (arrayCall).
var arrayFuncs = map[string]bool{
	"array_length": true, "cardinality": true, "array_upper": true, "array_lower": true,
	"array_ndims": true, "array_dims": true, "array_to_string": true,
}

// IsArray says whether t is an array type.
func IsArray(t Type) bool { return types.IsArray(t.OID) }

// ElemType is the element type of array type t (typmod kept).
func ElemType(t Type) Type { return Type{OID: types.ElemOf(t.OID), Mod: t.Mod} }

// ArrayType is the array type of elements of type t (typmod kept).
func ArrayType(t Type) Type { return Type{OID: types.ArrayOf(t.OID), Mod: t.Mod} }

// ArrayCmp reports whether f is x op ANY/ALL (array): the comparison
// and whether it is ALL.
func ArrayCmp(f *Func) (op string, all, ok bool) {
	if f.Call != nil || f.Ext != nil {
		return "", false, false
	}
	if op, ok := strings.CutSuffix(f.Name, " ANY"); ok {
		return op, false, true
	}
	if op, ok := strings.CutSuffix(f.Name, " ALL"); ok {
		return op, true, true
	}
	return "", false, false
}

// arrayExpr binds ARRAY[…]: the elements' common type; an empty ARRAY[]
// needs a cast to give it one (cast() does).
func (b *binder) arrayExpr(a *pg.A_ArrayExpr, sc *scope, ctx *exprCtx) (Scalar, error) {
	f := &Func{Name: "array"}
	var ts []Type
	for _, n := range a.Elements {
		if n.GetAArrayExpr() != nil {
			return nil, unsupported("multidimensional arrays", a.Location)
		}
		e, err := b.expr(n, sc, ctx)
		if err != nil {
			return nil, err
		}
		if IsArray(e.Type()) {
			return nil, unsupported("multidimensional arrays", a.Location)
		}
		f.Args = append(f.Args, e)
		ts = append(ts, e.Type())
	}
	if len(f.Args) == 0 {
		f.T = T(Unknown) // typed by a cast, else refused (checkArray)
		return f, nil
	}
	t, err := commonType(ts)
	if err != nil {
		return nil, err.(*Error).at(a.Location)
	}
	if t.OID == Unknown {
		t = T(Text)
	}
	f.T = ArrayType(t)
	if f.T.OID == 0 {
		return nil, unsupported("arrays of "+t.String(), a.Location)
	}
	for i := range f.Args {
		f.Args[i] = coerce(f.Args[i], t)
		b.noteParam(f.Args[i])
	}
	return f, nil
}

// emptyArray is ARRAY[] given type t by a cast (nil: e is not ARRAY[]).
func emptyArray(e Scalar, t Type) Scalar {
	if f, ok := e.(*Func); ok && f.Call == nil && f.Name == "array" && len(f.Args) == 0 && f.T.OID == Unknown && IsArray(t) {
		return &Func{Name: "array", T: t}
	}
	return nil
}

// indirection binds a[i] (one integer subscript; slices, several
// subscripts and field selection are refused).
func (b *binder) indirection(in *pg.A_Indirection, sc *scope, ctx *exprCtx) (Scalar, error) {
	if e, found, err := b.srfField(in, sc, ctx); found || err != nil {
		return e, err // (jsonb_each(j)).key (jsonsrf.go)
	}
	arg, err := b.expr(in.Arg, sc, ctx)
	if err != nil {
		return nil, err
	}
	if len(in.Indirection) != 1 || in.Indirection[0].GetAIndices() == nil {
		return nil, unsupported("this subscript or field selection", -1)
	}
	ix := in.Indirection[0].GetAIndices()
	if !IsArray(arg.Type()) {
		return nil, errorf(CodeDatatypeMismatch, "cannot subscript type %s because it does not support subscripting", arg.Type())
	}
	if ix.IsSlice {
		return b.arraySlice(arg, ix, sc, ctx) // arrayslice.go
	}
	i, err := b.subscript(ix.Uidx, sc, ctx)
	if err != nil {
		return nil, err
	}
	return &Func{Name: "subscript", Args: []Scalar{arg, i}, T: ElemType(arg.Type())}, nil
}

// subscript binds an array subscript: int4 (int8 cast to it, 22003
// past its range; other types refused).
func (b *binder) subscript(n *pg.Node, sc *scope, ctx *exprCtx) (Scalar, error) {
	i, err := b.expr(n, sc, ctx)
	if err != nil {
		return nil, err
	}
	i = coerce(i, T(Int4))
	b.noteParam(i)
	switch i.Type().OID {
	case Int2, Int4:
	case Int8:
		i = &Cast{Arg: i, T: T(Int4)} // assignment cast: 22003 past int4
	default:
		return nil, unsupported("an array subscript of type "+i.Type().String(), -1)
	}
	return i, nil
}

// anyAll binds x op ANY (array) / ALL (array).
func (b *binder) anyAll(a *pg.A_Expr, all bool, sc *scope, ctx *exprCtx) (Scalar, error) {
	op := opName(a.Name)
	if op == "!=" {
		op = "<>"
	}
	if sl := a.Rexpr.GetSubLink(); sl != nil && sl.SubLinkType != pg.SubLinkType_ARRAY_SUBLINK && sl.SubLinkType != pg.SubLinkType_EXPR_SUBLINK {
		// x op ANY (ARRAY(SELECT …)) and x op ANY ((SELECT arr …)) are
		// arrays like any other (PostgreSQL's ScalarArrayOpExpr over a
		// SubPlan); x op ANY (SELECT …) is a SubLink of its own, not here.
		return nil, unsupported("ANY/ALL over this subquery", a.Location)
	}
	l, err := b.expr(a.Lexpr, sc, ctx)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(a.Rexpr, sc, ctx)
	if err != nil {
		return nil, err
	}
	if sq, ok := r.(*Subquery); ok && sq.Kind == SubArray {
		sq.Unordered = true // bound just now: ANY/ALL's answer does not depend on the elements' order
	}
	if r.Type().OID == Unknown {
		lt := l.Type()
		if lt.OID == Unknown {
			lt = T(Text)
			l = coerce(l, lt)
		}
		at := ArrayType(T(lt.OID))
		if at.OID == 0 {
			return nil, unsupported("arrays of "+lt.String(), a.Location)
		}
		r = coerce(r, at)
		b.noteParam(r)
	}
	if !IsArray(r.Type()) {
		return nil, errorf(CodeWrongObjectType, "op ANY/ALL (array) requires array on right side").at(a.Location)
	}
	if !comparisons[op] {
		return nil, unsupported("operator "+op+" with ANY/ALL", a.Location)
	}
	elem := ElemType(r.Type())
	cmp, err := b.binary(op, l, &Const{T: elem, Null: true}, a.Location)
	if err != nil {
		return nil, err
	}
	o, ok := cmp.(*Op)
	if !ok || o.Args[1].Type().OID != elem.OID && !bpcharElems(o, elem) {
		return nil, unsupported("ANY/ALL comparing "+l.Type().String()+" with "+r.Type().String(), a.Location)
	}
	name := op + " ANY"
	if all {
		name = op + " ALL"
	}
	return &Func{Name: name, Args: []Scalar{o.Args[0], r}, T: T(Bool)}, nil
}

// bpcharElems says whether o compares character(n) with an element of
// character varying that bpcharOperands made character(n): PostgreSQL
// casts the array to bpchar[] and compares with bpchar's operators,
// trailing blanks not counting ('a'::char(3) = ANY (ARRAY['a '::varchar])
// is true), as sql/exec compares a bpchar with a varchar (bpcharPair).
func bpcharElems(o *Op, elem Type) bool {
	return elem.OID == Varchar && o.Args[0].Type().OID == Bpchar && o.Args[1].Type().OID == Bpchar
}

// arrayCall binds the array functions (arrayFuncs); found is false for
// other names.
func (b *binder) arrayCall(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, bool, error) {
	if (name == "array_position" || name == "array_positions") && len(f.Funcname) <= 2 {
		e, err := b.arrayPosition(name, f, sc, ctx) // arraypos.go
		return e, true, err
	}
	if (name == "array_cat" || name == "array_append" || name == "array_prepend") && len(f.Funcname) <= 2 {
		e, err := b.arrayConcatCall(name, f, sc, ctx) // arrayconcat.go
		return e, true, err
	}
	if (name == "array_remove" || name == "array_replace") && len(f.Funcname) <= 2 {
		e, err := b.arrayEdit(name, f, sc, ctx) // arrayedit.go
		return e, true, err
	}
	if !arrayFuncs[name] || len(f.Funcname) > 2 {
		return nil, false, nil
	}
	if f.FuncVariadic || len(f.Args) == 0 {
		return nil, true, unsupported("this call of "+name, f.Location)
	}
	out := &Func{Name: name}
	for _, a := range f.Args {
		e, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, true, err
		}
		out.Args = append(out.Args, e)
	}
	want := map[string][]int{"array_length": {2}, "cardinality": {1}, "array_upper": {2}, "array_lower": {2},
		"array_ndims": {1}, "array_dims": {1}, "array_to_string": {2, 3}}[name]
	if len(out.Args) < want[0] || len(out.Args) > want[len(want)-1] {
		return nil, true, errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(out.Args)).at(f.Location)
	}
	at := out.Args[0].Type()
	if at.OID == Unknown {
		return nil, true, errorf(CodeDatatypeMismatch, "could not determine polymorphic type because input has type unknown").at(f.Location)
	}
	if !IsArray(at) {
		return nil, true, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, at).at(f.Location)
	}
	rest := T(Int4)
	switch name {
	case "array_to_string":
		rest, out.T = T(Text), T(Text)
	case "array_dims":
		out.T = T(Text)
	default:
		out.T = T(Int4)
	}
	for i := 1; i < len(out.Args); i++ {
		out.Args[i] = coerce(out.Args[i], rest)
		b.noteParam(out.Args[i])
		t := out.Args[i].Type().OID
		if rest.OID == Int4 && t != Int4 && t != Int2 || rest.OID == Text && !isString(t) {
			return nil, true, unsupported(name+" with an argument of type "+out.Args[i].Type().String(), f.Location)
		}
	}
	return out, true, nil
}

// arrayConcat binds || with an array operand: array || array
// (array_cat; an untyped literal or NULL is read as the other side's
// array type), array || element (array_append), element || array
// (array_prepend). Operands of different types are refused (PostgreSQL
// would find their common type).
func (b *binder) arrayConcat(l, r Scalar, loc int32) (Scalar, error) {
	l, r = b.typeUntypedOperand(l, r)
	lt, rt := l.Type(), r.Type()
	f := &Func{Args: []Scalar{l, r}}
	switch {
	case lt.OID == rt.OID:
		f.Name, f.T = "array_cat", T(lt.OID)
	case IsArray(lt) && ElemType(lt).OID == rt.OID:
		f.Name, f.T = "array_append", T(lt.OID)
	case IsArray(rt) && ElemType(rt).OID == lt.OID:
		f.Name, f.T = "array_prepend", T(rt.OID)
	default:
		return nil, unsupported("|| of "+lt.String()+" and "+rt.String(), loc)
	}
	return f, nil
}

// arrayAgg binds array_agg's own rules on ae (its one argument bound):
// an argument of unknown type, DISTINCT and arrays of arrays are
// refused; ORDER BY keys are bound and appended to Args.
func (b *binder) arrayAgg(ae *AggExpr, f *pg.FuncCall, sc *scope, ctx *exprCtx) error {
	t := ae.Args[0].Type()
	switch {
	case t.OID == Unknown:
		return unsupported("array_agg of an untyped literal", f.Location)
	case IsArray(t):
		return unsupported("array_agg of arrays (multidimensional arrays)", f.Location)
	}
	if err := b.aggOrderBy(ae, f, sc, ctx); err != nil {
		return err
	}
	if ae.Distinct {
		// DISTINCT sorts by the ORDER BY keys, which must be the
		// argument (42P10), or by the argument ascending; the executor
		// drops repeats (sql/exec's arrayAgg).
		if err := distinctOrderKeys(ae, ae.Args[:1], f.Location); err != nil {
			return err
		}
		if len(ae.Order) == 0 {
			ae.Args, ae.Order = append(ae.Args, ae.Args[0]), []AggOrder{{}}
		}
	}
	return nil
}

// distinctOrderKeys checks that every ORDER BY key of a DISTINCT
// aggregate is one of its arguments args (as written, before the
// argument's implicit coercion), PostgreSQL's rule.
func distinctOrderKeys(ae *AggExpr, args []Scalar, loc int32) error {
	for _, k := range ae.Args[len(ae.Args)-len(ae.Order):] {
		found := false
		for _, a := range args {
			found = found || Equal(k, a)
		}
		if !found {
			return errorf("42P10", "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list").at(loc)
		}
	}
	return nil
}

// aggOrderBy binds the ORDER BY inside an aggregate call: its keys are
// appended to ae.Args, their directions to ae.Order.
func (b *binder) aggOrderBy(ae *AggExpr, f *pg.FuncCall, sc *scope, ctx *exprCtx) error {
	for _, n := range f.AggOrder {
		sb := n.GetSortBy()
		if sb.UseOp != nil {
			return unsupported("ORDER BY … USING inside an aggregate", f.Location)
		}
		k, err := b.expr(sb.Node, sc, ctx)
		if err != nil {
			return err
		}
		if k.Type().OID == Unknown {
			k = coerce(k, T(Text))
		}
		desc := sb.SortbyDir == pg.SortByDir_SORTBY_DESC
		nullsFirst := desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			nullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			nullsFirst = false
		}
		ae.Args = append(ae.Args, k)
		ae.Order = append(ae.Order, AggOrder{Desc: desc, NullsFirst: nullsFirst})
	}
	return nil
}

// arraySubLink binds ARRAY(SELECT …): the values of its one column in
// the order of its rows, '{}' when it has none. PostgreSQL gives them in
// its plan's order; the executor follows the subquery's ORDER BY, so
// its keys go into the plan's output (Subquery.Keys) for the executor
// to refuse rows they leave tied (sql/exec). LIMIT and OFFSET are
// refused: which of tied rows they keep is PostgreSQL's sort's choice.
func (b *binder) arraySubLink(sq *Subquery, cols []ColumnID, loc int32) (Scalar, error) {
	if len(cols) != 1 {
		return nil, errorf(CodeSyntax, "subquery must return only one column").at(loc)
	}
	t := b.md.Column(cols[0]).Type
	if IsArray(t) {
		return nil, unsupported("ARRAY(SELECT …) of arrays (a multidimensional array)", loc)
	}
	at := ArrayType(t)
	if at.OID == 0 || t.OID == Unknown {
		return nil, unsupported("arrays of "+t.String(), loc)
	}
	sq.Kind, sq.T, sq.Col = SubArray, at, &ColRef{ID: cols[0], T: t}
	top, _ := sq.Plan.(*Project)
	in := sq.Plan
	if top != nil {
		in = top.Input
	}
	if _, ok := in.(*Limit); ok {
		return nil, unsupported("ARRAY(SELECT …) with LIMIT or OFFSET", loc)
	}
	s, ok := in.(*Sort)
	if !ok {
		return sq, nil
	}
	sq.Keys = s.Keys
	if top != nil {
		p := &Project{Input: s, Cols: append([]ColumnID(nil), top.Cols...), Exprs: append([]Scalar(nil), top.Exprs...)}
		for _, k := range s.Keys {
			if !slices.Contains(p.Cols, k.Col) {
				p.Cols, p.Exprs = append(p.Cols, k.Col), append(p.Exprs, &ColRef{ID: k.Col, T: b.md.Column(k.Col).Type})
			}
		}
		sq.Plan = p
	}
	return sq, nil
}

// typeUntypedOperand gives an untyped operand (literal or parameter) of
// an array operator the other operand's type, as PostgreSQL's operator
// resolution does for anyarray, and records a parameter's type.
func (b *binder) typeUntypedOperand(l, r Scalar) (Scalar, Scalar) {
	switch {
	case l.Type().OID == Unknown:
		l = coerce(l, T(r.Type().OID))
	case r.Type().OID == Unknown:
		r = coerce(r, T(l.Type().OID))
	}
	b.noteParam(l)
	b.noteParam(r)
	return l, r
}
