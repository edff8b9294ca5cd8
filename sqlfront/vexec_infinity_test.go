package sqlfront_test

import "testing"

// TestInfinityBinary: ±infinity dates and timestamps (and the extremes
// around them) answer as PostgreSQL in text and binary format (pgx's
// extended protocol reads date/timestamp/timestamptz in binary), on the
// flat path and on sql/exec.
func TestInfinityBinary(t *testing.T) {
	r := newRig(t, []string{"public.inf"}, []string{
		"CREATE TABLE inf (id int PRIMARY KEY, d date, ts timestamp, tz timestamptz)",
		"INSERT INTO inf VALUES (1, 'infinity', 'infinity', 'infinity'), (2, '-infinity', '-infinity', '-infinity'), " +
			"(3, '2024-02-29', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789+00'), (4, '4713-01-01 BC', '4713-01-01 00:00 BC', '4713-01-01 00:00+00 BC'), " +
			"(5, NULL, NULL, NULL), (6, '5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00')",
	})
	cases := []diffCase{
		{sql: "SELECT id, d, ts, tz FROM inf ORDER BY id"},
		{sql: "SELECT id, d, ts, tz FROM (SELECT * FROM inf) s ORDER BY id"},
		{sql: "SELECT id, d::timestamp, ts::date, tz::timestamp FROM (SELECT * FROM inf) s ORDER BY id"},
		{sql: "SELECT max(d), min(d), max(ts), min(tz) FROM (SELECT * FROM inf) s"},
		{sql: "SELECT 'infinity'::date, '-infinity'::timestamp, 'infinity'::timestamptz FROM (SELECT * FROM inf) s WHERE id = 1"},
	}
	diffVectorized(t, r, cases)
}
