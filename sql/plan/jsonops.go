package plan

// jsonbOperator binds jsonb || jsonb and jsonb - text / integer /
// text[] (ok false for other operands): PostgreSQL's operators, called
// as the library's jsonb_concat and jsonb_delete. An untyped literal
// opposite jsonb is jsonb for || and text for - (the operators
// PostgreSQL's resolution picks).
func (b *binder) jsonbOperator(op string, l, r Scalar, loc int32) (Scalar, bool, error) {
	lt, rt := l.Type().OID, r.Type().OID
	var name string
	switch {
	case op == "||" && (lt == JSONB && (rt == JSONB || rt == Unknown) || lt == Unknown && rt == JSONB):
		l, r, name = coerce(l, T(JSONB)), coerce(r, T(JSONB)), "jsonb_concat"
	case op == "-" && lt == JSONB:
		if rt == Unknown {
			r = coerce(r, T(Text))
		}
		name = "jsonb_delete"
	default:
		return nil, false, nil
	}
	b.noteParam(l)
	b.noteParam(r)
	args := []OID{l.Type().OID, r.Type().OID}
	call, err := b.functions().Resolve(name, args)
	if err != nil {
		return nil, true, errorf(CodeUndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, r.Type()).at(loc)
	}
	return &Func{Name: name, Args: []Scalar{l, r}, T: T(call.Result), Call: call}, true, nil
}
