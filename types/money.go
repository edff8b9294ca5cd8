package types

import (
	"encoding/binary"
	"math"
	"strconv"
)

// Money is PostgreSQL's money (utils/adt/cash.c): an int64 count of
// cents. Its text depends on lc_monetary; the catalog's input and output
// are cash_in and cash_out under lc_monetary C (frac_digits 2, '.' and
// ',', "$", "-" before the symbol), which en_US and C.UTF-8 print alike
// (checked against PostgreSQL). The SQL port refuses money where the
// session's lc_monetary is another (sqlfront/money_locale.go).
const Money OID = 790

// MoneyVal is a money value: its cents.
type MoneyVal int64

// parseMoney is cash_in in the C locale: optional spaces, "$", a sign
// ("-", "+" or "("), digits with "," separators anywhere and one ".",
// rounded half up at two fraction digits, then spaces, ")", a trailing
// sign or "$".
func parseMoney(str string) (MoneyVal, error) {
	s, i := str, 0
	skip := func() {
		for i < len(s) && isSpaceC(s[i]) {
			i++
		}
	}
	symbol := func() {
		if i < len(s) && s[i] == '$' {
			i++
		}
	}
	skip()
	symbol()
	skip()
	sgn := int64(1)
	switch {
	case i < len(s) && s[i] == '-':
		sgn = -1
		i++
	case i < len(s) && s[i] == '(':
		sgn = -1
		i++
	case i < len(s) && s[i] == '+':
		i++
	}
	skip()
	symbol()
	skip()
	// Built in the negative, as cash_in does (the most negative value
	// has no positive counterpart).
	var value int64
	dec, seenDot := 0, false
	overflow := func() error { return rangeErr(Money, str) }
	for ; i < len(s); i++ {
		c := s[i]
		if isDigitC(int(c)) && (!seenDot || dec < 2) {
			if value < math.MinInt64/10 || value*10 < math.MinInt64+int64(c-'0') {
				return 0, overflow()
			}
			value = value*10 - int64(c-'0')
			if seenDot {
				dec++
			}
		} else if c == '.' && !seenDot {
			seenDot = true
		} else if c != ',' {
			break
		}
	}
	if i < len(s) && isDigitC(int(s[i])) && s[i] >= '5' {
		if value == math.MinInt64 {
			return 0, overflow()
		}
		value--
	}
	for ; dec < 2; dec++ {
		if value < math.MinInt64/10 {
			return 0, overflow()
		}
		value *= 10
	}
	for i < len(s) && isDigitC(int(s[i])) {
		i++
	}
	for i < len(s) {
		switch c := s[i]; {
		case isSpaceC(c) || c == ')':
			i++
		case c == '-':
			sgn = -1
			i++
		case c == '+' || c == '$':
			i++
		default:
			return 0, syntaxErr(Money, str)
		}
	}
	if sgn > 0 {
		if value == math.MinInt64 {
			return 0, overflow()
		}
		return MoneyVal(-value), nil
	}
	return MoneyVal(value), nil
}

// appendMoney is cash_out in the C locale: "-" for a negative value,
// "$", the digits grouped by three with ",", "." and two cents digits.
func appendMoney(dst []byte, v MoneyVal) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = -u
	}
	dst = append(dst, '$')
	var buf [32]byte
	p := len(buf)
	for pos := 2; u != 0 || pos >= 0; pos-- {
		if pos == 0 {
			p--
			buf[p] = '.'
		} else if pos < 0 && pos%3 == 0 {
			p--
			buf[p] = ','
		}
		p--
		buf[p] = byte('0' + u%10)
		u /= 10
	}
	return append(dst, buf[p:]...)
}

// appendMoneySend is cash_send: the cents as a big-endian int64.
func appendMoneySend(dst []byte, v MoneyVal) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v))
}

// MoneyNumeric is cash_numeric: the cents over 100, at scale 2.
func MoneyNumeric(v MoneyVal) (*Decimal, error) {
	return parseDecimal(moneyDecimalText(v))
}

// moneyDecimalText is the cents as a decimal with two fraction digits.
func moneyDecimalText(v MoneyVal) string {
	u := uint64(v)
	neg := v < 0
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	for len(s) < 3 {
		s = "0" + s
	}
	s = s[:len(s)-2] + "." + s[len(s)-2:]
	if neg {
		s = "-" + s
	}
	return s
}

// MoneyFromInt is int4_cash and int8_cash: the amount times 100 (int8mul's
// "bigint out of range" past int64).
func MoneyFromInt(x int64) (MoneyVal, error) {
	if x > math.MaxInt64/100 || x < math.MinInt64/100 {
		return 0, errorf(CodeOutOfRange, "bigint out of range")
	}
	return MoneyVal(x * 100), nil
}

// MoneyFromNumeric is numeric_cash: the amount times 100 rounded to an
// integer as numeric_int8 rounds (half away from zero), its error past
// int64 ("bigint out of range"); NaN and infinities as numeric_int8
// refuses them.
func MoneyFromNumeric(d *Decimal) (Value, error) {
	i, err := fromDecimal(MulDecimal(d, DecimalFromInt(100)), Int8)
	if err != nil {
		return nil, err
	}
	return MoneyVal(i.(int64)), nil
}
