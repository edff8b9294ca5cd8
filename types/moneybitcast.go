package types

// convertMoneyBit is the casts of money and the bit strings to and from
// the catalog's other types (before their length coercion): cash_numeric,
// numeric_cash, int4_cash, int8_cash, bittoint4, bittoint8 and bit ↔
// varbit (binary coercible). bitfromint4/8 need the target's length and
// are ConvertIntToBit. ok is false for other casts.
func convertMoneyBit(v Value, to OID) (Value, bool, error) {
	switch x := v.(type) {
	case MoneyVal:
		if to == Numeric {
			d, err := MoneyNumeric(x)
			return d, true, err
		}
	case BitVal:
		switch to {
		case Bit, Varbit:
			return x, true, nil
		case Int4:
			i, err := BitToInt(x, 32)
			return i, true, err
		case Int8:
			i, err := BitToInt(x, 64)
			return i, true, err
		}
	case *Decimal:
		if to == Money {
			m, err := MoneyFromNumeric(x)
			return m, true, err
		}
	case int64:
		switch to {
		case Money:
			m, err := MoneyFromInt(x)
			return m, true, err
		case Bit:
			return BitFromInt(x, 64, 1), true, nil // Convert applies the length: ConvertIntToBit
		}
	}
	return nil, false, nil
}

// ConvertIntToBit is int4::bit(n) and int8::bit(n) (bitfromint4,
// bitfromint8): the low n bits of x, sign-extended beyond its width
// (from's: 32 or 64).
func ConvertIntToBit(x int64, from OID, mod int32) BitVal {
	width := 64
	if from == Int4 || from == Int2 {
		width = 32
	}
	return BitFromInt(x, width, mod)
}
