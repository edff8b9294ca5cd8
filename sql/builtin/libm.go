package builtin

import "math"

// glibc's expm1 (sysdeps/ieee754/dbl-64/s_expm1.c: fdlibm's algorithm
// with the polynomial evaluated in glibc's order, not Go's Horner form)
// as glibc's x86-64 builds run it: with every a*b+c contracted (the
// variant a CPU with FMA runs) or not (the generic one). sinh, cosh and
// tanh (hyperbolic.go) answer where both give the same result (the
// server's CPU decides which it runs) and are refused elsewhere;
// TestHyperbolicMatchPostgres compares them with PostgreSQL bit for bit.
// glibc's log1p is not reproduced yet (neither fdlibm's Horner form, with
// or without contractions, nor the Estrin form matched every argument),
// so asinh, acosh and atanh refuse the arguments that need it.

func setHigh(x float64, hi uint32) float64 {
	return math.Float64frombits(uint64(hi)<<32 | math.Float64bits(x)&0xffffffff)
}

// libmExpm1 is glibc's __expm1: built with FMA contractions when fused
// (glibc's x86-64 multiarch variant on CPUs with FMA), without otherwise.
func libmExpm1(x float64, fused bool) float64 {
	fma := func(a, b, c float64) float64 { return float64(a*b) + c }
	if fused {
		fma = math.FMA
	}
	const (
		oThreshold = 7.09782712893383973096e+02
		ln2Hi      = 6.93147180369123816490e-01
		ln2Lo      = 1.90821492927058770002e-10
		invLn2     = 1.44269504088896338700e+00
		q1         = -3.33333333333331316428e-02
		q2         = 1.58730158725481460165e-03
		q3         = -7.93650757867487942473e-05
		q4         = 4.00821782732936239552e-06
		q5         = -2.01099218183624371326e-07
	)
	hx := highWord(x)
	xsb := hx & 0x80000000
	hx &= 0x7fffffff
	if hx >= 0x4043687A { // |x| >= 56 ln2
		if hx >= 0x40862E42 {
			if hx >= 0x7ff00000 {
				if math.IsNaN(x) {
					return x + x
				}
				if xsb == 0 {
					return x
				}
				return -1
			}
			if x > oThreshold {
				return math.Inf(1)
			}
		}
		if xsb != 0 {
			return 1e-300 - 1
		}
	}
	var c, hi, lo float64
	var k int32
	switch {
	case hx > 0x3fd62e42:
		if hx < 0x3FF0A2B2 {
			if xsb == 0 {
				hi, lo, k = x-ln2Hi, ln2Lo, 1
			} else {
				hi, lo, k = x+ln2Hi, -ln2Lo, -1
			}
		} else {
			h := 0.5
			if xsb != 0 {
				h = -0.5
			}
			k = int32(fma(invLn2, x, h))
			t := float64(k)
			hi = fma(-t, ln2Hi, x)
			lo = t * ln2Lo
		}
		x = hi - lo
		c = (hi - x) - lo
	case hx < 0x3c900000:
		return x
	}
	hfx := 0.5 * x
	hxs := x * hfx
	r1 := fma(hxs, q1, 1)
	h2 := hxs * hxs
	r2 := fma(hxs, q3, q2)
	h4 := h2 * h2
	r3 := fma(hxs, q5, q4)
	r1 = fma(h4, r3, fma(h2, r2, r1))
	t := fma(-r1, hfx, 3.0)
	e := hxs * ((r1 - t) / fma(-x, t, 6.0))
	if k == 0 {
		return x - fma(x, e, -hxs)
	}
	e = fma(x, e-c, -c)
	e -= hxs
	switch {
	case k == -1:
		return fma(0.5, x-e, -0.5)
	case k == 1:
		if x < -0.25 {
			return -2.0 * (e - (x + 0.5))
		}
		return fma(2.0, x-e, 1)
	case k <= -2 || k > 56:
		y := 1 - (e - x)
		y = setHigh(y, highWord(y)+uint32(k<<20))
		return y - 1
	}
	if k < 20 {
		t := setHigh(1, 0x3ff00000-(0x200000>>k))
		y := t - (e - x)
		return setHigh(y, highWord(y)+uint32(k<<20))
	}
	t = setHigh(1, uint32((0x3ff-k)<<20))
	y := x - (e + t)
	y += 1
	return setHigh(y, highWord(y)+uint32(k<<20))
}

// libmCbrt is glibc's __cbrt (sysdeps/ieee754/dbl-64/s_cbrt.c): a
// polynomial first guess on the frexp mantissa, one Halley step and a
// table factor for the exponent's remainder mod 3. glibc (2.36, x86-64)
// has no FMA variant of it: the unfused evaluation matched the C
// library bit for bit over three million random arguments on a CPU with
// FMA, and TestFloatFunctionsRandomMatchPostgres compares it with
// PostgreSQL's cbrt. The factors are divided at run time, in float64,
// as C folds them (Go's exact constant division could round otherwise).
func libmCbrt(x float64) float64 {
	cbrt2, sqrCbrt2 := 1.2599210498948731648, 1.5874010519681994748
	factor := [5]float64{1.0 / sqrCbrt2, 1.0 / cbrt2, 1.0, cbrt2, sqrCbrt2}
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x + x
	}
	xm, xe := math.Frexp(math.Abs(x))
	// Each product is rounded before its sum (float64(…): Go fuses
	// a*b+c on some architectures; glibc's build does not).
	p := 0.784932344976639262 - float64(0.145263899385486377*xm)
	p = -1.83469277483613086 + float64(p*xm)
	p = 2.44693122563534430 + float64(p*xm)
	p = -2.11499494167371287 + float64(p*xm)
	p = 1.50819193781584896 + float64(p*xm)
	u := 0.354895765043919860 + float64(p*xm)
	t2 := u * u * u
	ym := u * (t2 + float64(2.0*xm)) / (float64(2.0*t2) + xm) * factor[2+xe%3]
	if x < 0 {
		ym = -ym
	}
	return math.Ldexp(ym, xe/3)
}
