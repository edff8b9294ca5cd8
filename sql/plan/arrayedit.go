package plan

import pg "github.com/pganalyze/pg_query_go/v6"

// arrayEdit binds array_remove(anycompatiblearray, anycompatible) and
// array_replace(anycompatiblearray, anycompatible, anycompatible) →
// anycompatiblearray: the array's element type and the other arguments
// are brought to their common type as PostgreSQL's anycompatible
// resolution does (untyped literals take it; all untyped: text); no
// common type is 42883 as PostgreSQL finds no candidate. The executor
// compares with IS NOT DISTINCT FROM (sql/exec/arrayedit.go).
func (b *binder) arrayEdit(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, error) {
	args, err := b.plainArgs(name, f, sc, ctx) // arraypos.go
	if err != nil {
		return nil, err
	}
	want := 2
	if name == "array_replace" {
		want = 3
	}
	if len(args) != want {
		return nil, errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args)).at(f.Location)
	}
	noFunc := func() error {
		return errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, callTypes(args)).at(f.Location)
	}
	at := args[0].Type()
	if at.OID != Unknown && !IsArray(at) {
		return nil, noFunc()
	}
	var ts []Type
	if at.OID != Unknown {
		ts = append(ts, T(ElemType(at).OID))
	}
	for _, e := range args[1:] {
		ts = append(ts, T(e.Type().OID))
	}
	elem, err := commonType(ts)
	if err != nil {
		return nil, noFunc()
	}
	arr := ArrayType(elem)
	if arr.OID == 0 {
		return nil, unsupported(name+" over arrays of "+elem.String(), f.Location)
	}
	out := &Func{Name: name, T: arr}
	for i, e := range args {
		t := elem
		if i == 0 {
			t = arr
		}
		if e.Type().OID == Unknown {
			switch e.(type) {
			case *Const, *Param:
				e = coerce(e, t)
			default: // ARRAY[]: PostgreSQL cannot type it either
				return nil, errorf(CodeIndeterminateType, "cannot determine type of empty array").at(f.Location)
			}
		} else if e.Type().OID != t.OID {
			e = cast(e, t)
		}
		b.noteParam(e)
		out.Args = append(out.Args, e)
	}
	return out, nil
}
