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

// TestNumericPowerIntMatchesPostgres compares power(numeric, integer)
// (power_var_int) with the server's major: result scales before and
// from PostgreSQL 16, negative bases and exponents, tiny and huge
// results, the overflow and underflow edges. Before, every call with an
// integer exponent other than 0 was refused (0A000).
func TestNumericPowerIntMatchesPostgres(t *testing.T) {
	bases := vals("numeric", "2", "-2", "2.5", "-1.5", "10", "1000", "0.1", "0.001", "3", "7", "1.01", "0.99", "1.23456789", "12345.6789",
		"9.99", "-0.3", "1", "-1", "1e100", "1e-100", "123456789012345678901234567890.5", "0.50", "2.000000000000000000000")
	exps := vals("numeric", "1", "-1", "2", "-2", "3", "-3", "5", "10", "-10", "100", "-100", "1000", "-1000", "5000", "3.0", "2.00000000000000000000",
		"2147483647", "-2147483648", "131072", "-131072")
	runDifferential(t, cross("power", bases, exps))
	runDifferential(t, cross("power", vals("int4", "2", "-3", "10"), vals("numeric", "3", "-3", "40")))
}
