package query

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"

	"github.com/sidecar-dev/sidecar/heap"
)

// Numeric columns stay exact: a value is an int64 unscaled value and its
// display scale (heap's typed segment), or, for the exceptions heap keeps
// as text (NaN, ±Infinity, more than 18 digits), its class or a big.Int.
// Comparisons align scales in 64 bits when they fit and fall back to
// big.Int; sums add in 128 bits at the largest scale seen (big.Int past
// that); averages divide with PostgreSQL's select_div_scale. No float is
// involved anywhere.

// Numeric classes in PostgreSQL's order: -Infinity < finite < Infinity <
// NaN.
const (
	numNegInf int8 = -1
	numFinite int8 = 0
	numPosInf int8 = 1
	numNaN    int8 = 2
)

// numv is one numeric value: cls; for finite values u/10^s, or b/10^s
// when b is set (too wide for int64).
type numv struct {
	cls int8
	u   int64
	s   int32
	b   *big.Int
}

var specialText = map[int8]string{numNegInf: "-Infinity", numPosInf: "Infinity", numNaN: "NaN"}

// numAt reads slot s of numeric column c of page v.
func numAt(v heap.PageView, c, s int, exc []uint64) numv {
	if exc != nil && exc[s>>6]&(1<<(s&63)) != 0 {
		return parseNumv(v.Text(c, s))
	}
	return numv{u: v.Int64s(c)[s], s: int32(v.Scales(c)[s])}
}

// parseNumv reads numeric_out's text (an exception's).
func parseNumv(t []byte) numv {
	switch string(t) {
	case "NaN":
		return numv{cls: numNaN}
	case "Infinity":
		return numv{cls: numPosInf}
	case "-Infinity":
		return numv{cls: numNegInf}
	}
	b, sc, ok := heap.ParseNumeric(t)
	if !ok {
		return numv{cls: numNaN} // heap accepted it as numeric: cannot happen
	}
	return bigNumv(b, sc)
}

func bigNumv(b *big.Int, s int32) numv {
	if b.IsInt64() {
		return numv{u: b.Int64(), s: s}
	}
	return numv{b: b, s: s}
}

func (n numv) big() *big.Int {
	if n.b != nil {
		return n.b
	}
	return big.NewInt(n.u)
}

// numValue is the result cell of n.
func numValue(n numv) Value {
	if n.cls != numFinite {
		return Value{K: vNumeric, S: specialText[n.cls]}
	}
	return Value{K: vNumeric, Num: n.big(), Scale: n.s}
}

// valueNumv is the numv of a numeric Value (a bound literal).
func valueNumv(v Value) numv {
	switch v.S {
	case "NaN":
		return numv{cls: numNaN}
	case "Infinity":
		return numv{cls: numPosInf}
	case "-Infinity":
		return numv{cls: numNegInf}
	}
	if v.Num == nil {
		return numv{u: v.I}
	}
	return bigNumv(v.Num, v.Scale)
}

// mulPow10 returns u·10^k when it fits in an int64.
func mulPow10(u int64, k int32) (int64, bool) {
	if k > 18 {
		return 0, u == 0
	}
	p := uint64(1)
	for range k {
		p *= 10
	}
	a := u
	if a < 0 {
		if a == math.MinInt64 {
			return 0, false
		}
		a = -a
	}
	hi, lo := bits.Mul64(uint64(a), p)
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if u < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

// numCmp orders two numerics as PostgreSQL does (NaN = NaN, above all).
func numCmp(a, b numv) int {
	if a.cls != b.cls || a.cls != numFinite {
		return cmp64(int64(a.cls), int64(b.cls))
	}
	if a.b == nil && b.b == nil {
		switch {
		case a.s == b.s:
			return cmp64(a.u, b.u)
		case a.s < b.s:
			if x, ok := mulPow10(a.u, b.s-a.s); ok {
				return cmp64(x, b.u)
			}
		default:
			if y, ok := mulPow10(b.u, a.s-b.s); ok {
				return cmp64(a.u, y)
			}
		}
	}
	x, y := new(big.Int).Set(a.big()), new(big.Int).Set(b.big())
	if a.s < b.s {
		x.Mul(x, pow10big(b.s-a.s))
	} else if b.s < a.s {
		y.Mul(y, pow10big(a.s-b.s))
	}
	return x.Cmp(y)
}

func pow10big(n int32) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// numSum is an exact numeric sum (and the min/max of the same column):
// lo at scale, plus hi (big, same scale) once lo's rescaling overflowed;
// the specials counted apart, as PostgreSQL's numeric aggregates do.
type numSum struct {
	lo              heap.Int128
	hi              *big.Int
	scale           int32
	nan, pinf, ninf int64
	best            numv // min or max
}

func (x *numSum) add(n numv) {
	switch n.cls {
	case numNaN:
		x.nan++
		return
	case numPosInf:
		x.pinf++
		return
	case numNegInf:
		x.ninf++
		return
	}
	if n.s > x.scale {
		x.rescale(n.s)
	}
	if n.b == nil {
		if n.s == x.scale {
			x.lo.Add(n.u)
			return
		}
		if u, ok := mulPow10(n.u, x.scale-n.s); ok {
			x.lo.Add(u)
			return
		}
	}
	v := new(big.Int).Mul(n.big(), pow10big(x.scale-n.s))
	if x.hi == nil {
		x.hi = new(big.Int)
	}
	x.hi.Add(x.hi, v)
}

// rescale moves the sum to scale s (> x.scale).
func (x *numSum) rescale(s int32) {
	t := x.lo.Big()
	if x.hi != nil {
		t.Add(t, x.hi)
	}
	if t.Sign() != 0 {
		x.hi = t.Mul(t, pow10big(s-x.scale))
	} else {
		x.hi = nil
	}
	x.lo = heap.Int128{}
	x.scale = s
}

func (x *numSum) merge(o *numSum) {
	x.nan += o.nan
	x.pinf += o.pinf
	x.ninf += o.ninf
	if o.scale > x.scale {
		x.rescale(o.scale)
	}
	t := o.lo.Big()
	if o.hi != nil {
		t.Add(t, o.hi)
	}
	if t.Sign() == 0 {
		return
	}
	if o.scale < x.scale {
		t.Mul(t, pow10big(x.scale-o.scale))
	}
	if x.hi == nil {
		x.hi = new(big.Int)
	}
	x.hi.Add(x.hi, t)
}

// total is the sum as PostgreSQL's sum(numeric) gives it: NaN when a NaN
// or both infinities were added, else an infinity, else the exact sum at
// the largest display scale among the inputs.
func (x *numSum) total() numv {
	switch {
	case x.nan > 0 || x.pinf > 0 && x.ninf > 0:
		return numv{cls: numNaN}
	case x.pinf > 0:
		return numv{cls: numPosInf}
	case x.ninf > 0:
		return numv{cls: numNegInf}
	}
	t := x.lo.Big()
	if x.hi != nil {
		t.Add(t, x.hi)
	}
	return bigNumv(t, x.scale)
}

// avg is PostgreSQL's avg(numeric): the total divided by n.
func (x *numSum) avg(n int64) Value {
	t := x.total()
	if t.cls != numFinite {
		return numValue(t)
	}
	return numericDiv(t.big(), t.s, n)
}

// numKey appends n's group key: numerics PostgreSQL's numeric equality
// makes equal (1.0 = 1.00, NaN = NaN) get one key, whatever their display
// scale or whether the heap holds them in 64 bits or as an exception. The
// key is the class, then for finite values the unscaled value with its
// trailing zeros stripped and the scale that leaves.
func numKey(dst []byte, n numv) []byte {
	dst = append(dst, byte(n.cls+2))
	if n.cls != numFinite {
		return dst
	}
	u, s := n.u, n.s
	if n.b != nil {
		b, ten, m := new(big.Int).Set(n.b), big.NewInt(10), new(big.Int)
		for s > 0 {
			q, r := new(big.Int).QuoRem(b, ten, m)
			if r.Sign() != 0 {
				break
			}
			b, s = q, s-1
		}
		if !b.IsInt64() {
			dst = append(dst, 'b', byte(b.Sign()+1))
			dst = binary.BigEndian.AppendUint32(dst, uint32(s))
			return append(dst, b.Bytes()...)
		}
		u = b.Int64()
	}
	for s > 0 && u%10 == 0 {
		u, s = u/10, s-1
	}
	if u == 0 {
		s = 0
	}
	dst = append(dst, 'i')
	dst = binary.BigEndian.AppendUint32(dst, uint32(s))
	return binary.BigEndian.AppendUint64(dst, uint64(u))
}
