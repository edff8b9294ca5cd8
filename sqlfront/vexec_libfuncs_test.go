package sqlfront_test

import "testing"

// TestVectorizedLibraryFuncs: the library functions session 10 added or
// completed answer through the front end as PostgreSQL does, on
// whichever path takes them: regexp_split_to_table and regexp_matches
// in FROM (the flat planner said 42883 and kept sql/exec from trying),
// VARIADIC calls, the ||/ operator and cbrt, SIMILAR substrings with
// separators, unistr, power(numeric, numeric), float8send. Each was
// refused (or 42883) before.
func TestVectorizedLibraryFuncs(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb"}, recTables)
	cases := []diffCase{
		{sql: "SELECT foo, length(foo) FROM regexp_split_to_table('the quick brown fox', $re$\\s+$re$) AS foo"},
		{sql: "SELECT * FROM regexp_split_to_table('thE QUick bROWn', 'e', 'i') WITH ORDINALITY"},
		{sql: "SELECT m FROM regexp_matches('foobarbequebaz', 'ba.', 'g') AS m"},
		{sql: "SELECT fb.k, x FROM fb, regexp_split_to_table(fb.label, 'a') AS x ORDER BY fb.k, x"},
		{sql: "SELECT concat(variadic array[1,2,3]), concat_ws(',', variadic array['a', NULL, 'c'])"},
		{sql: "SELECT format('%2$s, %1$s', variadic array['first', 'second']), format('Hello', variadic NULL::int[])"},
		{sql: "SELECT concat(variadic NULL::int[]) IS NULL, concat(variadic '{}'::int[]) = ''"},
		{sql: "SELECT ||/ float8 '27', cbrt(float8 '-34.84'), ||/ f FROM fa ORDER BY id"},
		{sql: "SELECT substring('abcdefg' similar 'a#\"%#\"g' escape '#'), substring(name similar '%#\"[0-9]+#\"%' escape '#') FROM fa ORDER BY id"},
		{sql: "SELECT unistr('d\\u0061t\\U000000610'), unistr('\\0064at\\+0000610')"},
		{sql: "SELECT 0 ^ 0 + 0 ^ 1 + 0 ^ 0.0 + 0 ^ 0.5, power(2.5, 0), power(0.00, 3)"},
		{sql: "SELECT float8send('2.2250738585072014E-308'::float8), float8send(f) FROM fa ORDER BY id"},
		{sql: "SELECT power(2.5, 1.5), power(2, 0.5)"}, // the first as power_var (numlog.go)
		{sql: "SELECT power(2.5, 3)", refuse: true},    // an integer exponent: the scale differs by major
	}
	diffVectorized(t, r, cases)
}
