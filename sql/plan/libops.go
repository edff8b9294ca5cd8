package plan

// libraryOperator binds an operator the binder does not type itself
// (binary(): comparisons, LIKE, ||, arithmetic) as a call of the function
// PostgreSQL's function library implements it with, resolved as
// PostgreSQL's operator resolution does (builtin.ResolveOperator): the
// regular-expression matches ~ !~ ~* !~*, bitwise & | # << >> and prefix
// ~, ^, @, |/ … — the same implementation the flat path runs. args is
// one operand for a prefix operator. It refuses (0A000) an operator the
// library does not have.
func (b *binder) libraryOperator(op string, args []Scalar, loc int32) (Scalar, error) {
	reg := b.functions()
	if !reg.HasOperator(op, len(args) == 1) {
		if len(args) == 1 {
			return nil, unsupported("prefix operator "+op, loc)
		}
		return nil, unsupported("operator "+op, loc)
	}
	argTypes := make([]OID, len(args))
	for i, a := range args {
		argTypes[i] = a.Type().OID
	}
	call, err := reg.ResolveOperator(op, argTypes)
	if err != nil {
		return nil, libraryErr(err).at(loc)
	}
	out := &Func{Name: call.Func.Name, Args: append([]Scalar(nil), args...), T: T(call.Result), Call: call}
	for i, a := range out.Args {
		if argTypes[i] == Unknown {
			out.Args[i] = coerce(a, T(call.Params[i]))
			b.noteParam(out.Args[i])
			call.Args[i] = call.Params[i]
		}
	}
	return out, nil
}

// libraryOp says whether binary() hands op to libraryOperator rather
// than typing it itself.
func libraryOp(op string) bool {
	switch op {
	case "=", "<>", "!=", "<", "<=", ">", ">=", "~~", "!~~", "~~*", "!~~*", "||", "+", "-", "*", "/", "%":
		return false
	}
	return true
}

// hasExactOperator says whether the library has op taking two operands
// of type t.
func (b *binder) hasExactOperator(op string, t OID) bool {
	reg := b.functions()
	if !reg.HasOperator(op, false) {
		return true // libraryOperator refuses it; the coercion does not matter
	}
	call, err := reg.ResolveOperator(op, []OID{t, t})
	return err == nil && call.Params[0] == t && call.Params[1] == t
}
