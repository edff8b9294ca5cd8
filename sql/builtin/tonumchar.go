package builtin

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// to_char(numeric|int4|int8|float4|float8, text): formatting.c's number
// formatting (NUMDesc_prepare, NUM_processor, NUM_numpart_to_char and
// the per-type drivers) followed step by step, including its quirks (a
// digit position past the digits writes a NUL that ends the result).
// The locale-dependent patterns (L, G, D, S) use the C locale's symbols,
// the locale sidecar's SQL port answers in (lc_collate C).

// numFlag are formatting.c's NUM_F_* flags.
type numFlag int

const (
	numFDecimal numFlag = 1 << iota
	numFLDecimal
	numFZero
	numFBlank
	numFFillMode
	numFLSign
	numFBracket
	numFMinus
	numFPlus
	numFRoman
	numFMulti
	numFEEEE
)

// The pattern ids of NUM_keywords (lower-case spellings share their
// upper-case id except rn and th).
const (
	numComma = iota
	numDec
	num0
	num9
	numB
	numC
	numD
	numE
	numFM
	numG
	numL
	numMI
	numPL
	numPR
	numRN
	numSG
	numSP
	numS
	numTHUpper
	numV
	numRNLower
	numTHLower
)

// numKeywords are NUM_keywords in their order: the first keyword among
// those with the same first character that prefixes the format wins.
var numKeywords = []struct {
	name string
	id   int
}{
	{",", numComma}, {".", numDec}, {"0", num0}, {"9", num9}, {"B", numB}, {"C", numC}, {"D", numD}, {"EEEE", numE},
	{"FM", numFM}, {"G", numG}, {"L", numL}, {"MI", numMI}, {"PL", numPL}, {"PR", numPR}, {"RN", numRN}, {"SG", numSG},
	{"SP", numSP}, {"S", numS}, {"TH", numTHUpper}, {"V", numV}, {"b", numB}, {"c", numC}, {"d", numD}, {"eeee", numE},
	{"fm", numFM}, {"g", numG}, {"l", numL}, {"mi", numMI}, {"pl", numPL}, {"pr", numPR}, {"rn", numRNLower}, {"sg", numSG},
	{"sp", numSP}, {"s", numS}, {"th", numTHLower}, {"v", numV},
}

const (
	numLSignNone = 0
	numLSignPre  = -1
	numLSignPost = 1
)

// numDesc is NUMDesc.
type numDesc struct {
	pre, post, lsign, preLSignNum, multi, zeroStart, zeroEnd int
	flag                                                     numFlag
}

func (d *numDesc) is(f numFlag) bool { return d.flag&f != 0 }

// numNode is a FormatNode: a pattern (id ≥ 0) or a literal character.
type numNode struct {
	id int // -1: literal
	ch string
}

func numSyntax(msg string) error { return errorf("42601", "%s", msg) }

// parseNumFormat is parse_format with NUM_FLAG and NUMDesc_prepare.
func parseNumFormat(f string) ([]numNode, numDesc, error) {
	var d numDesc
	var nodes []numNode
	for len(f) > 0 {
		id, n := -1, 0
		if f[0] > ' ' && f[0] < '~' {
			for _, k := range numKeywords {
				if k.name[0] == f[0] && strings.HasPrefix(f, k.name) {
					id, n = k.id, len(k.name)
					break
				}
			}
		}
		if id >= 0 {
			if err := d.prepare(id); err != nil {
				return nil, d, err
			}
			nodes = append(nodes, numNode{id: id})
			f = f[n:]
			continue
		}
		if f[0] == '"' {
			var lit []string
			lit, f = quotedLiteral(f[1:]) // tochar.go
			for _, c := range lit {
				nodes = append(nodes, numNode{id: -1, ch: c})
			}
			continue
		}
		if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
			f = f[1:]
		}
		_, w := utf8.DecodeRuneInString(f)
		nodes = append(nodes, numNode{id: -1, ch: f[:w]})
		f = f[w:]
	}
	return nodes, d, nil
}

// prepare is NUMDesc_prepare for one pattern.
func (d *numDesc) prepare(id int) error {
	if d.is(numFEEEE) && id != numE {
		return numSyntax(`"EEEE" must be the last pattern used`)
	}
	switch id {
	case num9:
		if d.is(numFBracket) {
			return numSyntax(`"9" must be ahead of "PR"`)
		}
		if d.is(numFMulti) {
			d.multi++
			break
		}
		if d.is(numFDecimal) {
			d.post++
		} else {
			d.pre++
		}
	case num0:
		if d.is(numFBracket) {
			return numSyntax(`"0" must be ahead of "PR"`)
		}
		if !d.is(numFZero) && !d.is(numFDecimal) {
			d.flag |= numFZero
			d.zeroStart = d.pre + 1
		}
		if !d.is(numFDecimal) {
			d.pre++
		} else {
			d.post++
		}
		d.zeroEnd = d.pre + d.post
	case numB:
		if d.pre == 0 && d.post == 0 && !d.is(numFZero) {
			d.flag |= numFBlank
		}
	case numD, numDec:
		if id == numD {
			d.flag |= numFLDecimal
		}
		if d.is(numFDecimal) {
			return numSyntax("multiple decimal points")
		}
		if d.is(numFMulti) {
			return numSyntax(`cannot use "V" and decimal point together`)
		}
		d.flag |= numFDecimal
	case numFM:
		d.flag |= numFFillMode
	case numS:
		if d.is(numFLSign) {
			return numSyntax(`cannot use "S" twice`)
		}
		if d.is(numFPlus) || d.is(numFMinus) || d.is(numFBracket) {
			return numSyntax(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
		}
		if !d.is(numFDecimal) {
			d.lsign, d.preLSignNum = numLSignPre, d.pre
			d.flag |= numFLSign
		} else if d.lsign == numLSignNone {
			d.lsign = numLSignPost
			d.flag |= numFLSign
		}
	case numMI:
		if d.is(numFLSign) {
			return numSyntax(`cannot use "S" and "MI" together`)
		}
		d.flag |= numFMinus
	case numPL:
		if d.is(numFLSign) {
			return numSyntax(`cannot use "S" and "PL" together`)
		}
		d.flag |= numFPlus
	case numSG:
		if d.is(numFLSign) {
			return numSyntax(`cannot use "S" and "SG" together`)
		}
		d.flag |= numFMinus | numFPlus
	case numPR:
		if d.is(numFLSign) || d.is(numFPlus) || d.is(numFMinus) {
			return numSyntax(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		d.flag |= numFBracket
	case numRN, numRNLower:
		if d.is(numFRoman) {
			// PostgreSQL 18 refuses a second RN; earlier majors take it.
			return unsupported(`to_char with "RN" twice (PostgreSQL majors differ)`)
		}
		d.flag |= numFRoman
	case numV:
		if d.is(numFDecimal) {
			return numSyntax(`cannot use "V" and decimal point together`)
		}
		d.flag |= numFMulti
	case numE:
		if d.is(numFEEEE) {
			return numSyntax(`cannot use "EEEE" twice`)
		}
		if d.flag&(numFBlank|numFFillMode|numFLSign|numFBracket|numFMinus|numFPlus|numFRoman|numFMulti) != 0 {
			return &Error{Code: "42601", Message: `"EEEE" is incompatible with other formats`,
				Detail: `"EEEE" may only be used together with digit and decimal point patterns.`}
		}
		d.flag |= numFEEEE
	}
	if d.is(numFRoman) && d.flag&^(numFRoman|numFFillMode) != 0 {
		// PostgreSQL 18 refuses RN with other patterns; earlier majors
		// format the roman numeral.
		return unsupported(`to_char with "RN" and other patterns (PostgreSQL majors differ)`)
	}
	return nil
}

// numProc is NUMProc for to_char.
type numProc struct {
	d            *numDesc
	sign         byte
	signWrote    bool
	numCount     int
	outPreSpaces int
	number       string
	numberP      int
	lastRelevant int // -1: none
	numIn        bool
	numCurr      int
	out          []byte
}

// at is *number_p: the digit string's byte there, 0 past its end.
func (p *numProc) at(i int) byte {
	if i < len(p.number) {
		return p.number[i]
	}
	return 0
}

func (p *numProc) predecSpace() bool {
	return !p.d.is(numFZero) && p.numberP == 0 && p.at(0) == '0' && p.d.post != 0
}

func (p *numProc) lastIsDot() bool { return p.lastRelevant >= 0 && p.at(p.lastRelevant) == '.' }

func (p *numProc) signSymbol() byte {
	if p.sign == '-' {
		return '-'
	}
	return '+'
}

// numpart is NUM_numpart_to_char.
func (p *numProc) numpart(id int) {
	d := p.d
	if d.is(numFRoman) {
		return
	}
	p.numIn = false
	if !p.signWrote && (p.numCurr >= p.outPreSpaces || (d.is(numFZero) && d.zeroStart == p.numCurr)) &&
		(!p.predecSpace() || p.lastIsDot()) {
		switch {
		case d.is(numFLSign):
			if d.lsign == numLSignPre {
				p.out = append(p.out, p.signSymbol())
				p.signWrote = true
			}
		case d.is(numFBracket):
			if p.sign == '+' {
				p.out = append(p.out, ' ')
			} else {
				p.out = append(p.out, '<')
			}
			p.signWrote = true
		case p.sign == '+':
			if !d.is(numFFillMode) {
				p.out = append(p.out, ' ')
			}
			p.signWrote = true
		case p.sign == '-':
			p.out = append(p.out, '-')
			p.signWrote = true
		}
	}
	if id != num9 && id != num0 && id != numD && id != numDec {
		p.numCurr++
		return
	}
	switch {
	case p.numCurr < p.outPreSpaces && (d.zeroStart > p.numCurr || !d.is(numFZero)):
		if !d.is(numFFillMode) {
			p.out = append(p.out, ' ')
		}
	case d.is(numFZero) && p.numCurr < p.outPreSpaces && d.zeroStart <= p.numCurr:
		p.out = append(p.out, '0')
		p.numIn = true
	default:
		if p.at(p.numberP) == '.' {
			if !p.lastIsDot() || d.is(numFFillMode) {
				p.out = append(p.out, '.')
			}
		} else {
			switch {
			case p.lastRelevant >= 0 && p.numberP > p.lastRelevant && id != num0:
			case p.predecSpace():
				if !d.is(numFFillMode) {
					p.out = append(p.out, ' ')
				} else if p.lastIsDot() {
					p.out = append(p.out, '0')
				}
			default:
				p.out = append(p.out, p.at(p.numberP)) // a NUL past the digits, as C
				p.numIn = true
			}
		}
		if p.numberP < len(p.number) {
			p.numberP++
		}
	}
	end := p.numCount
	if p.outPreSpaces > 0 {
		end++
	}
	if d.is(numFDecimal) {
		end++
	}
	if p.lastRelevant >= 0 && p.lastRelevant == p.numberP {
		end = p.numCurr
	}
	if p.numCurr+1 == end {
		if p.signWrote && d.is(numFBracket) {
			if p.sign == '+' {
				p.out = append(p.out, ' ')
			} else {
				p.out = append(p.out, '>')
			}
		} else if d.is(numFLSign) && d.lsign == numLSignPost {
			p.out = append(p.out, p.signSymbol())
		}
	}
	p.numCurr++
}

// numProcess is NUM_processor for to_char: number is the digits (no
// sign), sign '+' or '-'.
func numProcess(nodes []numNode, d numDesc, number string, outPreSpaces int, sign byte) (string, error) {
	if d.zeroStart != 0 {
		d.zeroStart--
	}
	if d.is(numFEEEE) {
		return number, nil
	}
	p := &numProc{d: &d, sign: sign, number: number, lastRelevant: -1}
	if d.is(numFPlus) || d.is(numFMinus) {
		p.signWrote = !(d.is(numFPlus) && !d.is(numFMinus))
	} else {
		if sign != '-' && d.is(numFFillMode) {
			d.flag &^= numFBracket
		}
		p.signWrote = sign == '+' && d.is(numFFillMode) && !d.is(numFLSign)
		if d.lsign == numLSignPre && d.pre == d.preLSignNum {
			d.lsign = numLSignPost
		}
	}
	p.numCount = d.post + d.pre - 1
	p.outPreSpaces = outPreSpaces
	if d.is(numFFillMode) && d.is(numFDecimal) {
		if i := strings.IndexByte(number, '.'); i >= 0 {
			p.lastRelevant = i
			for j := i + 1; j < len(number); j++ {
				if number[j] != '0' {
					p.lastRelevant = j
				}
			}
			if d.zeroEnd > outPreSpaces {
				lastZero := min(len(number)-1, d.zeroEnd-outPreSpaces)
				if p.lastRelevant < lastZero {
					p.lastRelevant = lastZero
				}
			}
		}
	}
	if !p.signWrote && p.outPreSpaces == 0 {
		p.numCount++
	}
	for _, n := range nodes {
		if n.id < 0 {
			p.out = append(p.out, n.ch...)
			continue
		}
		switch n.id {
		case num9, num0, numDec, numD:
			p.numpart(n.id)
		case numComma, numG: // the C locale's thousands separator
			if !p.numIn {
				if !d.is(numFFillMode) {
					p.out = append(p.out, ' ')
				}
			} else {
				p.out = append(p.out, ',')
			}
		case numL: // the C locale's currency symbol
			p.out = append(p.out, ' ')
		case numRN, numRNLower:
			s := number
			if n.id == numRNLower {
				s = strings.ToLower(s)
			}
			if !d.is(numFFillMode) && len(s) < 15 {
				s = strings.Repeat(" ", 15-len(s)) + s
			}
			p.out = append(p.out, s...)
		case numTHUpper, numTHLower:
			if d.is(numFRoman) || p.at(0) == '#' || sign == '-' || d.is(numFDecimal) {
				continue
			}
			suf, err := numTH(cString(number), n.id == numTHUpper)
			if err != nil {
				return "", err
			}
			p.out = append(p.out, suf...)
		case numMI:
			if sign == '-' {
				p.out = append(p.out, '-')
			} else if !d.is(numFFillMode) {
				p.out = append(p.out, ' ')
			}
		case numPL:
			if sign == '+' {
				p.out = append(p.out, '+')
			} else if !d.is(numFFillMode) {
				p.out = append(p.out, ' ')
			}
		case numSG:
			p.out = append(p.out, sign)
		}
	}
	return cString(string(p.out)), nil
}

// cString is s up to its first NUL (what a C string holds).
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// intToRoman is int_to_roman: upper case, 15 '#' out of 1..3999.
func intToRoman(n int64) string {
	if n > 3999 || n < 1 {
		return strings.Repeat("#", 15)
	}
	rm := [][]string{
		{"", "M", "MM", "MMM"},
		{"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"},
		{"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"},
		{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"},
	}
	return rm[0][n/1000] + rm[1][n/100%10] + rm[2][n/10%10] + rm[3][n%10]
}

// romanRange refuses RN of a value outside integer's range: PostgreSQL
// 18 prints '#'s, earlier majors fail.
var romanRange = unsupported(`to_char's "RN" of a value outside integer's range (PostgreSQL majors differ)`)

// overflowDigits is the '#' string a number too wide for the format
// prints as.
func overflowDigits(d numDesc) string {
	b := bytes.Repeat([]byte{'#'}, d.pre+d.post+1)
	b[d.pre] = '.'
	return string(b)
}

// splitSign takes numeric_out/printf's leading '-'.
func splitSign(s string) (string, byte) {
	if strings.HasPrefix(s, "-") {
		return s[1:], '-'
	}
	return s, '+'
}

// padOrOverflow is the drivers' common end: the spaces before a number
// shorter than the format's digits, '#'s for a longer one.
func padOrOverflow(d numDesc, numstr string) (string, int) {
	preLen := len(numstr)
	if i := strings.IndexByte(numstr, '.'); i >= 0 {
		preLen = i
	}
	switch {
	case preLen < d.pre:
		return numstr, d.pre - preLen
	case preLen > d.pre:
		return overflowDigits(d), 0
	}
	return numstr, 0
}

// intDigits appends post zero decimals to an integer's digits.
func intDigits(digits string, post int) string {
	if post == 0 {
		return digits
	}
	return digits + "." + strings.Repeat("0", post)
}

// cFormat is PostgreSQL's psprintf %.*f / %+.*e of v (src/port's
// snprintf spells NaN and the infinities as float8out does).
func cFormat(v float64, verb byte, prec int) string {
	var s string
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		s = "Infinity"
	case math.IsInf(v, -1):
		s = "-Infinity"
	default:
		s = strconv.FormatFloat(v, verb, prec, 64)
	}
	if verb == 'e' && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// eeeeSpace swaps printf's leading '+' for a space.
func eeeeSpace(s string) string {
	if strings.HasPrefix(s, "+") {
		return " " + s[1:]
	}
	return s
}

// sciSpace puts a space before numeric_out_sci's unsigned positive.
func sciSpace(s string) string {
	if strings.HasPrefix(s, "-") {
		return s
	}
	return " " + s
}

// eeeeHashes is the EEEE output of NaN and infinities.
func eeeeHashes(d numDesc) string {
	b := bytes.Repeat([]byte{'#'}, d.pre+d.post+6)
	b[0] = ' '
	b[d.pre+1] = '.'
	return string(b)
}

// numericSci is numeric_out_sci: the significand rounded to scale
// digits, 'e', the exponent signed with at least two digits.
func numericSci(x *types.Decimal, scale int) string {
	exp := 0
	if x.V.Sign() != 0 {
		exp = len(new(big.Int).Abs(&x.V).String()) - 1 - int(x.Scale)
	}
	sig := &types.Decimal{Scale: x.Scale}
	if exp >= 0 {
		sig.V.Set(&x.V)
		sig.Scale = x.Scale + int32(exp)
	} else {
		sig.V.Mul(&x.V, pow10(-exp))
	}
	s := decRound(sig, int64(scale), false).String()
	e := strconv.Itoa(abs(exp))
	if len(e) < 2 {
		e = "0" + e
	}
	if exp < 0 {
		return s + "e-" + e
	}
	return s + "e+" + e
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// toCharNum formats one value: digits is called for the plain (not
// roman, not EEEE) case with the format's description (V applied by the
// driver) and returns the digit string.
func toCharNum(f string, roman func() (string, error), eeee func(d numDesc) string, plain func(d *numDesc) (string, error)) (types.Value, error) {
	if f == "" {
		return "", nil
	}
	nodes, d, err := parseNumFormat(f)
	if err != nil {
		return nil, err
	}
	var numstr string
	pre, sign := 0, byte(0)
	switch {
	case d.is(numFRoman):
		if numstr, err = roman(); err != nil {
			return nil, err
		}
	case d.is(numFEEEE):
		numstr = eeee(d)
	default:
		s, err := plain(&d)
		if err != nil {
			return nil, err
		}
		s, sign = splitSign(s)
		numstr, pre = padOrOverflow(d, s)
	}
	return numProcess(nodes, d, numstr, pre, sign)
}

func toCharInt8(v int64, f string) (types.Value, error) {
	return toCharNum(f, func() (string, error) {
		if v > math.MaxInt32 || v < math.MinInt32 {
			return "", romanRange
		}
		return intToRoman(v), nil
	}, func(d numDesc) string {
		return sciSpace(numericSci(types.DecimalFromInt(v), d.post))
	}, func(d *numDesc) (string, error) {
		if d.is(numFMulti) {
			m := math.Pow(10, float64(d.multi))
			if m >= 9223372036854775807 {
				return "", outOfRange(types.Int8)
			}
			r := new(big.Int).Mul(big.NewInt(v), big.NewInt(int64(m)))
			if !r.IsInt64() {
				return "", outOfRange(types.Int8)
			}
			v = r.Int64()
			d.pre += d.multi
		}
		s, sign := splitSign(strconv.FormatInt(v, 10))
		if sign == '-' {
			return "-" + intDigits(s, d.post), nil
		}
		return intDigits(s, d.post), nil
	})
}

func toCharInt4(v int64, f string) (types.Value, error) {
	return toCharNum(f, func() (string, error) { return intToRoman(v), nil }, func(d numDesc) string {
		return eeeeSpace(cFormat(float64(v), 'e', d.post))
	}, func(d *numDesc) (string, error) {
		x := int32(v)
		if d.is(numFMulti) {
			if d.multi > 9 {
				// (int32) pow(10, 10) is undefined in C.
				return "", unsupported("to_char(integer, text) with more than 9 V digits")
			}
			x *= int32(math.Pow(10, float64(d.multi))) // wraps, as C's int32 product
			d.pre += d.multi
		}
		s, sign := splitSign(strconv.FormatInt(int64(x), 10))
		if sign == '-' {
			return "-" + intDigits(s, d.post), nil
		}
		return intDigits(s, d.post), nil
	})
}

// toCharFloat is float4_to_char (dig 6) and float8_to_char (dig 15).
func toCharFloat(v float64, f string, float4 bool) (types.Value, error) {
	dig := 15
	if float4 {
		dig = 6
	}
	return toCharNum(f, func() (string, error) {
		r := math.RoundToEven(v)
		if math.IsNaN(r) || r < math.MinInt32 || r >= -float64(math.MinInt32) {
			return intToRoman(math.MaxInt32), nil // every major prints '#'s
		}
		return intToRoman(int64(r)), nil
	}, func(d numDesc) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return eeeeHashes(d)
		}
		return eeeeSpace(cFormat(v, 'e', d.post))
	}, func(d *numDesc) (string, error) {
		val := v
		if d.is(numFMulti) {
			if float4 {
				val = float64(float32(v) * float32(math.Pow(10, float64(d.multi))))
			} else {
				val = v * math.Pow(10, float64(d.multi))
			}
			d.pre += d.multi
		}
		preLen := len(cFormat(math.Abs(val), 'f', 0))
		if preLen >= dig {
			d.post = 0
		} else if preLen+d.post > dig {
			d.post = dig - preLen
		}
		return cFormat(val, 'f', d.post), nil
	})
}

func toCharNumeric(x *types.Decimal, f string) (types.Value, error) {
	return toCharNum(f, func() (string, error) {
		r := decRound(x, 0, false)
		if r.NaN || r.Inf != 0 || !r.V.IsInt64() || r.V.Int64() > math.MaxInt32 || r.V.Int64() < math.MinInt32 {
			return "", romanRange
		}
		return intToRoman(r.V.Int64()), nil
	}, func(d numDesc) string {
		if x.NaN || x.Inf != 0 {
			return eeeeHashes(d)
		}
		return sciSpace(numericSci(x, d.post))
	}, func(d *numDesc) (string, error) {
		val := x
		if d.is(numFMulti) {
			m := &types.Decimal{}
			m.V.Set(pow10(d.multi))
			val = types.MulDecimal(x, m)
			d.pre += d.multi
		}
		return decRound(val, int64(d.post), false).String(), nil
	})
}

// addToCharNumber registers to_char over the number types.
func (r *Registry) addToCharNumber() {
	tx := types.Text
	r.def("to_char", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return toCharInt4(i64(a[0]), str(a[1]))
	}, types.Int4, tx).stable() // stable in pg_proc (lc_numeric)
	r.def("to_char", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return toCharInt8(i64(a[0]), str(a[1]))
	}, types.Int8, tx).stable()
	r.def("to_char", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return toCharFloat(f8Of(a[0]), str(a[1]), true)
	}, types.Float4, tx).stable()
	r.def("to_char", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return toCharFloat(f8Of(a[0]), str(a[1]), false)
	}, types.Float8, tx).stable()
	r.def("to_char", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return toCharNumeric(decOf(a[0]), str(a[1]))
	}, types.Numeric, tx).stable()
}
