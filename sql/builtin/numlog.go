package builtin

import (
	"math"
	"math/big"

	"github.com/sidecar-dev/sidecar/types"
)

// exp, ln, log(b, x), log10 and power of numeric for a non-integer
// exponent, with PostgreSQL's result scales (numeric.c: numeric_exp,
// numeric_ln, log_var, power_var: each from an estimate of the result's
// decimal weight). PostgreSQL computes the value with guard digits and
// rounds it to that scale (half away from zero); here it is computed in
// binary floating point with far more guard digits and rounded the same
// way. The two agree unless the exact value lies within PostgreSQL's
// own error of a rounding midpoint, or an estimate of a weight sits on
// an integer boundary: those calls are refused (0A000), never answered
// with a digit PostgreSQL might not give.

// NUMERIC_MIN_DISPLAY_SCALE (NUMERIC_MAX_RESULT_SCALE: math.go).
const (
	numericMinDisplayScale = 0
)

// errNearMidpoint refuses a value too near a rounding midpoint.
func errNearMidpoint(fn string) *Error {
	return unsupported("%s of this argument (its value lies too near a rounding midpoint to be sure of PostgreSQL's last digit)", fn)
}

// decFloat is x as a big.Float of prec bits.
func decFloat(x *types.Decimal, prec uint) *big.Float {
	f := new(big.Float).SetPrec(prec).SetInt(&x.V)
	if x.Scale > 0 {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil)
		f.Quo(f, new(big.Float).SetPrec(prec).SetInt(p))
	} else if x.Scale < 0 {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-x.Scale)), nil)
		f.Mul(f, new(big.Float).SetPrec(prec).SetInt(p))
	}
	return f
}

// roundFloat is f rounded half away from zero to rscale digits (ok false
// when f is within a 1e-12 fraction of a unit of that digit of a
// midpoint).
func roundFloat(f *big.Float, rscale int) (*types.Decimal, bool) {
	prec := f.Prec()
	s := new(big.Float).SetPrec(prec).Abs(f)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(rscale, 0))), nil)
	s.Mul(s, new(big.Float).SetPrec(prec).SetInt(p))
	whole, _ := s.Int(nil)
	frac := new(big.Float).SetPrec(prec).Sub(s, new(big.Float).SetPrec(prec).SetInt(whole))
	fr, _ := frac.Float64()
	if math.Abs(fr-0.5) < 1e-12 {
		return nil, false
	}
	if fr > 0.5 {
		whole.Add(whole, big.NewInt(1))
	}
	if f.Sign() < 0 {
		whole.Neg(whole)
	}
	return &types.Decimal{V: *whole, Scale: int32(rscale)}, true
}

// precLn2 is ln 2 to prec bits: 2·atanh(1/3).
func precLn2(prec uint) *big.Float {
	return precAtanh2(new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), big.NewFloat(3).SetPrec(prec)), prec)
}

// precAtanh2 is 2·atanh(z) = 2(z + z³/3 + z⁵/5 + …) for |z| < 1/2.
func precAtanh2(z *big.Float, prec uint) *big.Float {
	sum := new(big.Float).SetPrec(prec).Set(z)
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	pow := new(big.Float).SetPrec(prec).Set(z)
	limit := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(prec)-8)
	for k := int64(3); ; k += 2 {
		pow.Mul(pow, z2)
		t := new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(limit) < 0 {
			break
		}
	}
	return sum.Mul(sum, big.NewFloat(2).SetPrec(prec))
}

// precLn is ln(x) for x > 0 to an absolute error near 2^-(prec-64-k).
func precLn(x *big.Float, prec uint) *big.Float {
	m := new(big.Float).SetPrec(prec)
	e := x.MantExp(m) // x = m·2^e, m in [0.5, 1)
	// m^(1/2^k) near 1: ln m = 2^k ln(m^(1/2^k))
	k := 0
	one := big.NewFloat(1).SetPrec(prec)
	for {
		d := new(big.Float).Sub(m, one)
		if f, _ := d.Float64(); math.Abs(f) < 1e-3 {
			break
		}
		m.Sqrt(m)
		k++
	}
	z := new(big.Float).SetPrec(prec).Quo(new(big.Float).SetPrec(prec).Sub(m, one), new(big.Float).SetPrec(prec).Add(m, one))
	l := precAtanh2(z, prec)
	l.SetMantExp(l, k)
	if e != 0 {
		l.Add(l, new(big.Float).SetPrec(prec).Mul(precLn2(prec), new(big.Float).SetPrec(prec).SetInt64(int64(e))))
	}
	return l
}

// precExp is e^x (|x| < 7000) to a relative error near 2^-(prec-64).
func precExp(x *big.Float, prec uint) *big.Float {
	r := new(big.Float).SetPrec(prec).Set(x)
	n := 0
	for {
		f, _ := r.Float64()
		if math.Abs(f) <= 0.001 {
			break
		}
		r.SetMantExp(r, -1)
		n++
	}
	sum := big.NewFloat(1).SetPrec(prec)
	term := big.NewFloat(1).SetPrec(prec)
	limit := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(prec)-8)
	for k := int64(1); ; k++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(limit) < 0 {
			break
		}
	}
	for ; n > 0; n-- {
		sum.Mul(sum, sum)
	}
	return sum
}

// nbaseDigits are x's first two base-10000 digits and weight (nbase).
func nbaseDigits(x *types.Decimal) (first, second int, hasSecond bool, weight int) {
	ds, weight := nbase(x)
	if len(ds) > 1 {
		second, hasSecond = ds[1], true
	}
	return ds[0], second, hasSecond, weight
}

// nbase is x's base-10000 digits as PostgreSQL's NumericVar holds them
// (digits[0] the first non-zero, no trailing zero digits, weight the
// position of digits[0]) for x ≠ 0; the sign is ignored.
func nbase(x *types.Decimal) (ds []int, weight int) {
	s := new(big.Int).Abs(&x.V).String()
	scale := int(x.Scale)
	// the digits before the point padded to a multiple of 4 on the left,
	// after it to a multiple of 4 on the right
	intLen := len(s) - scale
	pad := (4 - ((intLen%4)+4)%4) % 4
	frac := ((scale % 4) + 4) % 4
	if frac != 0 {
		frac = 4 - frac
	}
	if intLen < 0 {
		s = zeros(-intLen) + s
		intLen = 0
		pad = 0
	}
	all := zeros(pad) + s + zeros(frac)
	groups := len(all) / 4
	intGroups := (intLen + pad) / 4
	for g := 0; g < groups; g++ {
		v := 0
		for _, c := range all[g*4 : g*4+4] {
			v = v*10 + int(c-'0')
		}
		ds = append(ds, v)
	}
	i := 0
	for i < len(ds) && ds[i] == 0 {
		i++
	}
	last := len(ds) - 1
	for last > i && ds[last] == 0 {
		last--
	}
	return ds[i : last+1], intGroups - 1 - i
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

// estimateLnDweight is estimate_ln_dweight for x > 0 (ok false where
// the estimate sits too near an integer boundary to be sure of it).
func estimateLnDweight(x *types.Decimal) (int, bool) {
	r09 := &types.Decimal{V: *big.NewInt(9), Scale: 1}
	r11 := &types.Decimal{V: *big.NewInt(11), Scale: 1}
	if types.CompareDecimal(x, r09) >= 0 && types.CompareDecimal(x, r11) <= 0 {
		d := types.SubDecimal(x, types.DecimalFromInt(1))
		if d.V.Sign() == 0 {
			return 0, true
		}
		d.V.Abs(&d.V)
		first, _, _, w := nbaseDigits(d)
		return w*4 + int(math.Log10(float64(first))), true
	}
	first, second, has, w := nbaseDigits(x)
	digits, dweight := float64(first), w*4
	if has {
		digits = digits*10000 + float64(second)
		dweight -= 4
	}
	lnv := math.Log(digits) + float64(dweight)*2.302585092994046
	l := math.Log10(math.Abs(lnv))
	if nearInteger(l, 1e-9) {
		return 0, false
	}
	return int(l), true
}

// nearInteger says whether v is within tol of a non-zero integer (where
// a C (int) cast, truncating toward zero, changes value).
func nearInteger(v, tol float64) bool {
	r := math.Round(v)
	return r != 0 && math.Abs(v-r) < tol
}

// precFor is the binary precision for digits decimal digits and guard
// bits.
func precFor(digits int) uint { return uint(float64(digits)*3.33) + 128 }

func (r *Registry) addNumericLog() {
	r.def("exp", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return numericExp(decOf(a[0])) }, nm)
	r.def("ln", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return numericLn(decOf(a[0])) }, nm)
	ten := types.DecimalFromInt(10)
	r.def("log10", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return numericLog(ten, decOf(a[0])) }, nm)
	r.def("log", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return numericLog(decOf(a[0]), decOf(a[1]))
	}, nm, nm)
}

// numericExp is numeric_exp.
func numericExp(x *types.Decimal) (types.Value, error) {
	if x.NaN {
		return &types.Decimal{NaN: true}, nil
	}
	if x.Inf != 0 {
		return nil, unsupported("exp(numeric) of an infinity")
	}
	val, _ := decFloat(x, 64).Float64()
	w := val * 0.434294481903252
	w = min(max(w, -numericMaxResultScale), numericMaxResultScale)
	if math.Abs(w) < numericMaxResultScale && nearInteger(w, 1e-9) {
		return nil, errNearMidpoint("exp(numeric)")
	}
	rscale := numericMinSigDigits - int(w)
	rscale = max(rscale, int(x.Scale), numericMinDisplayScale)
	rscale = min(rscale, numericMaxDisplayScale)
	return expAt(x, val, rscale, "exp(numeric)")
}

// expAt is exp_var(x, rscale); val is x as a double.
func expAt(x *types.Decimal, val float64, rscale int, fn string) (types.Value, error) {
	if math.Abs(math.Abs(val)-numericMaxResultScale*3) < 1e-6 {
		return nil, errNearMidpoint(fn)
	}
	if math.Abs(val) >= numericMaxResultScale*3 {
		if val > 0 {
			return nil, errorf(CodeOutOfRange, "value overflows numeric format")
		}
		return &types.Decimal{Scale: int32(rscale)}, nil
	}
	dweight := int(math.Abs(val)*0.4343) + 2
	prec := precFor(rscale + dweight + 40)
	res, ok := roundFloat(precExp(decFloat(x, prec), prec), rscale)
	if !ok {
		return nil, errNearMidpoint(fn)
	}
	return res, nil
}

// lnChecks are ln_var's errors for x ≤ 0.
func lnChecks(x *types.Decimal) error {
	switch {
	case x.Inf < 0 || x.Inf == 0 && x.V.Sign() < 0:
		return errorf(CodeInvalidLog, "cannot take logarithm of a negative number")
	case x.Inf == 0 && x.V.Sign() == 0:
		return errorf(CodeInvalidLog, "cannot take logarithm of zero")
	}
	return nil
}

// numericLn is numeric_ln.
func numericLn(x *types.Decimal) (types.Value, error) {
	if x.NaN {
		return &types.Decimal{NaN: true}, nil
	}
	if err := lnChecks(x); err != nil {
		return nil, err
	}
	if x.Inf != 0 {
		return nil, unsupported("ln(numeric) of an infinity")
	}
	dw, ok := estimateLnDweight(x)
	if !ok {
		return nil, errNearMidpoint("ln(numeric)")
	}
	rscale := numericMinSigDigits - dw
	rscale = max(rscale, int(x.Scale), numericMinDisplayScale)
	rscale = min(rscale, numericMaxDisplayScale)
	prec := precFor(rscale + len(x.V.String()) + 40)
	res, ok := roundFloat(precLn(decFloat(x, prec), prec), rscale)
	if !ok {
		return nil, errNearMidpoint("ln(numeric)")
	}
	return res, nil
}

// numericLog is numeric_log (log_var): log base b of x.
func numericLog(b, x *types.Decimal) (types.Value, error) {
	if b.NaN || x.NaN {
		return &types.Decimal{NaN: true}, nil
	}
	if err := lnChecks(b); err != nil {
		return nil, err
	}
	if err := lnChecks(x); err != nil {
		return nil, err
	}
	if b.Inf != 0 || x.Inf != 0 {
		return nil, unsupported("log(numeric, numeric) of an infinity")
	}
	bw, ok1 := estimateLnDweight(b)
	xw, ok2 := estimateLnDweight(x)
	if !ok1 || !ok2 {
		return nil, errNearMidpoint("log(numeric, numeric)")
	}
	rw := xw - bw
	rscale := numericMinSigDigits - rw
	rscale = max(rscale, int(b.Scale), int(x.Scale), numericMinDisplayScale)
	rscale = min(rscale, numericMaxDisplayScale)
	prec := precFor(rscale + max(rw, 0) + len(b.V.String()) + len(x.V.String()) + 40 + max(-bw, 0))
	lb := precLn(decFloat(b, prec), prec)
	if decIsOne(b) {
		return nil, errorf(CodeDivisionByZero, "division by zero")
	}
	lx := precLn(decFloat(x, prec), prec)
	res, ok := roundFloat(new(big.Float).SetPrec(prec).Quo(lx, lb), rscale)
	if !ok {
		return nil, errNearMidpoint("log(numeric, numeric)")
	}
	return res, nil
}

// powerNonInteger is power_var for a finite y that is not an int32
// integer, x ≠ 0 (decPower decided the other cases).
func powerNonInteger(x, y *types.Decimal) (types.Value, error) {
	neg := x.V.Sign() < 0
	ax := x
	if neg {
		// y is an integer here (decPower refused the others): too big
		// for int32; its parity gives the sign.
		ax = &types.Decimal{Scale: x.Scale}
		ax.V.Abs(&x.V)
	}
	lnDweight, ok := estimateLnDweight(ax)
	if !ok {
		return nil, errNearMidpoint("power(numeric, numeric)")
	}
	prec := precFor(len(y.V.String()) + len(ax.V.String()) + 80 + max(-lnDweight, 0))
	lnNum := new(big.Float).SetPrec(prec).Mul(precLn(decFloat(ax, prec), prec), decFloat(y, prec))
	val, _ := lnNum.Float64()
	if math.Abs(math.Abs(val)-numericMaxResultScale*3.01) < 1e-6*math.Max(1, math.Abs(val)) {
		return nil, errNearMidpoint("power(numeric, numeric)")
	}
	if math.Abs(val) > numericMaxResultScale*3.01 {
		if val > 0 {
			return nil, errorf(CodeOutOfRange, "value overflows numeric format")
		}
		return &types.Decimal{Scale: numericMaxDisplayScale}, nil
	}
	w := val * 0.434294481903252
	if nearInteger(w, 1e-7*math.Max(1, math.Abs(w))) {
		return nil, errNearMidpoint("power(numeric, numeric)")
	}
	rscale := numericMinSigDigits - int(w)
	rscale = max(rscale, int(ax.Scale), int(y.Scale), numericMinDisplayScale)
	rscale = min(rscale, numericMaxDisplayScale)
	if math.Abs(math.Abs(val)-numericMaxResultScale*3) < 1e-6*math.Max(1, math.Abs(val)) {
		return nil, errNearMidpoint("power(numeric, numeric)")
	}
	if math.Abs(val) >= numericMaxResultScale*3 {
		if val > 0 {
			return nil, errorf(CodeOutOfRange, "value overflows numeric format")
		}
		return &types.Decimal{Scale: int32(rscale)}, nil
	}
	prec2 := precFor(rscale + int(math.Abs(w)) + len(y.V.String()) + 60 + max(-lnDweight, 0))
	lnNum = new(big.Float).SetPrec(prec2).Mul(precLn(decFloat(ax, prec2), prec2), decFloat(y, prec2))
	res, ok := roundFloat(precExp(lnNum, prec2), rscale)
	if !ok {
		return nil, errNearMidpoint("power(numeric, numeric)")
	}
	if neg && decOdd(y) && res.V.Sign() != 0 {
		res.V.Neg(&res.V)
	}
	return res, nil
}

// decOdd says whether the integral y is odd.
func decOdd(y *types.Decimal) bool {
	v := new(big.Int).Set(&y.V)
	if y.Scale > 0 {
		v.Quo(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(y.Scale)), nil))
	} else if y.Scale < 0 {
		return false
	}
	return v.Bit(0) == 1
}
