package plan

// arrayContainment binds the array operators @> (arraycontains), <@
// (arraycontained) and && (arrayoverlap): both operands arrays of one
// element type (an untyped literal takes the other side's type), the
// result bool. The executor compares elements with the element type's
// equality (sql/exec/arraycontain.go).
func (b *binder) arrayContainment(op string, l, r Scalar, loc int32) (Scalar, error) {
	l, r = b.typeUntypedOperand(l, r) // array.go
	lt, rt := l.Type(), r.Type()
	if !IsArray(lt) || lt.OID != rt.OID {
		return nil, errorf(CodeUndefinedFunction, "operator does not exist: %s %s %s", lt, op, rt).at(loc)
	}
	name := map[string]string{"@>": "arraycontains", "<@": "arraycontained", "&&": "arrayoverlap"}[op]
	return &Func{Name: name, Args: []Scalar{l, r}, T: T(Bool)}, nil
}
