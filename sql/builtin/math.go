package builtin

import (
	"math"
	"math/big"

	"github.com/sidecar-dev/sidecar/types"
)

const (
	i2 = types.Int2
	i4 = types.Int4
	i8 = types.Int8
	f8 = types.Float8
	nm = types.Numeric
)

// numericMaxResultScale is NUMERIC_MAX_RESULT_SCALE (round/trunc's scale
// bound).
const numericMaxResultScale = 2000

func f8Of(a types.Value) float64 { return a.(float64) }
func decOf(a types.Value) *types.Decimal {
	return a.(*types.Decimal)
}

// f8Fn wraps a float8 → float8 function.
func f8Fn(fn func(x float64) (float64, error)) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return fn(f8Of(a[0])) }
}

func f8Fn2(fn func(x, y float64) (float64, error)) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return fn(f8Of(a[0]), f8Of(a[1])) }
}

func decFn(fn func(x *types.Decimal) (types.Value, error)) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return fn(decOf(a[0])) }
}

// checkFloat is check_float8_val: an infinite result from finite inputs
// overflows, a zero result from nonzero inputs underflows.
func checkFloat(r float64, infOK, zeroOK bool) (float64, error) {
	if math.IsInf(r, 0) && !infOK {
		return 0, errOverflow
	}
	if r == 0 && !zeroOK {
		return 0, errUnderflow
	}
	return r, nil
}

// refuse registers an overload PostgreSQL has and sidecar does not
// compute exactly: resolving to it keeps a call from taking another
// overload by an implicit cast (a different answer), and running it
// refuses with 0A000.
func refuse(what string) Impl {
	return func(*Context, []types.Value, []OID) (types.Value, error) { return nil, unsupported("%s", what) }
}

func (r *Registry) addMath() {
	// abs
	for _, t := range []OID{i2, i4, i8} {
		t := t
		r.def("abs", t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			x := a[0].(int64)
			if lo, _ := types.IntBounds(t); x == lo {
				return nil, outOfRange(t)
			}
			if x < 0 {
				x = -x
			}
			return x, nil
		}, t)
	}
	r.def("abs", types.Float4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return math.Abs(f8Of(a[0])), nil }, types.Float4)
	r.def("abs", f8, f8Fn(func(x float64) (float64, error) { return math.Abs(x), nil }), f8)
	r.def("abs", nm, decFn(func(x *types.Decimal) (types.Value, error) {
		if x.NaN {
			return x, nil
		}
		y := &types.Decimal{Scale: x.Scale, Inf: x.Inf}
		if y.Inf < 0 {
			y.Inf = 1
		}
		y.V.Abs(&x.V)
		return y, nil
	}), nm)

	// sign
	r.def("sign", f8, f8Fn(func(x float64) (float64, error) {
		switch {
		case x > 0:
			return 1, nil
		case x < 0:
			return -1, nil
		}
		return 0, nil
	}), f8)
	r.def("sign", nm, decFn(func(x *types.Decimal) (types.Value, error) {
		switch {
		case x.NaN:
			return x, nil
		case x.Inf != 0:
			return types.DecimalFromInt(int64(x.Inf)), nil
		}
		return types.DecimalFromInt(int64(x.V.Sign())), nil
	}), nm)

	// ceil, floor, round, trunc
	r.def("ceil", f8, f8Fn(func(x float64) (float64, error) { return math.Ceil(x), nil }), f8)
	r.def("ceil", nm, decFn(func(x *types.Decimal) (types.Value, error) { return decIntegral(x, ceilDiv), nil }), nm)
	r.alias("ceiling", "ceil")
	r.def("floor", f8, f8Fn(func(x float64) (float64, error) { return math.Floor(x), nil }), f8)
	r.def("floor", nm, decFn(func(x *types.Decimal) (types.Value, error) { return decIntegral(x, floorDiv), nil }), nm)
	r.def("round", f8, f8Fn(func(x float64) (float64, error) { return math.RoundToEven(x), nil }), f8)
	r.def("round", nm, decFn(func(x *types.Decimal) (types.Value, error) { return decRound(x, 0, false), nil }), nm)
	r.def("round", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return decRound(decOf(a[0]), a[1].(int64), false), nil
	}, nm, i4)
	r.def("trunc", f8, f8Fn(func(x float64) (float64, error) { return math.Trunc(x), nil }), f8)
	// trunc(macaddr) and trunc(macaddr8): inet.go (they make trunc('…')
	// ambiguous, as in PostgreSQL).
	r.def("trunc", nm, decFn(func(x *types.Decimal) (types.Value, error) { return decRound(x, 0, true), nil }), nm)
	r.def("trunc", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return decRound(decOf(a[0]), a[1].(int64), true), nil
	}, nm, i4)

	// sqrt, cbrt, exp, ln, log
	r.def("sqrt", f8, f8Fn(func(x float64) (float64, error) {
		if x < 0 {
			return 0, errorf(CodeInvalidPower, "cannot take square root of a negative number")
		}
		return checkFloat(math.Sqrt(x), math.IsInf(x, 0), x == 0)
	}), f8)
	r.def("sqrt", nm, decFn(decSqrt), nm)
	// cbrt is glibc's algorithm (libm.go); the ||/ operator is dcbrt.
	r.def("cbrt", f8, f8Fn(func(x float64) (float64, error) {
		return checkFloat(libmCbrt(x), math.IsInf(x, 0), x == 0)
	}), f8)
	r.def("dcbrt", f8, r.funcs["cbrt"][0].impl, f8)
	r.prefix["||/"] = []string{"dcbrt"}
	// Go's math differs from the C library in the last digit for the
	// trigonometric functions; they are refused until computed
	// correctly rounded (as for exp, ln, log10 and power).
	for _, n := range []string{"sin", "cos", "tan", "cot", "asin", "acos", "atan"} { // the hyperbolic functions: hyperbolic.go
		r.def(n, f8, refuse(n+"(double precision)"), f8)
	}
	r.def("atan2", f8, refuse("atan2(double precision, double precision)"), f8, f8)
	r.addDegreeTrig() // degrees.go: at the angles where they are exact
	r.def("exp", f8, f8Fn(floatExp), f8)
	r.def("ln", f8, f8Fn(func(x float64) (float64, error) { return floatLog(x, crLn) }), f8)
	r.def("log10", f8, f8Fn(func(x float64) (float64, error) { return floatLog(x, crLog10) }), f8)
	r.addNumericLog() // numlog.go: exp, ln, log10 and log of numeric
	r.alias("log", "log10")
	r.def("power", f8, f8Fn2(floatPow), f8, f8)
	r.def("power", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return r.decPower(decOf(a[0]), decOf(a[1]))
	}, nm, nm) // numpower.go
	r.alias("pow", "power")

	// mod, div, gcd, lcm
	for _, t := range []OID{i2, i4, i8} {
		t := t
		r.def("mod", t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			x, y := a[0].(int64), a[1].(int64)
			if y == 0 {
				return nil, errorf(CodeDivisionByZero, "division by zero")
			}
			if y == -1 {
				return int64(0), nil
			}
			return x % y, nil
		}, t, t)
	}
	r.def("mod", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return types.ModDecimal(decOf(a[0]), decOf(a[1]))
	}, nm, nm)
	r.def("div", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return decDivTrunc(decOf(a[0]), decOf(a[1]))
	}, nm, nm)
	for _, t := range []OID{i4, i8} {
		t := t
		r.def("gcd", t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return intGCD(t, a[0].(int64), a[1].(int64))
		}, t, t)
		r.def("lcm", t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return intLCM(t, a[0].(int64), a[1].(int64))
		}, t, t)
	}
	r.def("gcd", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return decGCD(decOf(a[0]), decOf(a[1]), false), nil
	}, nm, nm)
	r.def("lcm", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return decGCD(decOf(a[0]), decOf(a[1]), true), nil
	}, nm, nm)

	// scale
	r.def("scale", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x := decOf(a[0])
		if x.NaN || x.Inf != 0 {
			return nil, nil
		}
		return int64(x.Scale), nil
	}, nm)

	// trigonometry and constants
	r.def("pi", f8, func(*Context, []types.Value, []OID) (types.Value, error) { return math.Pi, nil })
	r.def("degrees", f8, f8Fn(func(x float64) (float64, error) {
		return checkFloat(x/radiansPerDegree, math.IsInf(x, 0), x == 0)
	}), f8)
	r.def("radians", f8, f8Fn(func(x float64) (float64, error) {
		return checkFloat(x*radiansPerDegree, math.IsInf(x, 0), x == 0)
	}), f8)
	// width_bucket
	r.def("width_bucket", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return widthBucketFloat(f8Of(a[0]), f8Of(a[1]), f8Of(a[2]), a[3].(int64))
	}, f8, f8, f8, i4)
	r.def("width_bucket", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return widthBucketNumeric(decOf(a[0]), decOf(a[1]), decOf(a[2]), a[3].(int64))
	}, nm, nm, nm, i4)

	// Bitwise operators on integers (int2and, int4and, …).
	for _, t := range []OID{i2, i4, i8} {
		t := t
		name := map[OID]string{i2: "int2", i4: "int4", i8: "int8"}[t]
		for _, op := range []struct {
			op, fn string
			f      func(x, y int64) int64
		}{{"&", "and", func(x, y int64) int64 { return x & y }}, {"|", "or", func(x, y int64) int64 { return x | y }},
			{"#", "xor", func(x, y int64) int64 { return x ^ y }}} {
			op := op
			r.def(name+op.fn, t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
				return op.f(a[0].(int64), a[1].(int64)), nil
			}, t, t)
			r.ops[op.op] = append(r.ops[op.op], name+op.fn)
		}
		r.def(name+"not", t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return ^a[0].(int64), nil }, t)
		r.prefix["~"] = append(r.prefix["~"], name+"not")
		for _, sh := range []struct{ op, fn string }{{"<<", "shl"}, {">>", "shr"}} {
			left := sh.op == "<<"
			r.def(name+sh.fn, t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
				return intShift(t, a[0].(int64), a[1].(int64), left)
			}, t, i4)
			r.ops[sh.op] = append(r.ops[sh.op], name+sh.fn)
		}
	}
	r.def("dsqrt", f8, r.funcs["sqrt"][0].impl, f8)
	r.ops["^"] = []string{"power"}
	r.prefix["@"], r.prefix["|/"] = []string{"abs"}, []string{"dsqrt"}

	r.def("random", f8, func(c *Context, _ []types.Value, _ []OID) (types.Value, error) {
		if c == nil || c.Random == nil {
			return nil, unsupported("random() here")
		}
		return c.Random(), nil
	}).volatile()
}

// radiansPerDegree is PostgreSQL's RADIANS_PER_DEGREE.
const radiansPerDegree = 0.0174532925199432957692

// floatExp is dexp.
func floatExp(x float64) (float64, error) {
	switch {
	case math.IsNaN(x):
		return x, nil
	case math.IsInf(x, 1):
		return x, nil
	case math.IsInf(x, -1):
		return 0, nil
	}
	r, err := crExp(x)
	switch {
	case err != nil:
		return 0, err
	case math.IsInf(r, 0):
		return 0, errOverflow
	case r == 0:
		return 0, errUnderflow
	case r < 0x1p-1022:
		// libm reports a subnormal result as a range error (ERANGE), which
		// dexp reports as overflow since the result is not zero.
		return 0, errOverflow
	}
	return r, nil
}

// floatLog is dlog1/dlog10.
func floatLog(x float64, fn func(float64) (float64, error)) (float64, error) {
	if math.IsNaN(x) || math.IsInf(x, 1) {
		return x, nil
	}
	if x == 0 {
		return 0, errorf(CodeInvalidLog, "cannot take logarithm of zero")
	}
	if x < 0 {
		return 0, errorf(CodeInvalidLog, "cannot take logarithm of a negative number")
	}
	r, err := fn(x)
	if err != nil {
		return 0, err
	}
	if math.IsInf(r, 0) && !math.IsInf(x, 0) {
		return 0, errOverflow
	}
	if r == 0 && x != 1 {
		return 0, errUnderflow
	}
	return r, nil
}

// floatPow is dpow, with its explicit NaN and infinity rules.
func floatPow(x, y float64) (float64, error) {
	// dpow answers get_float8_nan() for a NaN argument, not the NaN
	// given (its bits show in binary format).
	if math.IsNaN(x) {
		if math.IsNaN(y) || y != 0 {
			return pgNaN, nil
		}
		return 1, nil
	}
	if math.IsNaN(y) {
		if x != 1 {
			return pgNaN, nil
		}
		return 1, nil
	}
	if x == 0 && y < 0 {
		return 0, errorf(CodeInvalidPower, "zero raised to a negative power is undefined")
	}
	if x < 0 && math.Floor(y) != y {
		return 0, errorf(CodeInvalidPower, "a negative number raised to a non-integer power yields a complex result")
	}
	switch {
	case math.IsInf(y, 0):
		ax := math.Abs(x)
		switch {
		case ax == 1:
			return 1, nil
		case y > 0 && ax > 1, y < 0 && ax < 1:
			return math.Inf(1), nil
		}
		return 0, nil
	case math.IsInf(x, 0):
		if y == 0 {
			return 1, nil
		}
		if x > 0 {
			if y > 0 {
				return x, nil
			}
			return 0, nil
		}
		half := y / 2
		odd := math.Floor(half) != half
		if y > 0 {
			if odd {
				return x, nil
			}
			return -x, nil
		}
		if odd {
			return math.Copysign(0, -1), nil
		}
		return 0, nil
	}
	r, err := crPow(x, y)
	switch {
	case err != nil:
		return 0, err
	case math.IsInf(r, 0):
		return 0, errOverflow
	case r == 0 && x != 0:
		return 0, errUnderflow
	case r != 0 && math.Abs(r) < 0x1p-1022:
		return 0, errOverflow // ERANGE with a nonzero result
	}
	return r, nil
}

// widthBucketFloat is width_bucket_float8.
func widthBucketFloat(op, b1, b2 float64, count int64) (types.Value, error) {
	if count <= 0 {
		return nil, errorf(CodeInvalidWidthBucket, "count must be greater than zero")
	}
	if math.IsNaN(op) || math.IsNaN(b1) || math.IsNaN(b2) {
		return nil, errorf(CodeInvalidWidthBucket, "operand, lower bound, and upper bound cannot be NaN")
	}
	if math.IsInf(b1, 0) || math.IsInf(b2, 0) {
		return nil, errorf(CodeInvalidWidthBucket, "lower and upper bounds must be finite")
	}
	var res int64
	switch {
	case b1 < b2:
		switch {
		case op < b1:
			res = 0
		case op >= b2:
			res = count + 1
		default:
			res = int64(float64(count)*(op-b1)/(b2-b1)) + 1
		}
	case b1 > b2:
		switch {
		case op > b1:
			res = 0
		case op <= b2:
			res = count + 1
		default:
			res = int64(float64(count)*(b1-op)/(b1-b2)) + 1
		}
	default:
		return nil, errorf(CodeInvalidWidthBucket, "lower bound cannot equal upper bound")
	}
	if res > math.MaxInt32 {
		return nil, outOfRange(i4)
	}
	return res, nil
}

// widthBucketNumeric is width_bucket_numeric (exact).
func widthBucketNumeric(op, b1, b2 *types.Decimal, count int64) (types.Value, error) {
	if count <= 0 {
		return nil, errorf(CodeInvalidWidthBucket, "count must be greater than zero")
	}
	if op.NaN || b1.NaN || b2.NaN {
		return nil, errorf(CodeInvalidWidthBucket, "operand, lower bound, and upper bound cannot be NaN")
	}
	if b1.Inf != 0 || b2.Inf != 0 {
		return nil, errorf(CodeInvalidWidthBucket, "lower and upper bounds must be finite")
	}
	c1 := types.CompareDecimal(b1, b2)
	if c1 == 0 {
		return nil, errorf(CodeInvalidWidthBucket, "lower bound cannot equal upper bound")
	}
	lo, hi := b1, b2
	if c1 > 0 {
		lo, hi = b2, b1
	}
	below, above := types.CompareDecimal(op, lo) < 0, types.CompareDecimal(op, hi) >= 0
	if c1 > 0 {
		below, above = types.CompareDecimal(op, b1) > 0, types.CompareDecimal(op, b2) <= 0
	}
	switch {
	case below:
		return int64(0), nil
	case above:
		if count+1 > math.MaxInt32 {
			return nil, outOfRange(i4)
		}
		return count + 1, nil
	}
	num, den := ratOf(op), ratOf(b1)
	if c1 < 0 {
		num.Sub(num, den)
		den.Sub(ratOf(b2), ratOf(b1))
	} else {
		num.Sub(den, num)
		den.Sub(ratOf(b1), ratOf(b2))
	}
	q := new(big.Rat).Quo(num, den)
	q.Mul(q, new(big.Rat).SetInt64(count))
	f := new(big.Int).Quo(q.Num(), q.Denom())
	return f.Int64() + 1, nil
}

func ratOf(d *types.Decimal) *big.Rat {
	r := new(big.Rat).SetInt(&d.V)
	if d.Scale > 0 {
		r.Quo(r, new(big.Rat).SetInt(pow10(int(d.Scale))))
	}
	return r
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

type divMode int

const (
	floorDiv divMode = iota
	ceilDiv
)

// decIntegral is numeric ceil/floor: scale 0.
func decIntegral(x *types.Decimal, m divMode) *types.Decimal {
	if x.NaN || x.Inf != 0 {
		return x
	}
	q, rem := new(big.Int).QuoRem(&x.V, pow10(int(x.Scale)), new(big.Int))
	if rem.Sign() != 0 {
		if m == floorDiv && x.V.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		}
		if m == ceilDiv && x.V.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
	}
	return &types.Decimal{V: *q}
}

// decRound is numeric_round / numeric_trunc to s digits after the point
// (negative: before it): the result's scale is max(s, 0).
func decRound(x *types.Decimal, s int64, trunc bool) *types.Decimal {
	if x.NaN || x.Inf != 0 {
		return x
	}
	s = max(min(s, numericMaxResultScale), -numericMaxResultScale)
	out := &types.Decimal{Scale: int32(max(s, 0))}
	if int64(x.Scale) <= s {
		out.V.Mul(&x.V, pow10(int(s)-int(x.Scale)))
		return out
	}
	den := pow10(int(int64(x.Scale) - s))
	q, rem := new(big.Int).QuoRem(&x.V, den, new(big.Int))
	if !trunc {
		rem.Abs(rem).Lsh(rem, 1)
		if rem.Cmp(den) >= 0 {
			if x.V.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if s < 0 {
		q.Mul(q, pow10(int(-s)))
	}
	out.V = *q
	return out
}

// decWeight is the NumericVar weight of a nonzero x: the base-10000
// digit position of its leading digit (0 for zero).
func decWeight(x *types.Decimal) int {
	if x.V.Sign() == 0 {
		return 0
	}
	digits := len(new(big.Int).Abs(&x.V).String())
	e := digits - 1 - int(x.Scale)
	if e >= 0 {
		return e / 4
	}
	return -((-e + 3) / 4)
}

// decSqrt is numeric_sqrt: at least 16 significant digits, no fewer
// than the input's scale, rounded half away from zero.
func decSqrt(x *types.Decimal) (types.Value, error) {
	switch {
	case x.NaN:
		return x, nil
	case x.Inf < 0 || x.Inf == 0 && x.V.Sign() < 0:
		return nil, errorf(CodeInvalidPower, "cannot take square root of a negative number")
	case x.Inf > 0:
		return x, nil
	}
	sweight := decWeight(x)*4/2 + 1
	rscale := 16 - sweight
	rscale = max(rscale, int(x.Scale), 0)
	rscale = min(rscale, 1000)
	return sqrtAt(x, rscale), nil
}

// decDivTrunc is numeric_div_trunc (div()).
func decDivTrunc(a, b *types.Decimal) (types.Value, error) {
	if a.NaN || b.NaN {
		return &types.Decimal{NaN: true}, nil
	}
	if b.Inf == 0 && b.V.Sign() == 0 {
		return nil, errorf(CodeDivisionByZero, "division by zero")
	}
	switch {
	case a.Inf != 0 && b.Inf != 0:
		return &types.Decimal{NaN: true}, nil
	case a.Inf != 0:
		return &types.Decimal{Inf: a.Inf * int8(b.V.Sign())}, nil
	case b.Inf != 0:
		return types.DecimalFromInt(0), nil
	}
	s := max(a.Scale, b.Scale)
	q := new(big.Int).Quo(a.Rescaled(s), b.Rescaled(s))
	return &types.Decimal{V: *q}, nil
}

func intGCD(t OID, x, y int64) (types.Value, error) {
	lo, hi := types.IntBounds(t)
	g := gcd64(x, y)
	if g == lo || g > hi {
		return nil, outOfRange(t)
	}
	return g, nil
}

// gcd64 is the gcd of x and y, computed in the negative domain so that
// the minimum value does not overflow (the result may be the minimum).
func gcd64(x, y int64) int64 {
	if x > 0 {
		x = -x
	}
	if y > 0 {
		y = -y
	}
	for y != 0 {
		x, y = y, x%y
	}
	return -x
}

func intLCM(t OID, x, y int64) (types.Value, error) {
	if x == 0 || y == 0 {
		return int64(0), nil
	}
	lo, hi := types.IntBounds(t)
	g := gcd64(x, y)
	if g == lo || g > hi {
		return nil, outOfRange(t)
	}
	q := new(big.Int).Mul(big.NewInt(x/g), big.NewInt(y))
	q.Abs(q)
	if !q.IsInt64() || q.Int64() > hi {
		return nil, outOfRange(t)
	}
	return q.Int64(), nil
}

// decGCD is numeric_gcd / numeric_lcm: NaN for a special input, the
// result's scale the larger input scale.
func decGCD(a, b *types.Decimal, lcm bool) *types.Decimal {
	if a.NaN || b.NaN || a.Inf != 0 || b.Inf != 0 {
		return &types.Decimal{NaN: true}
	}
	s := max(a.Scale, b.Scale)
	x, y := a.Rescaled(s), b.Rescaled(s)
	g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(x), new(big.Int).Abs(y))
	if !lcm {
		return &types.Decimal{V: *g, Scale: s}
	}
	if x.Sign() == 0 || y.Sign() == 0 {
		return &types.Decimal{Scale: s}
	}
	l := new(big.Int).Quo(new(big.Int).Abs(x), g)
	l.Mul(l, new(big.Int).Abs(y))
	return &types.Decimal{V: *l, Scale: s}
}

// intShift is int2shl … int8shr: C's << and >> on the operand promoted
// to int (int2, int4) or int64 (int8), the result cut to the type's
// width (int2shl's cast to int16). A count outside 0..31 (0..63 for
// int8) is undefined in C, where the hardware's answer shows through;
// it is refused rather than guessed.
func intShift(t OID, x, n int64, left bool) (types.Value, error) {
	width := int64(32)
	if t == types.Int8 {
		width = 64
	}
	if n < 0 || n >= width {
		return nil, unsupported("a shift count of %d (PostgreSQL leaves it to the hardware)", n)
	}
	var r int64
	switch {
	case width == 64 && left:
		r = x << n
	case width == 64:
		r = x >> n
	case left:
		r = int64(int32(x) << n)
	default:
		r = int64(int32(x) >> n)
	}
	if t == types.Int2 {
		r = int64(int16(r))
	}
	return r, nil
}
