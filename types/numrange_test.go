package types

import "testing"

// TestArithNumericOverflow: + - * / of numerics whose result has more
// than 131,072 digits before the point (NUMERIC_WEIGHT_MAX) fail with
// 22003, as PostgreSQL's make_result does; results just inside stay
// values. sqlfront's TestHostileInputs compares the same statements
// with PostgreSQL's answers.
func TestArithNumericOverflow(t *testing.T) {
	for _, c := range []struct {
		op, a, b string
		over     bool
	}{
		{"*", "1e131071", "1e131071", true},
		{"*", "1e131071", "9.9", false},
		{"*", "1e131071", "10", true},
		{"+", "9e131071", "9e131071", true},
		{"+", "5e131071", "4e131071", false},
		{"-", "-9e131071", "9e131071", true},
		{"/", "1e131071", "0.01", true},
		{"/", "1e131071", "10", false},
		{"*", "123.456", "789", false},
	} {
		a, err := parseDecimal(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := parseDecimal(c.b)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Arith(c.op, Numeric, a, b)
		if got := err != nil; got != c.over {
			t.Errorf("%s %s %s: error %v, want overflow %v", c.a, c.op, c.b, err, c.over)
		}
	}
}
