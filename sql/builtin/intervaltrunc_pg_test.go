package builtin_test

import "testing"

// TestIntervalTruncMatchesPostgres compares date_trunc(text, interval)
// with the server's major over every unit spelling family and intervals
// of both signs. Before, every call was refused (0A000).
func TestIntervalTruncMatchesPostgres(t *testing.T) {
	units := vals("text", "microseconds", "ms", "second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade", "century",
		"millennium", "MONTHS", "dow", "epoch", "bogus")
	ivs := vals("interval", "2 years 7 months 12 days 13:47:31.123456", "-1234 years -7 months -12 days -13:47:31.123456", "-5 months",
		"100000 hours 59 minutes", "-3 days 100 hours", "0", "1 mon -1 hour", "178000000 years")
	cases := cross("date_trunc", units, ivs)
	runDifferential(t, cases)
	noRefusals(t, cross("date_trunc", vals("text", "hour", "month"), ivs))
}
