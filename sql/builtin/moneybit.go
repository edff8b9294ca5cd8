package builtin

import (
	"math"
	"math/bits"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// The money functions and operator functions of PostgreSQL's cash.c
// (cash_pl, cash_mi, cash_mul_*/*_mul_cash, cash_div_*, cash_div_cash,
// cashlarger, cashsmaller, cash_words: bound by sql/plan's
// moneyBitOperator for + - * /) and the bit string functions of
// varbit.c (& | # ~ << >> as operators of the library, bitcat for ||,
// length, bit_length, octet_length, bit_count, get_bit, set_bit,
// substring, position, overlay).

const (
	money  = types.Money
	bit    = types.Bit
	varbit = types.Varbit
	f4     = types.Float4
)

func cash(a types.Value) int64          { return int64(a.(types.MoneyVal)) }
func bitsOf(a types.Value) types.BitVal { return a.(types.BitVal) }

var errMoneyRange = errorf(CodeOutOfRange, "money out of range")

// cashMulFloat8 is cash_mul_float8: float8_mul's overflow and underflow
// errors, then rint and the int64 range.
func cashMulFloat8(c int64, f float64) (types.Value, error) {
	r := float64(c) * f
	if math.IsInf(r, 0) && !math.IsInf(f, 0) {
		return nil, errorf(CodeOutOfRange, "value out of range: overflow")
	}
	if r == 0 && c != 0 && f != 0 {
		return nil, errorf(CodeOutOfRange, "value out of range: underflow")
	}
	return cashFromFloat(r)
}

// cashDivFloat8 is cash_div_float8: float8_div's errors, then rint and
// the int64 range.
func cashDivFloat8(c int64, f float64) (types.Value, error) {
	if f == 0 {
		return nil, errorf(CodeDivisionByZero, "division by zero")
	}
	r := float64(c) / f
	if r == 0 && c != 0 && !math.IsInf(f, 0) {
		return nil, errorf(CodeOutOfRange, "value out of range: underflow")
	}
	return cashFromFloat(r)
}

// cashFromFloat is rint, then FLOAT8_FITS_IN_INT64 or "money out of range".
func cashFromFloat(r float64) (types.Value, error) {
	r = math.RoundToEven(r)
	if math.IsNaN(r) || r < math.MinInt64 || r >= -float64(math.MinInt64) {
		return nil, errMoneyRange
	}
	return types.MoneyVal(int64(r)), nil
}

// cashMulInt is cash_mul_int64 with its overflow error.
func cashMulInt(c, i int64) (types.Value, error) {
	p := c * i
	if c != 0 && (p/c != i || c == -1 && i == math.MinInt64 || i == -1 && c == math.MinInt64) {
		return nil, errMoneyRange
	}
	return types.MoneyVal(p), nil
}

// cashDivInt is cash_div_int64: division by zero, and the int64
// minimum over -1, which traps in C (SIGFPE: PostgreSQL's
// "floating-point exception").
func cashDivInt(c, i int64) (types.Value, error) {
	if i == 0 {
		return nil, errorf(CodeDivisionByZero, "division by zero")
	}
	if c == math.MinInt64 && i == -1 {
		return nil, &Error{Code: "22P01", Message: "floating-point exception",
			Detail: "An invalid floating-point operation was signaled. This probably means an out-of-range result or an invalid operation, such as division by zero."}
	}
	return types.MoneyVal(c / i), nil
}

func (r *Registry) addMoney() {
	r.def("cash_pl", money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x, y := cash(a[0]), cash(a[1])
		s := x + y
		if (x >= 0) == (y >= 0) && (s >= 0) != (x >= 0) {
			return nil, errMoneyRange
		}
		return types.MoneyVal(s), nil
	}, money, money)
	r.def("cash_mi", money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x, y := cash(a[0]), cash(a[1])
		d := x - y
		if (x >= 0) != (y >= 0) && (d >= 0) != (x >= 0) {
			return nil, errMoneyRange
		}
		return types.MoneyVal(d), nil
	}, money, money)
	r.def("cash_div_cash", f8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		if cash(a[1]) == 0 {
			return nil, errorf(CodeDivisionByZero, "division by zero")
		}
		return float64(cash(a[0])) / float64(cash(a[1])), nil
	}, money, money)
	for _, n := range []struct {
		name string
		t    OID
	}{{"flt8", f8}, {"flt4", f4}} {
		r.def("cash_mul_"+n.name, money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return cashMulFloat8(cash(a[0]), a[1].(float64))
		}, money, n.t)
		r.def(n.name+"_mul_cash", money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return cashMulFloat8(cash(a[1]), a[0].(float64))
		}, n.t, money)
		r.def("cash_div_"+n.name, money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return cashDivFloat8(cash(a[0]), a[1].(float64))
		}, money, n.t)
	}
	for _, n := range []struct {
		name string
		t    OID
	}{{"int8", i8}, {"int4", i4}, {"int2", i2}} {
		r.def("cash_mul_"+n.name, money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return cashMulInt(cash(a[0]), i64(a[1]))
		}, money, n.t)
		r.def(n.name+"_mul_cash", money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return cashMulInt(cash(a[1]), i64(a[0]))
		}, n.t, money)
		r.def("cash_div_"+n.name, money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return cashDivInt(cash(a[0]), i64(a[1]))
		}, money, n.t)
	}
	r.def("cashlarger", money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return types.MoneyVal(max(cash(a[0]), cash(a[1]))), nil
	}, money, money)
	r.def("cashsmaller", money, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return types.MoneyVal(min(cash(a[0]), cash(a[1]))), nil
	}, money, money)
	r.def("cash_words", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return cashWords(cash(a[0])), nil
	}, money)
}

// cashWords is cash_words: the amount in (North American) words.
func cashWords(value int64) string {
	var b strings.Builder
	if value < 0 {
		value = -value
		b.WriteString("minus ")
	}
	val := uint64(value)
	dollars := val / 100
	m0 := val % 100
	groups := []struct {
		div  uint64
		name string
	}{{100000000000000000, " quadrillion "}, {100000000000000, " trillion "}, {100000000000, " billion "}, {100000000, " million "}, {100000, " thousand "}}
	for _, g := range groups {
		if m := (val / g.div) % 1000; m != 0 {
			appendNumWord(&b, m)
			b.WriteString(g.name)
		}
	}
	if m1 := (val / 100) % 1000; m1 != 0 {
		appendNumWord(&b, m1)
	}
	if dollars == 0 {
		b.WriteString("zero")
	}
	if dollars == 1 {
		b.WriteString(" dollar and ")
	} else {
		b.WriteString(" dollars and ")
	}
	appendNumWord(&b, m0)
	if m0 == 1 {
		b.WriteString(" cent")
	} else {
		b.WriteString(" cents")
	}
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

// appendNumWord is append_num_word: 0 ≤ value < 1000 in words.
func appendNumWord(b *strings.Builder, value uint64) {
	small := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
		"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	big := small[18:]
	tu := value % 100
	switch {
	case value <= 20:
		b.WriteString(small[value])
	case tu == 0:
		b.WriteString(small[value/100] + " hundred")
	case value > 99:
		switch {
		case value%10 == 0 && tu > 10:
			b.WriteString(small[value/100] + " hundred " + big[tu/10])
		case tu < 20:
			b.WriteString(small[value/100] + " hundred and " + small[tu])
		default:
			b.WriteString(small[value/100] + " hundred " + big[tu/10] + " " + small[tu%10])
		}
	default:
		switch {
		case value%10 == 0 && tu > 10:
			b.WriteString(big[tu/10])
		case tu < 20:
			b.WriteString(small[tu])
		default:
			b.WriteString(big[tu/10] + " " + small[tu%10])
		}
	}
}

// bitBytes is a bit string's bytes, to modify.
func bitBytes(v types.BitVal) []byte { return []byte(v.B) }

// bitSub is bitsubstring: bits s (1-based) to s+l-1, to the end when
// the length is not given.
func bitSub(v types.BitVal, s, l int64, hasLen bool) (types.BitVal, error) {
	n := int64(v.N)
	s1 := max(s, 1)
	var e1 int64
	switch {
	case !hasLen:
		e1 = n + 1
	case l < 0:
		return types.BitVal{}, errorf(CodeSubstringError, "negative substring length not allowed")
	case s+l < s || s+l > math.MaxInt32 || s+l < math.MinInt32: // pg_add_s32_overflow
		e1 = n + 1
	default:
		e1 = min(s+l, n+1)
	}
	if s1 > n || e1 <= s1 {
		return types.BitVal{}, nil
	}
	out := make([]byte, (e1-s1+7)/8)
	for i := s1 - 1; i < e1-1; i++ {
		if v.BitAt(int(i)) == 1 {
			j := i - (s1 - 1)
			out[j/8] |= 0x80 >> uint(j%8)
		}
	}
	return types.BitVal{N: int32(e1 - s1), B: string(out)}, nil
}

// bitCat is bit_catenate.
func bitCat(x, y types.BitVal) (types.BitVal, error) {
	n := int(x.N) + int(y.N)
	if n > 10485760*8 {
		return types.BitVal{}, errorf(CodeProgramLimit, "bit string length exceeds the maximum allowed (%d)", 10485760*8)
	}
	out := make([]byte, (n+7)/8)
	copy(out, x.B)
	for i := 0; i < int(y.N); i++ {
		if y.BitAt(i) == 1 {
			j := int(x.N) + i
			out[j/8] |= 0x80 >> uint(j%8)
		}
	}
	return types.BitVal{N: int32(n), B: string(out)}, nil
}

// bitShift is bitshiftleft (n > 0) and bitshiftright (n < 0): the same
// length, zeros shifted in.
func bitShift(v types.BitVal, left int64) types.BitVal {
	out := make([]byte, len(v.B))
	for i := 0; i < int(v.N); i++ {
		from := int64(i) + left
		if from >= 0 && from < int64(v.N) && v.BitAt(int(from)) == 1 {
			out[i/8] |= 0x80 >> uint(i%8)
		}
	}
	return types.BitVal{N: v.N, B: string(out)}
}

// bitCombine is bitand/bitor/bitxor (word names the operation in the
// error): f over the bytes of two bit strings of one length.
func bitCombine(x, y types.BitVal, word string, f func(x, y byte) byte) (types.BitVal, error) {
	if x.N != y.N {
		return types.BitVal{}, errorf(types.CodeLengthMismatch, "cannot %s bit strings of different sizes", word)
	}
	out := bitBytes(x)
	for i := range out {
		out[i] = f(out[i], y.B[i])
	}
	return types.BitVal{N: x.N, B: string(out)}, nil
}

func (r *Registry) addBit() {
	bitwise := func(name, op, word string, f func(x, y byte) byte) {
		r.def(name, bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return bitCombine(bitsOf(a[0]), bitsOf(a[1]), word, f)
		}, bit, bit)
		r.ops[op] = append(r.ops[op], name)
	}
	bitwise("bitand", "&", "AND", func(x, y byte) byte { return x & y })
	bitwise("bitor", "|", "OR", func(x, y byte) byte { return x | y })
	bitwise("bitxor", "#", "XOR", func(x, y byte) byte { return x ^ y })
	r.def("bitnot", bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x := bitsOf(a[0])
		out := bitBytes(x)
		for i := range out {
			out[i] = ^out[i]
		}
		return types.NewBitVal(int(x.N), out), nil
	}, bit)
	r.prefix["~"] = append(r.prefix["~"], "bitnot")
	r.def("bitshiftleft", bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return bitShift(bitsOf(a[0]), i64(a[1])), nil
	}, bit, i4)
	r.ops["<<"] = append(r.ops["<<"], "bitshiftleft")
	r.def("bitshiftright", bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return bitShift(bitsOf(a[0]), -i64(a[1])), nil
	}, bit, i4)
	r.ops[">>"] = append(r.ops[">>"], "bitshiftright")
	r.def("bitcat", varbit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return bitCat(bitsOf(a[0]), bitsOf(a[1]))
	}, varbit, varbit)
	for _, name := range []string{"length", "bit_length"} {
		r.def(name, i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return int64(bitsOf(a[0]).N), nil
		}, bit)
	}
	r.def("octet_length", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return int64(len(bitsOf(a[0]).B)), nil
	}, bit)
	r.def("bit_count", i8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n := 0
		for _, c := range []byte(bitsOf(a[0]).B) {
			n += bits.OnesCount8(c)
		}
		return int64(n), nil
	}, bit)
	index := func(v types.BitVal, n int64) error {
		if n < 0 || n >= int64(v.N) {
			return errorf("2202E", "bit index %d out of valid range (0..%d)", n, v.N-1)
		}
		return nil
	}
	r.def("get_bit", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v, n := bitsOf(a[0]), i64(a[1])
		if err := index(v, n); err != nil {
			return nil, err
		}
		return int64(v.BitAt(int(n))), nil
	}, bit, i4)
	r.def("set_bit", bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v, n, nb := bitsOf(a[0]), i64(a[1]), i64(a[2])
		if err := index(v, n); err != nil {
			return nil, err
		}
		if nb != 0 && nb != 1 {
			return nil, errorf(CodeInvalidParameter, "new bit must be 0 or 1")
		}
		out := bitBytes(v)
		out[n/8] = out[n/8]&^(0x80>>uint(n%8)) | byte(nb)<<(7-uint(n%8))
		return types.BitVal{N: v.N, B: string(out)}, nil
	}, bit, i4, i4)
	r.def("substring", bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return bitSub(bitsOf(a[0]), i64(a[1]), i64(a[2]), true)
	}, bit, i4, i4)
	r.def("substring", bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return bitSub(bitsOf(a[0]), i64(a[1]), 0, false)
	}, bit, i4)
	r.def("position", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		str, sub := bitsOf(a[0]), bitsOf(a[1])
		if str.N == 0 || sub.N > str.N {
			return int64(0), nil
		}
		if sub.N == 0 {
			return int64(1), nil
		}
	next:
		for i := 0; i+int(sub.N) <= int(str.N); i++ {
			for j := 0; j < int(sub.N); j++ {
				if str.BitAt(i+j) != sub.BitAt(j) {
					continue next
				}
			}
			return int64(i + 1), nil
		}
		return int64(0), nil
	}, bit, bit)
	overlay := func(t1, t2 types.BitVal, sp, sl int64) (types.Value, error) {
		if sp <= 0 {
			return nil, errorf(CodeSubstringError, "negative substring length not allowed")
		}
		if sp+sl > math.MaxInt32 || sp+sl < math.MinInt32 {
			return nil, errorf(CodeOutOfRange, "integer out of range")
		}
		s1, err := bitSub(t1, 1, sp-1, true)
		if err != nil {
			return nil, err
		}
		s2, err := bitSub(t1, sp+sl, -1, false)
		if err != nil {
			return nil, err
		}
		out, err := bitCat(s1, t2)
		if err != nil {
			return nil, err
		}
		return bitCat(out, s2)
	}
	r.def("overlay", bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return overlay(bitsOf(a[0]), bitsOf(a[1]), i64(a[2]), i64(a[3]))
	}, bit, bit, i4, i4)
	r.def("overlay", bit, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return overlay(bitsOf(a[0]), bitsOf(a[1]), i64(a[2]), int64(bitsOf(a[1]).N))
	}, bit, bit, i4)
}
