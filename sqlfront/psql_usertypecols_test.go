package sqlfront_test

import "testing"

// TestPsqlDescribeUserTypeColumns: psql's \d and \d+ of a table with
// columns of the database's own types print each type as format_type
// does under the session's search_path: an enum of a schema on the path
// unqualified, one off the path qualified, a domain by its own name. On
// 2f71b81 \d printed `public.mood` where PostgreSQL prints `mood` (the
// stream's schema-qualified type name) and `int4` for a column of domain
// posint (the stream names a domain column by its base type).
func TestPsqlDescribeUserTypeColumns(t *testing.T) {
	r := newRig(t, []string{"public.ut"}, []string{
		"CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
		"CREATE TYPE mood AS ENUM ('a', 'b')",
		"CREATE SCHEMA other", "CREATE TYPE other.color AS ENUM ('red', 'green')",
		"CREATE TABLE ut (id int PRIMARY KEY, m mood, p posint, o other.color, ms mood[])",
		"INSERT INTO ut VALUES (1, 'a', 1, 'red', '{a,b}')",
	})
	psqlRig(r).same(t, `\d ut`, `\d+ ut`)
}
