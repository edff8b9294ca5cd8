package types

import (
	"errors"
	"testing"
)

// TestInterval14Refusal: before PostgreSQL 15 the interval inputs 14's
// DecodeInterval reads otherwise (fractions of units, int32 overflow,
// 22008 for an overflowing total) are refused (intervalin.diff.sql on
// 14: '1.7 decades' is 16 years 11 mons there, '1.5 us' 2 µs); the
// others, and every input from 15, are read.
func TestInterval14Refusal(t *testing.T) {
	refused := []string{"1.7 decades", "1.5 us", "0.3 years", "P1.5Y", "PT1.5S", "1.0015 ms", "1.0000005 seconds", "1234567 seconds", "200000 millennium", "2147483647 days 1 day", "9223372036854775807 microseconds"}
	read := []string{"1.5 seconds", "0.5 days", "2.5", "1.5 weeks", "1.5 months", "3.25 hours", "1.5 secs 3 mins", "1.5 ms", "1 day 02:03:04.5", "-1 week 2 days", "@ 3 hours ago", "1-2", "P1Y2M3DT4H5M6S", "999999 hours", "-00:00:00.5", "12:34"}
	code := func(err error) string {
		var e *Error
		if errors.As(err, &e) {
			return e.Code
		}
		return ""
	}
	for _, s := range refused {
		if _, err := (Dialect{Version: 140023}).In(Interval, -1, s); code(err) != CodeUnsupported {
			t.Errorf("14: interval %q: %v, want 0A000", s, err)
		}
	}
	for _, s := range read {
		v14, err14 := Dialect{Version: 140023}.In(Interval, -1, s)
		v15, err15 := Dialect{Version: 150000}.In(Interval, -1, s)
		if err14 != nil || err15 != nil || v14 != v15 {
			t.Errorf("interval %q: 14 %v %v, 15 %v %v: want the same value", s, v14, err14, v15, err15)
		}
	}
	if _, err := (Dialect{Version: 150000}).In(Interval, -1, "1.7 decades"); err != nil {
		t.Errorf("15: %v", err)
	}
}
