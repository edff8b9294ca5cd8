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

// bigLn2 and bigLn10 are ln 2 and ln 10 to bigPrec bits.
var (
	bigLn2  = atanhLn(bf(2))
	bigLn10 = bigLn(bf(10))
)

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

// crLn, crLog10, crExp and crPow are ln, log10, exp and pow of finite
// arguments in the domain, correctly rounded.
func crLn(x float64) float64 { return round64(bigLn(bf(x))) }

func crLog10(x float64) float64 {
	return round64(newF().Quo(bigLn(bf(x)), bigLn10))
}

func crExp(x float64) float64 {
	switch {
	case x > 710:
		return math.Inf(1)
	case x < -746:
		return 0
	}
	return round64(bigExp(bf(x)))
}

// crPow is x^y for finite x, y with x > 0, or x < 0 and y an integer, or
// x = 0 and y ≥ 0.
func crPow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case x == 0:
		return 0
	}
	neg := false
	if x < 0 {
		x = -x
		neg = math.Mod(y, 2) != 0
	}
	var r float64
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
		r = round64(p)
	} else {
		l := newF().Mul(bigLn(bf(x)), bf(y))
		if f, _ := l.Float64(); f > 710 {
			r = math.Inf(1)
		} else if f < -746 {
			r = 0
		} else {
			r = round64(bigExp(l))
		}
	}
	if neg {
		r = -r
	}
	return r
}
