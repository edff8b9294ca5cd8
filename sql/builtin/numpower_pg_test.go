package builtin_test

import "testing"

// TestNumericPowerMatchesPostgres compares power(numeric, numeric) with
// PostgreSQL's where sidecar answers it (NaN, zero bases, zero
// exponents, the errors) over bases and exponents of several scales;
// the rest is refused. Before, every call was refused (0A000).
func TestNumericPowerMatchesPostgres(t *testing.T) {
	bases := vals("numeric", "0", "0.0", "0.000", "0.00000000000000000000", "1", "1.00", "-1", "2", "-2.5", "10.123", "NaN", "Infinity", "-Infinity")
	exps := vals("numeric", "0", "0.0", "0.00000000000000000000000", "1", "2", "3.0", "0.5", "-1", "-0.5", "2147483647", "2147483648", "-2147483649",
		"99999999999999999999.000", "1e-30", "NaN", "Infinity", "-Infinity")
	cases := cross("power", bases, exps)
	runDifferential(t, cases)
	var zeroOrNaN []call
	for _, c := range cases {
		b, e := c.args[0], c.args[1]
		if b.null || e.null {
			continue
		}
		if b.val == "NaN" || e.val == "NaN" || (b.val[0] == '0' && e.val[0] != '-' && e.val[0] != 'I') || e.val == "0" || e.val == "0.0" {
			if b.val[len(b.val)-1] != 'y' {
				zeroOrNaN = append(zeroOrNaN, c)
			}
		}
	}
	noRefusals(t, zeroOrNaN)
	noRefusals(t, []call{{fn: "atanh", args: []arg{{typ: "float8", val: "NaN"}}}})
	runDifferential(t, []call{{fn: "atanh", args: []arg{{typ: "float8", val: "NaN"}}}})
}
