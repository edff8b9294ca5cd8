package types

import (
	"fmt"
	"math"
)

// ArithResult is the type PostgreSQL's + - * / % give for operands of
// types l and r among the numeric types (0 when there is no such
// operator): integers widen to the wider one, float4 op float4 stays
// float4, any other float makes float8, numeric with an integer stays
// numeric. Operands are converted to the result type before the
// arithmetic functions below run (ints in the result's range).
func ArithResult(op string, l, r OID) OID {
	rank := func(o OID) int {
		switch o {
		case Int2:
			return 1
		case Int4:
			return 2
		case Int8:
			return 3
		case Numeric:
			return 4
		case Float4:
			return 5
		case Float8:
			return 6
		}
		return 0
	}
	rl, rr := rank(l), rank(r)
	if rl == 0 || rr == 0 {
		return 0
	}
	var res OID
	switch {
	case l == Float4 && r == Float4:
		res = Float4
	case rl >= 5 || rr >= 5:
		res = Float8
	case rl == 4 || rr == 4:
		res = Numeric
	case rl >= rr:
		res = l
	default:
		res = r
	}
	if op == "%" && (res == Float4 || res == Float8) {
		return 0
	}
	return res
}

// AggResult is the result type of aggregate fn (count, sum, avg, min,
// max) over an argument of type arg, as pg_aggregate says; an error
// 42883 names a combination PostgreSQL does not have.
func AggResult(fn string, arg OID) (OID, error) {
	switch fn {
	case "count":
		return Int8, nil
	case "sum":
		switch arg {
		case Int2, Int4:
			return Int8, nil
		case Int8, Numeric:
			return Numeric, nil
		case Float4, Float8, Interval:
			return arg, nil
		case Time:
			return Interval, nil // time reaches sum(interval) by its implicit cast
		case Money:
			return Money, nil // cash_pl
		}
	case "avg":
		switch arg {
		case Int2, Int4, Int8, Numeric:
			return Numeric, nil
		case Float4, Float8:
			return Float8, nil
		case Interval, Time:
			return Interval, nil
		}
	case "min", "max":
		switch arg {
		case Int2, Int4, Int8, Float4, Float8, Numeric, Oid, Text, Bpchar, Date, Time, Timetz,
			Timestamp, Timestamptz, Interval:
			return arg, nil
		case Varchar, Name, Char:
			return Text, nil // varchar, name and "char" reach max(text) by their implicit cast
		case Inet, Cidr:
			return Inet, nil // network_smaller / network_larger; cidr by its binary coercion
		case Money:
			return Money, nil // cashsmaller / cashlarger
		}
	default:
		return 0, errorf(CodeUndefinedFunc, "function %s(%s) does not exist", fn, NameOf(arg))
	}
	return 0, errorf(CodeUndefinedFunc, "function %s(%s) does not exist", fn, NameOf(arg))
}

// intRange is PostgreSQL's "integer out of range" for type t.
func intRange(t OID) *Error {
	return errorf(CodeOutOfRange, "%s out of range", NameOf(t))
}

// Neg is unary minus on a value of numeric type t.
func Neg(t OID, v Value) (Value, error) {
	switch x := v.(type) {
	case int64:
		lo, _ := IntBounds(t)
		if x == lo {
			return nil, intRange(t)
		}
		return -x, nil
	case float64:
		return -x, nil
	case *Decimal:
		return NegDecimal(x), nil
	}
	return nil, errorf(CodeUndefinedFunc, "operator does not exist: - %s", NameOf(t))
}

// Arith applies + - * / % to two values of type t (as ArithResult gave),
// with PostgreSQL's overflow, division-by-zero and NaN rules.
func Arith(op string, t OID, a, b Value) (Value, error) {
	switch x := a.(type) {
	case int64:
		return intArith(op, t, x, b.(int64))
	case float64:
		return floatArith(op, t, x, b.(float64))
	case *Decimal:
		y := b.(*Decimal)
		switch op {
		case "+":
			return checkDecimalRange(AddDecimal(x, y)) // numrange.go
		case "-":
			return checkDecimalRange(SubDecimal(x, y))
		case "*":
			return checkDecimalRange(MulDecimal(x, y))
		case "/":
			d, err := DivDecimal(x, y)
			if err != nil {
				return nil, err
			}
			return checkDecimalRange(d)
		case "%":
			return ModDecimal(x, y)
		}
	}
	return nil, errorf(CodeUndefinedFunc, "operator does not exist: %s %s %s", NameOf(t), op, NameOf(t))
}

func intArith(op string, t OID, x, y int64) (Value, error) {
	lo, hi := IntBounds(t)
	var r int64
	switch op {
	case "+":
		r = x + y
		if (y > 0 && r < x) || (y < 0 && r > x) {
			return nil, intRange(t)
		}
	case "-":
		r = x - y
		if (y < 0 && r < x) || (y > 0 && r > x) {
			return nil, intRange(t)
		}
	case "*":
		if x != 0 && y != 0 {
			r = x * y
			if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
				return nil, intRange(t)
			}
		}
	case "/", "%":
		if y == 0 {
			return nil, errorf(CodeDivByZero, "division by zero")
		}
		if y == -1 {
			if op == "%" {
				return int64(0), nil
			}
			if x == lo {
				return nil, intRange(t)
			}
			return -x, nil
		}
		if op == "/" {
			r = x / y
		} else {
			r = x % y
		}
	default:
		return nil, fmt.Errorf("types: unknown operator %q", op)
	}
	if r < lo || r > hi {
		return nil, intRange(t)
	}
	return r, nil
}

// floatArith is float4pl … float8div: float4 arithmetic in float32.
func floatArith(op string, t OID, x, y float64) (Value, error) {
	var r float64
	f4 := t == Float4
	switch op {
	case "+", "-", "*":
		if f4 {
			a, b := float32(x), float32(y)
			switch op {
			case "+":
				r = float64(a + b)
			case "-":
				r = float64(a - b)
			default:
				r = float64(a * b)
			}
		} else {
			switch op {
			case "+":
				r = x + y
			case "-":
				r = x - y
			default:
				r = x * y
			}
		}
		if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
			return nil, errorf(CodeOutOfRange, "value out of range: overflow")
		}
		if op == "*" && r == 0 && x != 0 && y != 0 {
			return nil, errorf(CodeOutOfRange, "value out of range: underflow")
		}
	case "/":
		if y == 0 && !math.IsNaN(x) {
			return nil, errorf(CodeDivByZero, "division by zero")
		}
		if f4 {
			r = float64(float32(x) / float32(y))
		} else {
			r = x / y
		}
		if math.IsInf(r, 0) && !math.IsInf(x, 0) {
			return nil, errorf(CodeOutOfRange, "value out of range: overflow")
		}
		if r == 0 && x != 0 && !math.IsInf(y, 0) {
			return nil, errorf(CodeOutOfRange, "value out of range: underflow")
		}
	default:
		return nil, errorf(CodeUndefinedFunc, "operator does not exist: %s %s %s", NameOf(t), op, NameOf(t))
	}
	return r, nil
}

// Float4Sum is sum(float4)'s transition: float4pl, in float32 (so the
// sum is PostgreSQL's, not a float64 sum rounded at the end).
func Float4Sum(acc, x float64) (float64, error) {
	v, err := floatArith("+", Float4, acc, x)
	if err != nil {
		return 0, err
	}
	return v.(float64), nil
}
