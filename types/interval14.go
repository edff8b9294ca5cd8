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
//
// The fractions 14 and 15 compute alike: both truncate a fraction of a
// week or month to whole days first and round the rest in microseconds,
// so a fraction of at most six digits of a second, minute, hour, day,
// week or month (three of a millisecond) lands on whole microseconds in
// both. 14 truncates a fraction of a year (and decade, century,
// millennium) to months where 15 rounds, and rounds a fraction of a
// microsecond half to even where 15 rounds the fraction alone: refused,
// as are longer fractions and ISO 8601's.

// interval14Refusal is the 0A000 for interval input s before PostgreSQL
// 15 where 14's answer may differ from parseInterval's; nil when they
// agree.
func interval14Refusal(s string) error {
	refuse := func() error {
		return errorf(CodeUnsupported, "sidecar does not read this interval input as PostgreSQL 14 does (fractional fields and overflow are computed differently before 15): \"%s\"", s)
	}
	if !fractions14Agree(s) {
		return refuse()
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

// fractions14Agree says whether every fraction in interval input s is
// one PostgreSQL 14 and 15 compute alike (see above). A number's unit
// is found as DecodeInterval finds it, right to left: the unit word
// after it, seconds for a trailing bare number, days left of a clock
// field or of hours.
func fractions14Agree(s string) bool {
	if !strings.Contains(s, ".") {
		return true
	}
	fields, ftypes, e := ivParseFields(s)
	if e != ivOK {
		return false
	}
	typ := ivSecond
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		switch ftypes[i] {
		case ivTime:
			typ = ivDay // its own fraction is a second's, read alike
			continue
		case ivString, ivSpecial:
			if u := unitOf(f); u != ivNone && u != ivAgo {
				typ = u
			}
			continue
		case ivTZ, ivDate, ivNumber:
			if strings.Contains(f, ":") {
				typ = ivDay // a signed clock field
				continue
			}
		default:
			return false
		}
		_, rest, ok := strtoi64(f)
		if !ok {
			return false
		}
		if strings.HasPrefix(rest, ".") {
			digits := len(rest) - 1
			switch typ {
			case ivSecond, ivMinute, ivHour, ivDay, ivWeek, ivMonth:
				if digits > 6 {
					return false
				}
			case ivMillisec:
				if digits > 3 {
					return false
				}
			default:
				return false // years and longer, microseconds
			}
		} else if strings.Contains(f, ".") {
			return false
		}
		if typ == ivHour {
			typ = ivDay
		}
	}
	return true
}
