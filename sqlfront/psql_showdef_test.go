package sqlfront_test

import "testing"

// TestPsqlShowView (issue 23): psql's \sv and \sv+ print a view's
// definition as PostgreSQL does (the lookup 'name'::regclass of a view
// was refused), with options and a check option, by a qualified and an
// unqualified name; regclass of a view is its OID, and an unknown name
// is 42P01 as on PostgreSQL; regclass of a materialized view stays
// refused (its indexes are not read).
func TestPsqlShowView(t *testing.T) {
	r := newRig(t, []string{"public.items", "shop.orders"}, []string{
		"CREATE SCHEMA shop",
		"CREATE TABLE items (id int PRIMARY KEY, name text, qty int)",
		"CREATE TABLE shop.orders (id int PRIMARY KEY, item int REFERENCES items, n int)",
		"CREATE VIEW item_names AS SELECT id, name FROM items WHERE qty > 0",
		"CREATE VIEW shop.big WITH (security_barrier) AS SELECT o.id, i.name FROM shop.orders o JOIN items i ON i.id = o.item WHERE o.n > 10",
		"CREATE VIEW shop.checked AS SELECT id, n FROM shop.orders WHERE n > 0 WITH LOCAL CHECK OPTION",
		"CREATE VIEW shop.cascade AS SELECT id, n FROM shop.checked WHERE n < 100 WITH CASCADED CHECK OPTION",
		"CREATE MATERIALIZED VIEW shop.totals AS SELECT item, sum(n) AS n FROM shop.orders GROUP BY item",
	})
	psqlSameOrSameError(t, r, false, `\sv item_names`, `\sv+ item_names`, `\sv public.item_names`, `\sv shop.big`, `\sv+ shop.big`,
		`\sv shop.checked`, `\sv shop.cascade`, `\sv nosuch`)
	catalogCompare(t, r, []string{
		"SELECT 'item_names'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'item_names')",
		"SELECT 'shop.big'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'big')",
		"SELECT pg_get_viewdef('shop.checked'::regclass, true)",
	}, []string{"SELECT 'shop.totals'::regclass::oid"}) // a materialized view: its indexes are not read
}

// TestPsqlShowFunction (issue 23): psql's \sf and \sf+ print a user
// function's or procedure's definition as PostgreSQL does (the lookup
// 'name'::regproc and 'name(args)'::regprocedure of a user function
// was refused, pg_get_functiondef unknown), by a unique name, a
// qualified name and a signature; an ambiguous name fails 42725 and an
// unknown one 42883 and an aggregate 42809 as on PostgreSQL; a name
// pg_catalog also has is refused. CREATE OR REPLACE FUNCTION while following is
// read by the catalog poll.
func TestPsqlShowFunction(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{
		"CREATE SCHEMA shop",
		"CREATE TABLE items (id int PRIMARY KEY, name text, qty int)",
		"CREATE FUNCTION add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b'",
		"CREATE FUNCTION shop.greet(who text) RETURNS text LANGUAGE plpgsql STABLE STRICT AS $$BEGIN RETURN 'hi ' || who; END$$",
		"CREATE FUNCTION shop.greet(who text, n int) RETURNS SETOF text LANGUAGE sql AS $$SELECT 'hi ' || who FROM generate_series(1, n)$$",
		"CREATE PROCEDURE shop.noop() LANGUAGE sql AS 'SELECT 1'",
		"CREATE FUNCTION shop.upper(x int) RETURNS int LANGUAGE sql AS 'SELECT x'",
		"CREATE AGGREGATE shop.total(int) (SFUNC = int4pl, STYPE = int, INITCOND = '0')",
	})
	cmds := []string{`\sf add`, `\sf+ add`, `\sf public.add`, `\sf add(int, int)`, `\sf add(integer,integer)`, `\sf shop.greet(text)`,
		`\sf+ shop.greet(text, integer)`, `\sf shop.greet`, `\sf shop.noop`, `\sf shop.noop()`, `\sf shop.nosuch`, `\sf shop.greet(int)`,
		`\sf shop.upper`, `\sf shop.total`}
	psqlSameOrSameError(t, r, false, cmds...) // pgcatalog_typedetail_test.go
	// \sf prints a failed lookup without its SQLSTATE: the lookups
	// psql sends, refused.
	catalogCompare(t, r, nil, []string{"SELECT 'upper(text)'::pg_catalog.regprocedure::pg_catalog.oid",
		"SELECT 'lower(text)'::pg_catalog.regprocedure::pg_catalog.oid"})
	execSQL(t, r.pgURL, "CREATE OR REPLACE FUNCTION add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b + 0'",
		"DROP FUNCTION shop.greet(text, int)")
	pollFacts(t, r) // pgcatalog_usertypes_test.go
	psqlSameOrSameError(t, r, false, cmds...)
	catalogCompare(t, r, []string{
		"SELECT pg_get_functiondef('shop.greet(text)'::regprocedure)",
		"SELECT pg_get_functiondef('add'::regproc) = pg_get_functiondef('add(int,int)'::regprocedure)",
	}, nil)
}
