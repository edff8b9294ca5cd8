package sqlfront_test

import "testing"

// TestTimestamptzComparisons: a date or a timestamp compared with a
// timestamptz is read in the session's zone, as PostgreSQL's
// date_cmp_timestamptz / timestamp_cmp_timestamptz do. Before, every such
// comparison (`created_at >= date '2024-03-10'`, the commonest filter of
// a dashboard) was refused, and so was a RANGE offset frame over a
// timestamptz (a rolling 7-day sum).
func TestTimestamptzComparisons(t *testing.T) {
	r := newRig(t, []string{"public.ev"}, []string{
		"CREATE TABLE ev (id int PRIMARY KEY, tz timestamptz, d date, ts timestamp)",
		"INSERT INTO ev SELECT i, timestamptz '2024-03-09 18:00+00' + i * interval '97 minutes', date '2024-03-09' + i / 15, timestamp '2024-03-09 18:00' + i * interval '89 minutes' FROM generate_series(1, 60) i",
		"INSERT INTO ev VALUES (100, 'infinity', 'infinity', '-infinity'), (101, NULL, NULL, NULL)",
	})
	url := tzServe(t, r) // named zones checked against the server, as the daemon does
	for _, zone := range []string{"UTC", "-05:30", "PST8PDT", "Europe/Berlin", "Australia/Lord_Howe"} {
		for _, q := range []string{
			"SELECT id FROM ev WHERE tz >= date '2024-03-10' AND tz < date '2024-03-10' + 1 ORDER BY id",
			"SELECT id FROM ev WHERE tz < d ORDER BY id",
			"SELECT id, tz > ts, ts = tz, d <= tz FROM ev ORDER BY id",
			"SELECT count(*) FROM ev WHERE tz BETWEEN timestamp '2024-03-10 03:00' AND date '2024-03-11'",
			"SELECT d, count(*) FROM ev WHERE tz > d GROUP BY d ORDER BY d",
			"SELECT a.id, b.id FROM ev a JOIN ev b ON a.d = b.tz ORDER BY 1, 2",
			// RANGE offset frames over timestamptz: the bound moves the
			// local time by the interval's days and months.
			"SELECT id, count(*) OVER (ORDER BY tz RANGE BETWEEN interval '1 day' PRECEDING AND CURRENT ROW), sum(id) OVER (ORDER BY tz RANGE BETWEEN interval '2 hours 30 minutes' PRECEDING AND interval '1 mon' FOLLOWING) FROM ev ORDER BY id",
		} {
			psqlCheck{sqlURL: url, pgURL: r.pgURL}.withArgs("-c", "SET TimeZone = '"+zone+"'").same(t, q)
		}
	}
}
