package sqlfront_test

import "testing"

// Issue 21 (wrong answers): min and max among values that compare equal
// but print differently (0 and -0, 1.0 and 1.00, '1 day' and '24 hours')
// answered the first the sidecar read, where PostgreSQL's answer is the
// last its plan reads (float8smaller, numeric_smaller, interval_smaller
// keep the later of equal values). Over VALUES the order is known and
// answered; over a table it is refused — on every path that computes a
// min or max (the flat evaluator, the query engine, sql/exec).
func TestMinMaxEqualValuesPrintingDifferently(t *testing.T) {
	r := newRig(t, []string{"public.mm"}, []string{
		"CREATE TABLE mm (id int PRIMARY KEY, n numeric, f float8, i interval, g int)",
		"INSERT INTO mm VALUES (1, 1.0, 0, '1 day', 1), (2, 1.00, '-0', '24 hours', 1), (3, 2.5, 3, '2 days', 2), (4, 2.50, 3, '48 hours', 2)",
	})
	catalogCompare(t, r, []string{
		"SELECT min(v), max(v) FROM (VALUES (1.00), (1.0), (2.0), (2.00)) t(v)",
		"SELECT min(v), max(v) FROM (VALUES ('0'::float8), ('-0'::float8)) t(v)",
		"SELECT min(id), max(id), count(*) FROM mm",
		"SELECT g, min(id) FROM mm GROUP BY g ORDER BY g",
		"SELECT max(f) FROM mm",
	}, []string{
		"SELECT min(n) FROM mm",
		"SELECT max(n) FROM mm",
		"SELECT min(f) FROM mm",
		"SELECT max(i), min(i) FROM mm",
		"SELECT g, min(n) FROM mm GROUP BY g ORDER BY g",
		"SELECT min(n) FROM mm WHERE id > 0",
	})
}
