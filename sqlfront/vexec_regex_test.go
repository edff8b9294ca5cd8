package sqlfront_test

import "testing"

// TestVectorizedRegex: the regular-expression operators ~ !~ ~* !~* (and
// the library's other operators, such as the bitwise ones) on sql/exec
// answer as PostgreSQL, through the library the flat path uses: matches,
// NULLs, patterns from columns and parameters, invalid patterns'
// SQLSTATE, and refusals where the library cannot match exactly.
func TestVectorizedRegex(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb"}, recTables)
	from := " FROM (SELECT * FROM fa) s"
	cases := []diffCase{
		{sql: "SELECT id, name ~ '^Name[0-9]+$', name !~ 'x$', name ~* '^name1', name !~* 'NAME2'" + from + " ORDER BY id"},
		{sql: "SELECT count(*)" + from + " WHERE name ~ '[13579] x$'"},
		{sql: "SELECT id" + from + " WHERE name ~ '^Name(1|2)[0-9]$' AND NOT name ~* 'X' ORDER BY id"},
		{sql: "SELECT s.id, b.label, s.name ~ b.label FROM (SELECT * FROM fa) s JOIN fb b ON b.k = s.id ORDER BY 1"},
		{sql: "SELECT b.label ~ 'a+', b.label !~ '^r' FROM (SELECT * FROM fb) b ORDER BY k"},
		{sql: "SELECT 'abc' ~ 'b', 'abc' ~ NULL, NULL ~ 'a'" + from + " WHERE id = 1"},
		{sql: "SELECT id % 7 & 3, id | 8, id # 5, ~id" + from + " ORDER BY id"},
		{sql: "SELECT name ~ '[a-z]+[0-9]{2}'" + from + " ORDER BY id"},
		{sql: "SELECT id, name ~ '\\d$', name ~ '(?x) \\w+ \\d'" + from + " ORDER BY id"}, // class escapes (sql/builtin/regexopts.go)
		// A pattern the library refuses (it cannot match or report it
		// exactly: \y and other escapes, malformed patterns, non-ASCII case folding),
		// and an operator on types without it (the binder's 42883
		// stands behind the flat path's refusal).
		{sql: "SELECT name ~ '\\y'" + from, refuse: true},
		{sql: "SELECT name ~ '('" + from, refuse: true},
		{sql: "SELECT 'Ä' ~* 'ä'" + from, refuse: true},
		{sql: "SELECT id ~ 'a'" + from, refuse: true},
	}
	diffVectorized(t, r, cases)
}
