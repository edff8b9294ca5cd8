package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// ExtFunc is a scalar function the Catalog supplies rather than the
// planner's own library: the system functions that answer from the
// catalog the statement is planned against (format_type, pg_get_expr,
// pg_table_is_visible, … of the front end's pg_catalog). Eval runs on
// non-NULL arguments of the Args types unless NullOK, when NULL
// arguments reach it too.
type ExtFunc struct {
	Args   []Type
	Result Type
	NullOK bool
	Eval   func(args []types.Value) (types.Value, error)
}

// FuncCatalog is a Catalog that supplies functions too: Func returns
// the function name(args) (nil, nil: the catalog has none of that
// name, the planner's library is tried; an error: it has, but not for
// these arguments).
type FuncCatalog interface {
	// HasFunc says whether the catalog supplies functions of this name
	// (then the library is not consulted).
	HasFunc(name string) bool
	Func(name string, args []Type) (*ExtFunc, error)
}

// extFuncCall binds f to the catalog's function of its name, if the
// catalog has functions of that name (found false: it has none).
func (b *binder) extFuncCall(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, bool, error) {
	fc, ok := b.cat.(FuncCatalog)
	if !ok || !fc.HasFunc(name) {
		return nil, false, nil
	}
	var args []Scalar
	ts := make([]Type, len(f.Args))
	for i, a := range f.Args {
		if i == 0 && name == "pg_get_viewdef" {
			a = regclassLiteralName(a)
		}
		e, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, false, err
		}
		args = append(args, e)
		ts[i] = e.Type()
	}
	ext, err := fc.Func(name, ts)
	if err != nil {
		if pe, ok := err.(*Error); ok {
			return nil, false, pe.at(f.Location)
		}
		return nil, false, err
	}
	if ext == nil {
		return nil, false, nil
	}
	out := &Func{Name: name, T: ext.Result, Ext: ext}
	for i, a := range args {
		if i < len(ext.Args) && a.Type() != ext.Args[i] {
			if a = coerce(a, ext.Args[i]); a.Type() != ext.Args[i] {
				a = cast(a, ext.Args[i])
			}
		}
		out.Args = append(out.Args, a)
	}
	return out, true, nil
}

// regclassLiteralName is the string literal of 'name'::regclass, a
// otherwise. pg_get_viewdef('v'::regclass) reads the view its name
// resolves to as pg_get_viewdef('v') does (regclassin and the text form
// both resolve the name with RangeVarGetRelid, with the same error for
// a missing one); the catalog resolves views by name, not through
// regclass, which does not resolve views.
func regclassLiteralName(a *pg.Node) *pg.Node {
	tc := a.GetTypeCast()
	if tc == nil || tc.TypeName == nil || len(tc.TypeName.Typmods) > 0 || len(tc.TypeName.ArrayBounds) > 0 || tc.Arg.GetAConst().GetSval() == nil {
		return a
	}
	var names []string
	for _, n := range tc.TypeName.Names {
		names = append(names, n.GetString_().GetSval())
	}
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	if len(names) != 1 || names[0] != "regclass" {
		return a
	}
	return tc.Arg
}

// ExtError is an error a FuncCatalog returns: PostgreSQL's SQLSTATE and
// message.
func ExtError(code, format string, args ...any) error { return errorf(code, format, args...) }

// oidCoerce casts an int2 or int4 e to oid when t, the common type of
// an IN list, is oid (oid IN (16, 17): PostgreSQL's implicit cast).
func oidCoerce(e Scalar, t Type) Scalar {
	if o := e.Type().OID; t.OID == Oid && (o == Int2 || o == Int4) {
		return cast(e, T(Oid))
	}
	return e
}

// oidOperands applies PostgreSQL's implicit casts between oid and the
// integers in a comparison: int2 and int4 become oid (oid = 16390), oid
// becomes int8 opposite an int8.
func oidOperands(l, r Scalar) (Scalar, Scalar) {
	lt, rt := l.Type().OID, r.Type().OID
	small := func(o OID) bool { return o == Int2 || o == Int4 }
	switch {
	case lt == Oid && small(rt):
		r = cast(r, T(Oid))
	case rt == Oid && small(lt):
		l = cast(l, T(Oid))
	case lt == Oid && rt == Int8:
		l = cast(l, T(Int8))
	case rt == Oid && lt == Int8:
		r = cast(r, T(Int8))
	}
	return l, r
}
