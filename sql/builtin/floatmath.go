package builtin

import (
	"math"
	"math/big"
)

// PostgreSQL's float8 functions call the C library, whose exp, log and
// pow (glibc's) round correctly in all but vanishingly rare cases; Go's
// math package does not (math.Pow differs from glibc in most last
// digits). These are computed in 256-bit binary floating point and
// rounded once to float64, so they give the correctly rounded value.

const bigPrec = 256

func newF() *big.Float { return new(big.Float).SetPrec(bigPrec) }

func bf(x float64) *big.Float { return newF().SetFloat64(x) }

// bigLn2 is ln 2 to bigPrec bits.
var bigLn2 = atanhLn(bf(2))

// atanhLn is ln(m) = 2·atanh((m−1)/(m+1)), converging for m near 1.
func atanhLn(m *big.Float) *big.Float {
	one := bf(1)
	z := newF().Quo(newF().Sub(m, one), newF().Add(m, one))
	z2 := newF().Mul(z, z)
	sum := newF().Set(z)
	term := newF().Set(z)
	eps := newF().SetMantExp(bf(1), -bigPrec-8)
	for k := int64(3); ; k += 2 {
		term.Mul(term, z2)
		t := newF().Quo(term, newF().SetInt64(k))
		if t.Sign() == 0 || newF().Abs(t).Cmp(eps) < 0 {
			break
		}
		sum.Add(sum, t)
	}
	return sum.Mul(sum, bf(2))
}

// bigLn is ln(x) for finite x > 0.
func bigLn(x *big.Float) *big.Float {
	mant := newF()
	e := x.MantExp(mant) // x = mant × 2^e, mant ∈ [0.5, 1)
	if mant.Cmp(bf(math.Sqrt2/2)) < 0 {
		mant.SetMantExp(mant, 1)
		e--
	}
	r := atanhLn(mant)
	return r.Add(r, newF().Mul(bigLn2, newF().SetInt64(int64(e))))
}

// bigExp is e^x for |x| < 2^20 (callers handle overflow beyond).
func bigExp(x *big.Float) *big.Float {
	// x = k ln 2 + r, |r| ≤ ln 2 / 2; e^r by Taylor on r / 2^10, squared
	// back ten times.
	kf := newF().Quo(x, bigLn2)
	k, _ := kf.Int64()
	if f, _ := kf.Float64(); f-float64(k) > 0.5 {
		k++
	} else if float64(k)-f > 0.5 {
		k--
	}
	r := newF().Sub(x, newF().Mul(bigLn2, newF().SetInt64(k)))
	r.SetMantExp(r, -10)
	sum, term := bf(1), bf(1)
	eps := newF().SetMantExp(bf(1), -bigPrec-8)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, newF().SetInt64(n))
		if term.Sign() == 0 || newF().Abs(term).Cmp(eps) < 0 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < 10; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

// round64 is x correctly rounded to float64 (±Inf past the range, ±0 or
// a subnormal below it).
func round64(x *big.Float) float64 {
	f, _ := x.Float64()
	return f
}

// Bands: how close (in units in the last place) to the midpoint between
// two doubles a correctly rounded result may come while the C library's
// is certain to be the same double. glibc's exp, log and pow (2.28 and
// later) err by at most 0.511, 0.519 and 0.52 ULP, so a true value
// farther than 0.011, 0.019 and 0.02 ULP from a midpoint rounds alike
// in both. Closer values are refused (0A000) rather than risk the
// other last digit: about 2 × band of random arguments.
const (
	bandExp = 0.012
	bandLn  = 0.02
	bandPow = 0.021
)

// errLastDigit refuses a result whose last binary digit the C library
// may round the other way.
var errLastDigit = unsupported("this argument: its float8 result is too close to a rounding boundary to be sure of the C library's last digit")

// roundChecked is x rounded to float64, refused when within band ULP of
// a midpoint.
func roundChecked(x *big.Float, band float64) (float64, error) {
	f := round64(x)
	if f == 0 || math.IsInf(f, 0) || math.Abs(f) < 0x1p-1022 {
		return f, nil
	}
	a := math.Abs(f)
	ulp := math.Min(math.Nextafter(a, math.Inf(1))-a, a-math.Nextafter(a, 0))
	d := newF().Sub(x, bf(f))
	dist, _ := d.Abs(d).Float64()
	if 0.5-dist/ulp < band {
		return 0, errLastDigit
	}
	return f, nil
}

// crLn, crLog10, crExp and crPow are ln, log10, exp and pow of finite
// arguments in the domain, correctly rounded (refused near a midpoint).
func crLn(x float64) (float64, error) { return roundChecked(bigLn(bf(x)), bandLn) }

// crLog10 answers only log10(10^N) = N for N = 0…22 (exact in the C
// library, fdlibm's documented special case): glibc's log10 errs past
// 0.55 ULP for other arguments (measured), so no band makes it certain.
func crLog10(x float64) (float64, error) {
	p := 1.0
	for n := 0; n <= 22; n++ {
		if x == p {
			return float64(n), nil
		}
		p *= 10
	}
	return 0, unsupported("log10/log of this argument (the C library's last digit is not certain)")
}

func crExp(x float64) (float64, error) {
	switch {
	case x > 710:
		return math.Inf(1), nil
	case x < -746:
		return 0, nil
	}
	return roundChecked(bigExp(bf(x)), bandExp)
}

// crPow is x^y for finite x, y with x > 0, or x < 0 and y an integer, or
// x = 0 and y ≥ 0.
func crPow(x, y float64) (float64, error) {
	switch {
	case y == 0 || x == 1:
		return 1, nil
	case x == 0:
		return 0, nil
	}
	neg := false
	if x < 0 {
		x = -x
		neg = math.Mod(y, 2) != 0
	}
	var r float64
	var err error
	if y == math.Trunc(y) && math.Abs(y) <= 64 {
		// An integer power exactly, then one rounding (ties as C's pow).
		n := int(math.Abs(y))
		p := new(big.Float).SetPrec(uint(53*n + 64)).SetFloat64(1)
		b := new(big.Float).SetPrec(uint(53*n + 64)).SetFloat64(x)
		for i := 0; i < n; i++ {
			p.Mul(p, b)
		}
		if y < 0 {
			p = newF().Quo(bf(1), p)
		}
		r, err = roundChecked(p, bandPow)
	} else {
		l := newF().Mul(bigLn(bf(x)), bf(y))
		if f, _ := l.Float64(); f > 710 {
			r = math.Inf(1)
		} else if f < -746 {
			r = 0
		} else {
			r, err = roundChecked(bigExp(l), bandPow)
		}
	}
	if neg {
		r = -r
	}
	return r, err
}
