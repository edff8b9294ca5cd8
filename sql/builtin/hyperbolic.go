package builtin

import (
	"math"
)

// sinh, cosh, tanh, asinh, acosh and atanh as PostgreSQL computes them:
// float.c's dsinh … datanh around the C library's functions, which
// glibc (x86-64) computes with fdlibm's algorithms (e_sinh.c, e_cosh.c,
// s_tanh.c, s_asinh.c, e_acosh.c; glibc's own e_atanh.c) over expm1
// (libm.go), log1p (not reproduced: those arguments are refused) and
// glibc's exp and log (within 0.52 ULP: computed here correctly rounded,
// refused near a midpoint — crExp, crLn). Explicit float64 conversions keep Go from
// fusing a multiply and an add, which the C library's build does not.
// TestHyperbolicMatchPostgres compares them with PostgreSQL.

const (
	hypLn2  = 6.93147180559945286227e-01
	hypHuge = 1.0e300
)

func highWord(x float64) uint32 { return uint32(math.Float64bits(x) >> 32) }
func lowWord(x float64) uint32  { return uint32(math.Float64bits(x)) }

// libmSinh is __ieee754_sinh.
func libmSinh(x float64, fused bool) (float64, error) {
	jx := highWord(x)
	ix := jx & 0x7fffffff
	if ix >= 0x7ff00000 {
		return x + x, nil
	}
	h := 0.5
	if int32(jx) < 0 {
		h = -h
	}
	ax := math.Abs(x)
	if ix < 0x40360000 { // |x| < 22
		if ix < 0x3e300000 { // |x| < 2**-28
			return x, nil
		}
		t := libmExpm1(ax, fused)
		if ix < 0x3ff00000 {
			return h * (float64(2.0*t) - float64(t*t)/(t+1)), nil
		}
		return h * (t + t/(t+1)), nil
	}
	if ix < 0x40862e42 { // |x| in [22, log(maxdouble)]
		e, err := crExp(ax)
		return h * e, err
	}
	if ix < 0x408633ce || ix == 0x408633ce && lowWord(x) <= 0x8fb9f87d {
		w, err := crExp(0.5 * ax)
		t := h * w
		return t * w, err
	}
	return x * 1.0e307, nil // overflow
}

// libmCosh is __ieee754_cosh.
func libmCosh(x float64, fused bool) (float64, error) {
	ix := highWord(x) & 0x7fffffff
	ax := math.Abs(x)
	if ix < 0x40360000 {
		if ix < 0x3fd62e43 {
			if ix < 0x3c800000 {
				return 1, nil
			}
			t := libmExpm1(ax, fused)
			w := 1 + t
			return 1 + float64(t*t)/(w+w), nil
		}
		t, err := crExp(ax)
		return float64(0.5*t) + 0.5/t, err
	}
	if ix < 0x40862e42 {
		e, err := crExp(ax)
		return 0.5 * e, err
	}
	if ix < 0x408633ce || ix == 0x408633ce && lowWord(x) <= 0x8fb9f87d {
		w, err := crExp(0.5 * ax)
		t := 0.5 * w
		return t * w, err
	}
	if ix >= 0x7ff00000 {
		return x * x, nil
	}
	return math.Inf(1), nil
}

// libmTanh is __tanh.
func libmTanh(x float64, fused bool) float64 {
	jx := highWord(x)
	ix := jx & 0x7fffffff
	if ix >= 0x7ff00000 {
		if int32(jx) >= 0 {
			return 1/x + 1
		}
		return 1/x - 1
	}
	var z float64
	if ix < 0x40360000 {
		if x == 0 {
			return x
		}
		if ix < 0x3c800000 {
			return x * (1 + x)
		}
		if ix >= 0x3ff00000 {
			t := libmExpm1(2*math.Abs(x), fused)
			z = 1 - 2/(t+2)
		} else {
			t := libmExpm1(-2*math.Abs(x), fused)
			z = -t / (t + 2)
		}
	} else {
		z = 1 - 1e-300
	}
	if int32(jx) >= 0 {
		return z
	}
	return -z
}

// libmAsinh is __asinh.
func libmAsinh(x float64) (float64, error) {
	ix := highWord(x) & 0x7fffffff
	if ix < 0x3e300000 {
		return x, nil
	}
	var w float64
	var err error
	xa := math.Abs(x)
	switch {
	case ix > 0x41b00000:
		if ix >= 0x7ff00000 {
			return x + x, nil
		}
		w, err = crLn(xa)
		w += hypLn2
	case ix > 0x40000000:
		w, err = crLn(float64(2.0*xa) + 1/(math.Sqrt(float64(xa*xa)+1)+xa))
	default:
		return 0, errLog1p
	}
	return math.Copysign(w, x), err
}

// libmAcosh is __ieee754_acosh (x ≥ 1: dacosh refuses less).
func libmAcosh(x float64) (float64, error) {
	hx := int64(math.Float64bits(x))
	switch {
	case hx > 0x4000000000000000:
		if hx >= 0x41b0000000000000 {
			if hx >= 0x7ff0000000000000 {
				return x + x, nil
			}
			w, err := crLn(x)
			return w + hypLn2, err
		}
		t := x * x
		return crLn(float64(2.0*x) - 1/(x+math.Sqrt(t-1)))
	case hx > 0x3ff0000000000000:
		return 0, errLog1p
	case hx == 0x3ff0000000000000:
		return 0, nil
	}
	return (x - x) / (x - x), nil
}

// bothBuilds answers fn's value where glibc's builds with and without
// FMA (libm.go) agree, and refuses elsewhere.
func bothBuilds(fn func(x float64, fused bool) (float64, error)) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		a, err := fn(x, true)
		if err != nil {
			return 0, err
		}
		b, err := fn(x, false)
		if err != nil {
			return 0, err
		}
		if math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
			return 0, errBuilds
		}
		return a, nil
	}
}

// errBuilds refuses an argument whose result depends on whether the
// server's C library runs its FMA build.
var errBuilds = unsupported("this argument: its float8 result depends on the CPU features of PostgreSQL's C library build")

var errInputRange = errorf(CodeOutOfRange, "input is out of range")

// errLog1p refuses the arguments whose result glibc computes with log1p
// (libm.go).
var errLog1p = unsupported("this argument of asinh, acosh or atanh (glibc's log1p is not reproduced exactly)")

func (r *Registry) addHyperbolic() {
	r.def("sinh", f8, f8Fn(bothBuilds(libmSinh)), f8) // overflow answers ±Infinity (dsinh)
	r.def("cosh", f8, f8Fn(func(x float64) (float64, error) {
		v, err := bothBuilds(libmCosh)(x)
		if err == nil && v == 0 {
			return 0, errUnderflow
		}
		return v, err
	}), f8)
	r.def("tanh", f8, f8Fn(func(x float64) (float64, error) {
		v, err := bothBuilds(func(x float64, fused bool) (float64, error) { return libmTanh(x, fused), nil })(x)
		if err == nil && math.IsInf(v, 0) {
			return 0, errOverflow
		}
		return v, err
	}), f8)
	r.def("asinh", f8, f8Fn(libmAsinh), f8)
	r.def("acosh", f8, f8Fn(func(x float64) (float64, error) {
		if x < 1 {
			return 0, errInputRange
		}
		return libmAcosh(x)
	}), f8)
	r.def("atanh", f8, f8Fn(func(x float64) (float64, error) {
		switch {
		case math.IsNaN(x):
			return x, nil // datanh passes NaN to atanh, which returns it
		case x < -1 || x > 1:
			return 0, errInputRange
		case x == -1:
			return math.Inf(-1), nil
		case x == 1:
			return math.Inf(1), nil
		}
		if x == 0 || math.Abs(x) < 0x1p-28 {
			return x, nil
		}
		return 0, errLog1p
	}), f8)
}
