package plan

import "github.com/sidecar-dev/sidecar/types"

// isNetwork says whether t is inet or cidr.
func isNetwork(t OID) bool { return t == types.Inet || t == types.Cidr }

// inetOperator binds the operators the binder types itself when an
// operand is inet or cidr: inet + int8 (inetpl), int8 + inet
// (int8pl_inet), inet - int8 (inetmi_int8), inet - inet (inetmi), and
// the comparisons between inet and cidr (cidr is binary coercible to
// inet: both sides compare as inet). An untyped literal opposite takes
// the type PostgreSQL's resolution gives it: inet for - and the
// comparisons, int8 for +. ok=false for other operators and types.
func (b *binder) inetOperator(op string, l, r Scalar, loc int32) (e Scalar, ok bool, err error) {
	lt, rt := l.Type().OID, r.Type().OID
	if mac := map[OID]bool{types.Macaddr: true, types.Macaddr8: true}; mac[lt] && mac[rt] && lt != rt && comparisons[op] {
		// macaddr and macaddr8 cast to each other implicitly: PostgreSQL
		// cannot choose between their operators.
		return nil, true, errorf("42725", "operator is not unique: %s %s %s", l.Type(), op, r.Type()).at(loc)
	}
	if !isNetwork(lt) && !isNetwork(rt) {
		return nil, false, nil
	}
	asInet := func(s Scalar) Scalar {
		if s.Type().OID == types.Cidr {
			return &Cast{Arg: s, T: T(types.Inet)}
		}
		return coerce(s, T(types.Inet))
	}
	var fn string
	var args []Scalar
	switch {
	case comparisons[op]:
		if isNetwork(lt) && isNetwork(rt) && lt != rt || isNetwork(lt) && rt == Unknown || lt == Unknown && isNetwork(rt) {
			l, r = asInet(l), asInet(r)
			b.noteParam(l)
			b.noteParam(r)
			return &Op{Op: op, Args: []Scalar{l, r}, T: T(Bool)}, true, nil
		}
		return nil, false, nil
	case op == "+" && isNetwork(lt) && (isInteger(rt) || rt == Unknown):
		fn, args = "inetpl", []Scalar{l, coerce(r, T(Int8))}
	case op == "+" && (isInteger(lt) || lt == Unknown) && isNetwork(rt):
		fn, args = "int8pl_inet", []Scalar{coerce(l, T(Int8)), r}
	case op == "-" && isNetwork(lt) && isInteger(rt):
		fn, args = "inetmi_int8", []Scalar{l, r}
	case op == "-" && isNetwork(lt) && (isNetwork(rt) || rt == Unknown):
		fn, args = "inetmi", []Scalar{l, coerce(r, T(types.Inet))}
	case op == "+" || op == "-" || op == "*" || op == "/" || op == "%":
		return nil, true, errorf(CodeUndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, r.Type()).at(loc)
	default:
		return nil, false, nil
	}
	for _, a := range args {
		b.noteParam(a)
	}
	params := []OID{args[0].Type().OID, args[1].Type().OID}
	call, err := b.functions().Resolve(fn, params)
	if err != nil {
		return nil, true, libraryErr(err).at(loc)
	}
	return &Func{Name: fn, Args: args, T: T(call.Result), Call: call}, true, nil
}

// isInteger is int2, int4 or int8.
func isInteger(t OID) bool { return t == Int2 || t == Int4 || t == Int8 }
