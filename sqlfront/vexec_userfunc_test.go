package sqlfront_test

import "testing"

// TestUserFunctionShadow: a call PostgreSQL may resolve to a function
// the database defines is refused (0A000), never answered by the
// built-in function of the same name. polymorphism.sql's
// concat(text, VARIADIC anyarray) makes PostgreSQL answer
// concat('%', 1, 2, 3) with 1%2%3, where sidecar answered %123; a name
// qualified by a schema other than pg_catalog (public.lower('A'):
// 42883 on PostgreSQL) was answered by the built-in too. Built-in calls
// of other names, pg_catalog-qualified calls and a function of a
// schema off the search path keep their answers.
func TestUserFunctionShadow(t *testing.T) {
	r := newRig(t, []string{"public.uf"}, []string{
		"CREATE TABLE uf (id int PRIMARY KEY, name text)",
		"INSERT INTO uf VALUES (1, 'a'), (2, 'b'), (3, NULL)",
		"CREATE FUNCTION concat(text, VARIADIC anyarray) RETURNS text LANGUAGE sql AS 'SELECT array_to_string($2, $1)'",
		"CREATE SCHEMA other",
		"CREATE FUNCTION other.upper(text) RETURNS text LANGUAGE sql AS 'SELECT lower($1)'",
		"CREATE AGGREGATE first_int(int) (SFUNC = int4larger, STYPE = int)",
	})
	cases := []diffCase{
		{sql: "SELECT concat('%', 1, 2, 3, 4, 5)", refuse: true},
		{sql: "SELECT concat('|', 'a'::text, 'b', 'c')", refuse: true},
		{sql: "SELECT id, concat('-', id, id) FROM uf ORDER BY id", refuse: true},
		{sql: "SELECT s.id, concat('-', s.id, 7) FROM (SELECT * FROM uf) s ORDER BY 1", refuse: true},
		{sql: "SELECT * FROM concat('%', 1, 2)", refuse: true},
		{sql: "SELECT first_int(id) FROM uf", refuse: true},
		{sql: "SELECT public.concat('%', 1, 2)", refuse: true},
		{sql: "SELECT other.upper(name) FROM uf ORDER BY id", refuse: true},
		// PostgreSQL fails 42883: refused, not answered by lower.
		{sql: "SELECT public.lower('A')", refuse: true},
		{sql: "SELECT public.lower(name) FROM uf", refuse: true},
		// PostgreSQL's own functions still answer.
		{sql: "SELECT pg_catalog.concat('%', 1, 2, 3)"},
		{sql: "SELECT id, pg_catalog.concat(name, id) FROM uf ORDER BY id"},
		{sql: "SELECT upper(name), lower(name) FROM uf ORDER BY id"}, // other.upper is off the search path
		{sql: "SELECT concat_ws('-', name, id) FROM uf ORDER BY id"},
		{sql: "SELECT max(id) FROM uf"},
	}
	diffVectorized(t, r, cases) // vexec_rec_test.go
}
