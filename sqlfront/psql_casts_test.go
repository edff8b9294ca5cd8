package sqlfront_test

import "testing"

// TestPsqlCasts: psql's \dC and \dC+ list the source database's casts
// (pg_cast, read by the copy and the catalog poll: facts section 'B')
// as PostgreSQL does, with a type pattern too and a cast's comment;
// every one was refused 0A000 before (pg_cast not served). A cast of a
// type outside pg_catalog listed (its name and visibility depend on the
// search path), a search path placing pg_catalog after another schema
// and a schema-qualified pattern are refused 0A000.
func TestPsqlCasts(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{
		"CREATE TABLE items (id int PRIMARY KEY, v text)", "INSERT INTO items VALUES (1, 'a')",
		"CREATE SCHEMA other", "CREATE TYPE other.mood AS ENUM ('sad', 'ok')",
		"CREATE CAST (other.mood AS text) WITH INOUT",
		"COMMENT ON CAST (bigint AS integer) IS 'narrowing'",
	})
	c := psqlRig(r)
	c.same(t, `\dC int*`, `\dC+ int*`, `\dC bool*`, `\dC+ bigint`, `\dC "char"`, `\dC+ nosuchtype`, `\dC+ *int*`)
	c.refused(t, nil, `\dC`, `\dC+`, `\dC text`, `\dC pg_catalog.int*`)
	c.withArgs("-c", "SET search_path = other, pg_catalog, public").refused(t, nil, `\dC int*`)
	c.withArgs("-c", "SET search_path = pg_catalog, other").same(t, `\dC+ int*`)
}

// TestPsqlCastsAll: with no cast of a type outside pg_catalog, psql's
// \dC and \dC+ without a pattern list every cast (229 on 15) as
// PostgreSQL does.
func TestPsqlCastsAll(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{"CREATE TABLE items (id int PRIMARY KEY)"})
	psqlRig(r).same(t, `\dC`, `\dC+`)
}
