package plan

import pg "github.com/pganalyze/pg_query_go/v6"

// arrayPosition binds array_position(anycompatiblearray, anycompatible
// [, int4]) → int4 and array_positions(anycompatiblearray,
// anycompatible) → int4[]: the array and the element are brought to
// their common type as PostgreSQL's anycompatible resolution does (an
// untyped literal takes the other's type; both untyped: text); the
// executor searches with IS NOT DISTINCT FROM (sql/exec/arraypos.go).
func (b *binder) arrayPosition(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, error) {
	args, err := b.plainArgs(name, f, sc, ctx) // arraypos.go
	if err != nil {
		return nil, err
	}
	maxArgs := 3
	if name == "array_positions" {
		maxArgs = 2
	}
	if len(args) < 2 || len(args) > maxArgs {
		return nil, errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args)).at(f.Location)
	}
	a, x := args[0], args[1]
	at, xt := a.Type(), x.Type()
	switch {
	case at.OID == Unknown && xt.OID == Unknown:
		a, x = coerce(a, ArrayType(T(Text))), coerce(x, T(Text))
	case at.OID == Unknown:
		a = coerce(a, ArrayType(T(xt.OID)))
	case !IsArray(at):
		return nil, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, callTypes(args)).at(f.Location)
	case xt.OID == Unknown:
		x = coerce(x, ElemType(T(at.OID)))
	}
	at, xt = a.Type(), x.Type()
	if at.OID == 0 || !IsArray(at) {
		return nil, unsupported(name+" over arrays of "+xt.String(), f.Location)
	}
	if et := ElemType(T(at.OID)); et.OID != xt.OID {
		common, err := commonType([]Type{et, T(xt.OID)})
		if err != nil {
			return nil, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, callTypes(args)).at(f.Location)
		}
		if ArrayType(common).OID == 0 {
			return nil, unsupported(name+" over arrays of "+common.String(), f.Location)
		}
		a, x = cast(a, ArrayType(T(common.OID))), cast(x, T(common.OID))
	}
	out := &Func{Name: name, Args: []Scalar{a, x}, T: T(Int4)}
	if name == "array_positions" {
		out.T = ArrayType(T(Int4))
	}
	if len(args) == 3 {
		s := coerce(args[2], T(Int4))
		if o := s.Type().OID; o == Int2 || o == Int8 {
			if o == Int8 {
				return nil, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, callTypes(args)).at(f.Location)
			}
			s = cast(s, T(Int4))
		} else if o != Int4 {
			return nil, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, callTypes(args)).at(f.Location)
		}
		out.Args = append(out.Args, s)
	}
	for _, e := range out.Args {
		b.noteParam(e)
	}
	return out, nil
}

// callTypes is the argument types as a call's error message lists them.
func callTypes(args []Scalar) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a.Type().String()
	}
	return s
}

// plainArgs binds a call's positional arguments; VARIADIC is refused
// (the array functions bound by hand take fixed arguments).
func (b *binder) plainArgs(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) ([]Scalar, error) {
	if f.FuncVariadic {
		return nil, unsupported("this call of "+name, f.Location)
	}
	var args []Scalar
	for _, a := range f.Args {
		e, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return args, nil
}
