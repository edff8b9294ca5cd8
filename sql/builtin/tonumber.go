package builtin

import (
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// to_number(text, text): formatting.c's NUM_processor run "from char"
// (NUM_numpart_from_char, NUM_eat_non_data_chars) followed step by step
// over the format parsed as to_char parses it (tonumchar.go), then
// numeric_in with the typmod numeric_to_number derives (precision: the
// format's digits, scale: the digits read after the decimal point) and,
// for V, the product with 10 ^ -digits after V. The locale-dependent
// patterns (L, G, D, S) use the C locale's symbols as to_char does: the
// decimal point ".", thousands separator ",", signs "-" and "+",
// currency symbol " " (so L skips one character that is not part of a
// number, as NUM_eat_non_data_chars does).
//
// Majors differ in two places: "RN" reads a roman numeral from
// PostgreSQL 18 (earlier: 0A000 "RN" not supported for input), refused
// here on 18; and V's power of ten has scale 16 before 16 and 17 from
// 16 (power_var_int), which the registry's power follows per major.

// C locale symbols (NUM_prepare_locale without lconv values).
const (
	numLocNeg      = "-"
	numLocPos      = "+"
	numLocDecimal  = "."
	numLocThousand = ","
	numLocCurrency = " "
)

// numReader is NUMProc for to_number: the input, the position read, and
// the number string built (number[0] the sign slot).
type numReader struct {
	d        *numDesc
	in       string
	p        int
	number   []byte
	readPre  int
	readPost int
	readDec  bool
}

// overload is OVERLOAD_TEST: no input byte remains.
func (r *numReader) overload() bool { return r.p >= len(r.in) }

// amount is AMOUNT_TEST(s): s bytes remain.
func (r *numReader) amount(s int) bool { return r.p <= len(r.in)-s }

// at is *inout_p (0 past the end, as the C string's terminator).
func (r *numReader) at(i int) byte {
	if i < len(r.in) {
		return r.in[i]
	}
	return 0
}

// has says whether the input at p starts with s.
func (r *numReader) has(s string) bool { return r.amount(len(s)) && strings.HasPrefix(r.in[r.p:], s) }

// mblen is pg_mblen at p (UTF-8).
func (r *numReader) mblen() int {
	_, w := utf8.DecodeRuneInString(r.in[r.p:])
	if w == 0 {
		return 1
	}
	return w
}

// eatNonData is NUM_eat_non_data_chars: skip up to n characters that
// are not digits, '.', ',', '+' or '-'.
func (r *numReader) eatNonData(n int) {
	for ; n > 0; n-- {
		if r.overload() || strings.IndexByte("0123456789.,+-", r.in[r.p]) >= 0 {
			return
		}
		r.p += r.mblen()
	}
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// numpart is NUM_numpart_from_char.
func (r *numReader) numpart(id int) {
	if r.overload() {
		return
	}
	if r.in[r.p] == ' ' {
		r.p++
	}
	if r.overload() {
		return
	}
	d := r.d
	// a sign before the number
	if r.number[0] == ' ' && (id == num0 || id == num9) && r.readPre+r.readPost == 0 {
		if d.is(numFLSign) && d.lsign == numLSignPre {
			if r.has(numLocNeg) {
				r.p += len(numLocNeg)
				r.number[0] = '-'
			} else if r.has(numLocPos) {
				r.p += len(numLocPos)
				r.number[0] = '+'
			}
		} else if c := r.in[r.p]; c == '-' || (d.is(numFBracket) && c == '<') {
			r.number[0] = '-'
			r.p++
		} else if c == '+' {
			r.number[0] = '+'
			r.p++
		}
	}
	if r.overload() {
		return
	}
	isread := false
	if c := r.in[r.p]; isDigit(c) {
		if r.readDec && r.readPost == d.post {
			return
		}
		r.number = append(r.number, c)
		if r.readDec {
			r.readPost++
		} else {
			r.readPre++
		}
		isread = true
	} else if d.is(numFDecimal) && !r.readDec && r.has(numLocDecimal) {
		r.p += len(numLocDecimal) - 1
		r.number = append(r.number, '.')
		r.readDec = true
		isread = true
	}
	if r.overload() {
		return
	}
	// a sign after the last digit
	if r.number[0] == ' ' && r.readPre+r.readPost > 0 {
		if d.is(numFLSign) && isread && r.p+1 < len(r.in) && !isDigit(r.in[r.p+1]) {
			tmp := r.p
			r.p++
			if r.has(numLocNeg) {
				r.p += len(numLocNeg) - 1
				r.number[0] = '-'
			} else if r.has(numLocPos) {
				r.p += len(numLocPos) - 1
				r.number[0] = '+'
			}
			if r.number[0] == ' ' {
				r.p = tmp
			}
		} else if !isread && !d.is(numFLSign) && (d.is(numFPlus) || d.is(numFMinus)) {
			if c := r.in[r.p]; c == '-' || c == '+' {
				r.number[0] = c
			}
		}
	}
}

// readNumber is NUM_processor from char: the number string numeric_in
// reads, and the digits read after the decimal point.
func readNumber(nodes []numNode, d *numDesc, in string) (string, error) {
	if d.is(numFEEEE) {
		return "", errorf("0A000", `"EEEE" not supported for input`)
	}
	r := &numReader{d: d, in: in, number: []byte{' '}}
	numIn := false // NUM_processor never sets num_in reading
	for _, n := range nodes {
		if r.overload() {
			break
		}
		if n.id < 0 {
			// one input character skipped per literal format character
			r.p += r.mblen()
			continue
		}
		switch n.id {
		case num9, num0, numDec, numD:
			r.numpart(n.id)
		case numComma:
			if !numIn && d.is(numFFillMode) {
				continue
			}
			if r.at(r.p) != ',' {
				continue
			}
		case numG:
			if !numIn && d.is(numFFillMode) {
				continue
			}
			if !r.has(numLocThousand) {
				continue
			}
			r.p += len(numLocThousand) - 1
		case numL:
			r.eatNonData(len(numLocCurrency))
			continue
		case numTHUpper, numTHLower:
			if d.is(numFDecimal) {
				continue
			}
			r.eatNonData(2)
			continue
		case numMI:
			if r.at(r.p) != '-' {
				r.eatNonData(1)
				continue
			}
			r.number[0] = '-'
		case numPL:
			if r.at(r.p) != '+' {
				r.eatNonData(1)
				continue
			}
			r.number[0] = '+'
		case numSG:
			switch r.at(r.p) {
			case '-', '+':
				r.number[0] = r.at(r.p)
			default:
				r.eatNonData(1)
				continue
			}
		default:
			continue
		}
		r.p++
	}
	num := r.number
	if len(num) > 1 && num[len(num)-1] == '.' {
		num = num[:len(num)-1]
	}
	d.post = r.readPost
	return string(num), nil
}

// toNumber is numeric_to_number.
func (r *Registry) toNumber(in, format string) (types.Value, error) {
	if format == "" {
		return nil, nil
	}
	nodes, d, err := parseNumFormat(format)
	if err != nil {
		return nil, err
	}
	if d.is(numFRoman) {
		if yes, known := r.atLeast(180000); !known || yes {
			return nil, unsupported(`to_number with "RN" (PostgreSQL 18 reads roman numerals, earlier majors refuse them)`)
		}
		return nil, errorf("0A000", `"RN" not supported for input`)
	}
	numstr, err := readNumber(nodes, &d, in)
	if err != nil {
		return nil, err
	}
	scale := d.post
	precision := d.pre + d.multi + scale
	v, err := types.In(types.Numeric, int32(precision<<16|scale)+4, numstr)
	if err != nil {
		return nil, err
	}
	if !d.is(numFMulti) {
		return v, nil
	}
	p, err := r.decPower(types.DecimalFromInt(10), types.DecimalFromInt(int64(-d.multi)))
	if err != nil {
		return nil, err
	}
	return types.MulDecimal(v.(*types.Decimal), p.(*types.Decimal)), nil
}

// addToNumber registers to_number.
func (r *Registry) addToNumber() {
	r.def("to_number", types.Numeric, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return r.toNumber(str(a[0]), str(a[1]))
	}, types.Text, types.Text).stable() // stable in pg_proc (lc_numeric)
}
