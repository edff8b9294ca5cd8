package plan

import pg "github.com/pganalyze/pg_query_go/v6"

// arrayConcatCall binds array_cat(a, b), array_append(a, e) and
// array_prepend(e, a) called by name: the functions behind ||'s array
// forms (arrayConcat), with PostgreSQL's anycompatible resolution for
// the cases it settles without a common-type search — an untyped
// literal or parameter takes the other argument's array (or element)
// type, two untyped ones text's (array_cat('{1}', '{2}') is text[]); arguments of
// different types are refused (PostgreSQL would look for their common
// type). They were refused by name ("not supported by sidecar's SQL
// engine") while `a || b` answered.
func (b *binder) arrayConcatCall(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, error) {
	if f.FuncVariadic || len(f.AggOrder) > 0 || f.AggFilter != nil || f.Over != nil || f.AggStar || f.AggDistinct {
		return nil, unsupported("this call of "+name, f.Location)
	}
	if len(f.Args) != 2 {
		return nil, errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(f.Args)).at(f.Location)
	}
	var args [2]Scalar
	for i, a := range f.Args {
		e, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	l, r := args[0], args[1]
	if l.Type().OID == Unknown && r.Type().OID == Unknown {
		// anycompatible over untyped arguments only resolves to text.
		ta := ArrayType(T(Text))
		switch name {
		case "array_cat":
			l, r = coerce(l, ta), coerce(r, ta)
		case "array_append":
			l, r = coerce(l, ta), coerce(r, T(Text))
		default:
			l, r = coerce(l, T(Text)), coerce(r, ta)
		}
		args = [2]Scalar{l, r}
	}
	arr, elem := 0, 1 // array_append: (array, element)
	switch name {
	case "array_prepend":
		arr, elem = 1, 0
	case "array_cat":
		l, r = b.typeUntypedOperand(l, r)
		if lt, rt := l.Type(), r.Type(); lt != rt && lt.OID != rt.OID || !IsArray(lt) {
			return nil, unsupported(name+"("+lt.String()+", "+rt.String()+")", f.Location)
		}
		return &Func{Name: name, Args: []Scalar{l, r}, T: T(l.Type().OID)}, nil
	}
	a, e := args[arr], args[elem]
	switch {
	case a.Type().OID == Unknown:
		at := ArrayType(T(e.Type().OID))
		if at.OID == 0 {
			return nil, unsupported("arrays of "+e.Type().String(), f.Location)
		}
		a = coerce(a, at)
	case e.Type().OID == Unknown && IsArray(a.Type()):
		e = coerce(e, ElemType(a.Type()))
	}
	b.noteParam(a)
	b.noteParam(e)
	if !IsArray(a.Type()) || ElemType(a.Type()).OID != e.Type().OID {
		return nil, unsupported(name+" of "+a.Type().String()+" and "+e.Type().String(), f.Location)
	}
	out := &Func{Name: name, Args: make([]Scalar, 2), T: T(a.Type().OID)}
	out.Args[arr], out.Args[elem] = a, e
	return out, nil
}
