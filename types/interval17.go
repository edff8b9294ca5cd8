package types

import (
	"math"
	"strings"
)

// PostgreSQL 17 added interval infinity: 'infinity' and '-infinity' are
// interval input, and the two extreme values (every field INT_MAX, or
// every field INT_MIN: '-2147483648 months -2147483648 days
// -9223372036854775808 us') are the infinities, printed as such and
// ordered and computed with as 17's interval.c does (finite arithmetic
// reaching them is 22008 there). Sidecar has no interval infinity: on 17
// and later such input is refused 0A000 (before 17 'infinity' is 22007
// and the extreme values are finite, as parseInterval reads them).

// intervalInfinity17Refusal is the 0A000 for interval input s that
// PostgreSQL 17+ reads as an infinity; nil otherwise.
func intervalInfinity17Refusal(s string) error {
	if !IntervalInfinityInput17(s) {
		return nil
	}
	return errorf(CodeUnsupported, "interval infinity (PostgreSQL 17+ reads \"%s\" as an infinite interval, which sidecar does not implement)", s)
}

// IntervalInfinityInput17 says whether PostgreSQL 17 reads interval
// input s as 'infinity' or '-infinity': the words (any case, with
// spaces around) or text reading as an extreme value.
func IntervalInfinityInput17(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "infinity", "-infinity", "+infinity":
		return true
	}
	v, err := parseInterval(s)
	return err == nil && IntervalInfinite17(v)
}

// IntervalInfinite17 says whether v is one of the values PostgreSQL 17
// holds its infinities as (INTERVAL_NOBEGIN, INTERVAL_NOEND).
func IntervalInfinite17(v IntervalVal) bool {
	return v.Months == math.MinInt32 && v.Days == math.MinInt32 && v.Micros == math.MinInt64 ||
		v.Months == math.MaxInt32 && v.Days == math.MaxInt32 && v.Micros == math.MaxInt64
}
