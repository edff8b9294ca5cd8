package types

import "testing"

// TestPlainDecimalMatchesGeneral checks the allocation-light parse of
// plain numeric input against the general one, including the forms it
// must leave to the general path.
func TestPlainDecimalMatchesGeneral(t *testing.T) {
	for _, s := range []string{"0", "-0", "+0", "-0.00", "1", "12.50", ".5", "5.", "-.5", "000123.4500",
		"123456789012345678", "-123456789012345678", "1234567890123456789", "0.000000000000000001", "12345678901234567.8",
		"1e3", " 1", "1 ", "1_000", "NaN", "-Infinity", ".", "-", "", "1.2.3", "abc", "1x"} {
		want, werr := parseDecimalGeneral(s)
		got, gerr := parseDecimal(s)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: error %v, general %v", s, gerr, werr)
		}
		if werr != nil {
			if werr.Error() != gerr.Error() {
				t.Fatalf("%q: error %q, general %q", s, gerr, werr)
			}
			continue
		}
		if got.String() != want.String() || got.Scale != want.Scale || got.V.Cmp(&want.V) != 0 || got.NaN != want.NaN || got.Inf != want.Inf {
			t.Fatalf("%q: %s (scale %d), general %s (scale %d)", s, got, got.Scale, want, want.Scale)
		}
	}
}

// parseDecimalGeneral is parseDecimal without its plain fast path.
func parseDecimalGeneral(s string) (*Decimal, error) {
	if _, ok := parsePlainDecimal(s); !ok {
		return parseDecimal(s)
	}
	// Force the general path: an exponent of zero does not change the value.
	return parseDecimal(s + "e0")
}
