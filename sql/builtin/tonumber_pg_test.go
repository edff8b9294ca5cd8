package builtin_test

import "testing"

// TestToNumberMatchesPostgres compares to_number with the server's
// major over the patterns analysts use (digits, FM, G/D and ",."
// separators, S, MI, PL, SG, PR, L, V, TH, literals) and inputs that
// miss them (signs where none is expected, too many digits, no digits,
// separators elsewhere), and the errors (EEEE, RN before 18, bad
// formats). Before, every call was refused (0A000).
func TestToNumberMatchesPostgres(t *testing.T) {
	inputs := vals("text", "12,454.8-", "1,234.56", "  123", "-123", "+123", "123-", "123+", "<123>", "$123.45", "12", "12.5",
		"1234.5678", "99999", "abc", "", " ", "-", ".", "0.001", "-0.5", "12 34", "1x2", "1st", "1,2,3", "-1,234.5", "1.2.3",
		"00012", "12e3", "€12", "$$123.45", "x123.45", "1123.45", "$1", "1$2", "1.5-", ".5-", "5.01-", "123 -", "- 1", "+.5", "1 000,5", "1,000.5", "999999999", "4th")
	formats := vals("text", "99G999D9S", "999G999D99", "FM9999", "S999", "999S", "9S", "FM9.9S", "L999D99", "999PR", "999MI",
		"MI999", "PL999", "999PL", "SG999", "999SG", "99V9", "9V99", "99.99", "9999.99", "999", "9", "0000", "FM999,999.999",
		"99 99", "9x9", "9th", "99TH", "\"$\"999", "9,9,9", "L9", "LL99", "9L9", "FM9G999G999D99", "9.9EEEE", "RN", "99D99D9", "9V9.9", "999PRS",
		"", "D99", "SG9.99", "FM0.00")
	runDifferential(t, cross("to_number", inputs, formats))
	// Answered on every major: all but RN (read from 18 on), V (its
	// power of ten's scale depends on the major) and EEEE (0A000 in
	// PostgreSQL too).
	noRefusals(t, cross("to_number", inputs, vals("text", "99G999D9S", "FM9999", "S999", "999PR", "999MI", "L999D99", "9x9", "99TH")))
}
