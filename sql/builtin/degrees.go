package builtin

import (
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// The degree-based trigonometric functions (float.c's dsind, dcosd,
// dtand, dcotd, dasind, dacosd, datand, datan2d): PostgreSQL reduces the
// argument and scales libm's sin/cos/asin/acos/atan by constants
// computed with the same libm so that the special angles come out
// exact. Go's math differs from glibc in the last bit elsewhere, so the
// functions answer only where the result does not depend on it — the
// arguments whose reduced angle is one of the exact points (sind at 0,
// 30, 90 degrees; cosd at 0, 60, 90; tand and cotd at 0, 45, 90; asind
// and acosd of 0, ±0.5, ±1; atand of 0, ±1, ±Infinity; atan2d on an
// axis) — NaN, and the out-of-range errors; other arguments are refused.

// The scaling constants, computed as float.c's init_degree_constants
// does: float64 products at run time (a Go constant expression such as
// 30 * radiansPerDegree is exact before rounding, not the product
// sind computes).
var (
	degree30, degree60 = 30.0, 60.0
	sin30              = math.Sin(degree30 * radiansPerDegree)
	oneMinusCos60      = 1.0 - math.Cos(degree60*radiansPerDegree)
	asin05             = math.Asin(0.5)
	acos05             = math.Acos(0.5)
	atan10             = math.Atan(1.0)
)

func sind0to30(x float64) float64 { return (math.Sin(x*radiansPerDegree) / sin30) / 2.0 }
func cosd0to60(x float64) float64 {
	return 1.0 - ((1.0-math.Cos(x*radiansPerDegree))/oneMinusCos60)/2.0
}

func sindQ1(x float64) float64 {
	if x <= 30 {
		return sind0to30(x)
	}
	return cosd0to60(90 - x)
}

func cosdQ1(x float64) float64 {
	if x <= 60 {
		return cosd0to60(x)
	}
	return sind0to30(90 - x)
}

func asindQ1(x float64) float64 {
	if x <= 0.5 {
		return (math.Asin(x) / asin05) * 30.0
	}
	return 90.0 - (math.Acos(x)/acos05)*60.0
}

func acosdQ1(x float64) float64 {
	if x <= 0.5 {
		return 90.0 - (math.Asin(x)/asin05)*30.0
	}
	return (math.Acos(x) / acos05) * 60.0
}

var errTrigRange = errorf(CodeOutOfRange, "input is out of range")

// reduceDegrees reduces x to [0, 90] as the functions do: the reduced
// angle and the sign flips of the three reflections (x < 0, x > 180,
// x > 90 after them).
func reduceDegrees(x float64) (float64, [3]bool) {
	var flips [3]bool
	x = math.Mod(x, 360)
	if x < 0 {
		x, flips[0] = -x, true
	}
	if x > 180 {
		x, flips[1] = 360-x, true
	}
	if x > 90 {
		x, flips[2] = 180-x, true
	}
	return x, flips
}

func signOf(flip ...bool) float64 {
	s := 1.0
	for _, f := range flip {
		if f {
			s = -s
		}
	}
	return s
}

// degreeTrig is one of sind, cosd, tand, cotd: exact the reduced angles
// it answers at.
func degreeTrig(name string, exact []float64, f func(x float64, flips [3]bool) float64) Impl {
	return f8Fn(func(x float64) (float64, error) {
		if math.IsNaN(x) {
			return pgNaN, nil // get_float8_nan(), whatever the argument's bits
		}
		if math.IsInf(x, 0) {
			return 0, errTrigRange
		}
		r, flips := reduceDegrees(x)
		for _, e := range exact {
			if r == e {
				return f(r, flips), nil
			}
		}
		return 0, unsupported("%s of an angle other than a multiple of 30 or 45 degrees (Go's sin and cos differ from glibc's in the last digit)", name)
	})
}

// addDegreeTrig registers the degree-based trigonometric functions.
func (r *Registry) addDegreeTrig() {
	f8 := types.Float8
	r.def("sind", f8, degreeTrig("sind", []float64{0, 30, 90}, func(x float64, fl [3]bool) float64 {
		return signOf(fl[0], fl[1]) * sindQ1(x)
	}), f8)
	r.def("cosd", f8, degreeTrig("cosd", []float64{0, 60, 90}, func(x float64, fl [3]bool) float64 {
		return signOf(fl[2]) * cosdQ1(x)
	}), f8)
	noMinusZero := func(v float64) float64 {
		if v == 0 {
			return 0
		}
		return v
	}
	tan45 := sindQ1(45) / cosdQ1(45)
	cot45 := cosdQ1(45) / sindQ1(45)
	r.def("tand", f8, degreeTrig("tand", []float64{0, 45, 90}, func(x float64, fl [3]bool) float64 {
		return noMinusZero(signOf(fl[0], fl[1], fl[2]) * ((sindQ1(x) / cosdQ1(x)) / tan45))
	}), f8)
	r.def("cotd", f8, degreeTrig("cotd", []float64{0, 45, 90}, func(x float64, fl [3]bool) float64 {
		return noMinusZero(signOf(fl[0], fl[1], fl[2]) * ((cosdQ1(x) / sindQ1(x)) / cot45))
	}), f8)
	inverse := func(name string, exact func(x float64) bool, f func(x float64) float64) Impl {
		return f8Fn(func(x float64) (float64, error) {
			if math.IsNaN(x) {
				return pgNaN, nil // get_float8_nan()
			}
			if name != "atand" && (x < -1 || x > 1) {
				return 0, errTrigRange
			}
			if !exact(x) {
				return 0, unsupported("%s of this argument (Go's inverse trigonometric functions differ from glibc's in the last digit)", name)
			}
			return f(x), nil
		})
	}
	half := func(x float64) bool { a := math.Abs(x); return a == 0 || a == 0.5 || a == 1 }
	r.def("asind", f8, inverse("asind", half, func(x float64) float64 {
		if x >= 0 {
			return asindQ1(x)
		}
		return -asindQ1(-x)
	}), f8)
	r.def("acosd", f8, inverse("acosd", half, func(x float64) float64 {
		if x >= 0 {
			return acosdQ1(x)
		}
		return 90.0 + asindQ1(-x)
	}), f8)
	r.def("atand", f8, inverse("atand", func(x float64) bool { return x == 0 || math.Abs(x) == 1 || math.IsInf(x, 0) }, func(x float64) float64 {
		return (math.Atan(x) / atan10) * 45.0
	}), f8)
	r.def("atan2d", f8, f8Fn2(func(y, x float64) (float64, error) {
		if math.IsNaN(x) || math.IsNaN(y) {
			return pgNaN, nil // get_float8_nan()
		}
		if x != 0 && y != 0 && !(math.IsInf(x, 0) && math.IsInf(y, 0)) {
			return 0, unsupported("atan2d off the axes (Go's atan2 differs from glibc's in the last digit)")
		}
		return (math.Atan2(y, x) / atan10) * 45.0, nil
	}), f8, f8)
}
