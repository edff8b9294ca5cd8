package sqlfront_test

import "testing"

// TestArrayAndFormatFuncsOverTheWire: the functions session 14 added
// answer through the front end as PostgreSQL does, in both protocols:
// string_to_array, array_remove/array_replace, array slices,
// to_char(interval), factorial, power(numeric, integer) where the majors
// agree, to_date with month names. Each was refused (0A000) before.
func TestArrayAndFormatFuncsOverTheWire(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb"}, recTables)
	cases := []diffCase{
		{sql: "SELECT string_to_array('a,b,,c', ',', ''), string_to_array('äöü', NULL), string_to_array('', ',')"},
		{sql: "SELECT array_remove(ARRAY[1,2,3,2], 2), array_replace(ARRAY['a','b',NULL], NULL, 'z')"},
		{sql: "SELECT (ARRAY[1,2,3,4])[2:3], (ARRAY[1,2,3,4])[:2], (ARRAY[1,2,3,4])[3:], (string_to_array(fb.label, 'a'))[1:1] FROM fb ORDER BY fb.k"},
		{sql: "SELECT to_char(interval '1 day 2 hours 3 minutes', 'DD HH24:MI:SS'), to_char(interval '-15h -2m', 'HH24:MI')"},
		{sql: "SELECT factorial(20), power(2::numeric, 3), 2::numeric ^ -3"},
		{sql: "SELECT to_date('05 Jan 2020', 'DD Mon YYYY'), to_date('5th March 2021', 'FMDDth Month YYYY')"},
		{sql: "SELECT to_char(interval '1 month', 'Mon')"},
		{sql: "SELECT factorial(-1)"},
		{sql: "SELECT power(2.5, 3)", refuse: true}, // the scale differs by major
	}
	diffVectorized(t, r, cases)
}
