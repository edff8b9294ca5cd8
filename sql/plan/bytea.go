package plan

// byteaOperator binds || and LIKE / NOT LIKE between bytea operands (an
// untyped literal opposite bytea is read as bytea, PostgreSQL's first
// operator-resolution rule) as calls of byteacat, bytealike and
// byteanlike (sql/builtin/bytea.go). ok=false for other operators and
// types.
func (b *binder) byteaOperator(op string, l, r Scalar, loc int32) (e Scalar, ok bool, err error) {
	fn := map[string]string{"||": "byteacat", "~~": "bytealike", "!~~": "byteanlike"}[op]
	lt, rt := l.Type().OID, r.Type().OID
	if fn == "" || !(lt == Bytea && (rt == Bytea || rt == Unknown) || lt == Unknown && rt == Bytea) {
		return nil, false, nil
	}
	l, r = coerce(l, T(Bytea)), coerce(r, T(Bytea))
	b.noteParam(l)
	b.noteParam(r)
	call, err := b.functions().Resolve(fn, []OID{Bytea, Bytea})
	if err != nil {
		return nil, true, libraryErr(err).at(loc)
	}
	return &Func{Name: fn, Args: []Scalar{l, r}, T: T(call.Result), Call: call}, true, nil
}
