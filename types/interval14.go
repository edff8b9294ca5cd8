package types

import (
	"errors"
	"strings"
)

// PostgreSQL 14's interval input (DecodeInterval of 14) differs from
// 15's, which parseInterval follows: 14 adds fractional fields in
// floating point into int fields ('1.7 decades' is 16 years 11 mons, 15
// says 17 years; '1.5 us' rounds to 2 µs, 15's to 1 µs), reads each
// number as an int32 (strtoint) and lets sums wrap, and reports an
// overflowing total as 22008 "interval out of range" where 15 checks
// every step (22015) before a repeated unit's syntax error. Inputs where
// the two can differ are refused when the followed server is older than
// 15; on the others (integer fields of at most six digits, fractions
// only in a time field's seconds, no overflow) 14 and 15 compute the
// same value.

// interval14Refusal is the 0A000 for interval input s before PostgreSQL
// 15 where 14's answer may differ from parseInterval's; nil when they
// agree.
func interval14Refusal(s string) error {
	refuse := func() error {
		return errorf(CodeUnsupported, "sidecar does not read this interval input as PostgreSQL 14 does (fractional fields and overflow are computed differently before 15): \"%s\"", s)
	}
	for _, tok := range strings.Fields(s) {
		if strings.Contains(tok, ".") && !strings.Contains(tok, ":") {
			return refuse() // a fraction of a unit, a bare number or an ISO 8601 field
		}
	}
	run := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			run = 0
			continue
		}
		if run++; run > 6 {
			return refuse() // 14's int32 fields may overflow or wrap
		}
	}
	if _, err := parseInterval(s); err != nil {
		var e *Error
		if errors.As(err, &e) && (e.Code == "22015" || e.Code == CodeDatetimeField) {
			return refuse()
		}
	}
	return nil
}
