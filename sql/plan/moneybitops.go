package plan

import "github.com/sidecar-dev/sidecar/types"

// bitOID is the bit type (a B'…' constant's).
const bitOID = types.Bit

// isBitString says whether t is bit or bit varying.
func isBitString(t OID) bool { return t == types.Bit || t == types.Varbit }

// moneyBitOperator binds the operators the binder types itself when an
// operand is money or a bit string: money + - money (cash_pl, cash_mi),
// money * / a number and number * money (cash_mul_flt8, …: an untyped
// literal opposite is float8, the numeric category's preferred type,
// and numeric reaches float8 by its implicit cast), money / money
// (cash_div_cash, float8), bit || bit (bitcat), and the comparisons of
// bit with bit varying (binary coercible both ways). Other operators on
// bit strings (& | # << >> ~) are the library's. ok=false for other
// operators and types.
func (b *binder) moneyBitOperator(op string, l, r Scalar, loc int32) (e Scalar, ok bool, err error) {
	lt, rt := l.Type().OID, r.Type().OID
	switch {
	case lt == types.Money || rt == types.Money:
		return b.moneyOperator(op, l, r, loc)
	case op == "||" && (isBitString(lt) || isBitString(rt)) && (isBitString(lt) || lt == Unknown) && (isBitString(rt) || rt == Unknown):
		return b.callOperator("bitcat", coerce(l, T(types.Varbit)), coerce(r, T(types.Varbit)), loc)
	case comparisons[op] && isBitString(lt) && isBitString(rt) && lt != rt:
		return &Op{Op: op, Args: []Scalar{l, r}, T: T(Bool)}, true, nil
	}
	return nil, false, nil
}

// moneyOperator is moneyBitOperator's money arithmetic.
func (b *binder) moneyOperator(op string, l, r Scalar, loc int32) (Scalar, bool, error) {
	lt, rt := l.Type().OID, r.Type().OID
	number := func(t OID) (string, OID, bool) {
		switch t {
		case Int2:
			return "int2", Int2, true
		case Int4:
			return "int4", Int4, true
		case Int8:
			return "int8", Int8, true
		case Float4:
			return "flt4", Float4, true
		case Float8, Numeric, Unknown:
			return "flt8", Float8, true
		}
		return "", 0, false
	}
	switch op {
	case "+", "-":
		if (lt == types.Money || lt == Unknown) && (rt == types.Money || rt == Unknown) {
			fn := map[string]string{"+": "cash_pl", "-": "cash_mi"}[op]
			return b.callOperator(fn, coerce(l, T(types.Money)), coerce(r, T(types.Money)), loc)
		}
	case "*":
		if lt == types.Money {
			if name, t, ok := number(rt); ok {
				return b.callOperator("cash_mul_"+name, l, coerce(r, T(t)), loc)
			}
		} else if name, t, ok := number(lt); ok && rt == types.Money {
			return b.callOperator(name+"_mul_cash", coerce(l, T(t)), r, loc)
		}
	case "/":
		if lt == types.Money && rt == types.Money {
			return b.callOperator("cash_div_cash", l, r, loc)
		}
		if lt == types.Money {
			if name, t, ok := number(rt); ok {
				return b.callOperator("cash_div_"+name, l, coerce(r, T(t)), loc)
			}
		}
	default:
		if comparisons[op] && (lt == types.Money || lt == Unknown) && (rt == types.Money || rt == Unknown) {
			l, r = coerce(l, T(types.Money)), coerce(r, T(types.Money))
			b.noteParam(l)
			b.noteParam(r)
			return &Op{Op: op, Args: []Scalar{l, r}, T: T(Bool)}, true, nil
		}
		return nil, false, nil
	}
	return nil, true, errorf(CodeUndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, r.Type()).at(loc)
}

// callOperator binds an operator as the call of the library's function
// fn over its two (already typed) operands.
func (b *binder) callOperator(fn string, l, r Scalar, loc int32) (Scalar, bool, error) {
	b.noteParam(l)
	b.noteParam(r)
	call, err := b.functions().Resolve(fn, []OID{l.Type().OID, r.Type().OID})
	if err != nil {
		return nil, true, libraryErr(err).at(loc)
	}
	return &Func{Name: fn, Args: []Scalar{l, r}, T: T(call.Result), Call: call}, true, nil
}
