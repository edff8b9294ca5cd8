package types

import "math/big"

// checkDecimalRange is make_result's bound: a finite numeric holds at
// most maxIntDigits digits before the point (NUMERIC_WEIGHT_MAX), so a
// sum, difference or product past it fails with 22003 as PostgreSQL's
// does (issue 21: 1e131071 * 1e131071 answered a value of 262,143
// digits that PostgreSQL refuses). The digit count comes from the bit
// length; the decimal text is made only when that cannot decide.
func checkDecimalRange(d *Decimal) (*Decimal, error) {
	if !d.finite() || d.V.Sign() == 0 {
		return d, nil
	}
	const log10of2 = 0.30102999566398119521
	bl := d.V.BitLen()
	lo := int(float64(bl-1)*log10of2) + 1 // digits of |V| are within [lo, hi]
	hi := int(float64(bl)*log10of2) + 1
	if hi-int(d.Scale) <= maxIntDigits {
		return d, nil
	}
	digits := lo
	if lo-int(d.Scale) <= maxIntDigits {
		digits = len(new(big.Int).Abs(&d.V).Text(10))
	}
	if digits-int(d.Scale) > maxIntDigits {
		return nil, errorf(CodeOutOfRange, "value overflows numeric format")
	}
	return d, nil
}

// CheckNumericRange is checkDecimalRange for a result computed outside
// Arith (a sum's final value): d, or 22003 when d has more digits before
// the point than a numeric holds.
func CheckNumericRange(d *Decimal) (*Decimal, error) { return checkDecimalRange(d) }
