package plan

// NotInCondition is the condition of the anti join that `a NOT IN
// (SELECT b …)` is as a filter's conjunct (sql/opt notin.go):
// `a = b OR a IS NULL OR b IS NULL`. A row of the left side is dropped
// when one row of the right side makes it true (equal, or either side
// NULL) and kept when the right side has no row: NOT IN's answer under
// PostgreSQL's NULL rules, whichever way it is evaluated.
func NotInCondition(a Scalar, b *ColRef) Scalar {
	eq := &Op{Op: "=", Args: []Scalar{a, b}, T: T(Bool)}
	return &BoolOp{Op: "OR", Args: []Scalar{eq, &IsNull{Arg: a}, &IsNull{Arg: b}}}
}

// NotInEquality is the equality of a NotInCondition (nil when on has
// another shape): what a hash anti join that keeps NOT IN's NULL rules
// (sql/exec joinnull.go) joins on.
func NotInEquality(on Scalar) *Op {
	or, ok := on.(*BoolOp)
	if !ok || or.Op != "OR" || len(or.Args) != 3 {
		return nil
	}
	eq, ok := or.Args[0].(*Op)
	if !ok || eq.Op != "=" || len(eq.Args) != 2 {
		return nil
	}
	for k, arg := range or.Args[1:] {
		n, ok := arg.(*IsNull)
		if !ok || n.Not || !Equal(n.Arg, eq.Args[k]) {
			return nil
		}
	}
	return eq
}
