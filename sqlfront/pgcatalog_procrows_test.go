package sqlfront_test

import "testing"

// TestPsqlFunctionsListed (issue 23): psql's \df, \df+ and their kind
// letters and patterns print PostgreSQL's listing of the source
// database's own functions (they were refused 0A000: pg_proc had no
// rows for them): result and argument types, kind, volatility, parallel
// safety, owner, security, ACL, language, internal name and comment.
// Then CREATE/DROP FUNCTION, GRANT and COMMENT ON FUNCTION while
// following (not in the logical stream) are read by the catalog poll.
func TestPsqlFunctionsListed(t *testing.T) {
	r := newRig(t, []string{"public.t", "shop.items"}, []string{
		"DROP ROLE IF EXISTS df_reader", "CREATE ROLE df_reader",
		"CREATE SCHEMA shop", "CREATE TABLE t (id int PRIMARY KEY)", "CREATE TABLE shop.items (id int PRIMARY KEY)",
		"CREATE FUNCTION add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT a + b'",
		"CREATE FUNCTION add(a text, b text) RETURNS text LANGUAGE sql STABLE AS 'SELECT a || b'",
		"COMMENT ON FUNCTION add(int, int) IS 'adds'",
		"CREATE FUNCTION shop.greet(who text, OUT greeting text, INOUT n int) LANGUAGE plpgsql SECURITY DEFINER PARALLEL RESTRICTED AS $$BEGIN greeting := 'hi ' || who; END$$",
		"REVOKE ALL ON FUNCTION shop.greet(text, int) FROM PUBLIC", "GRANT EXECUTE ON FUNCTION shop.greet(text, int) TO df_reader",
		"CREATE FUNCTION shop.rows(n int) RETURNS SETOF shop.items LANGUAGE sql AS 'SELECT * FROM shop.items LIMIT n'",
		"CREATE FUNCTION shop.tab(n int) RETURNS TABLE (a int, b text) LANGUAGE sql AS 'SELECT n, n::text'",
		"CREATE PROCEDURE shop.noop(x int) LANGUAGE sql AS 'SELECT 1'",
		"CREATE FUNCTION shop.twice(x int) RETURNS int LANGUAGE sql IMMUTABLE RETURN x * 2",
		"CREATE FUNCTION shop.both(x int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT x + 1; END",
		"CREATE AGGREGATE shop.total(int) (SFUNC = int4pl, STYPE = int, INITCOND = '0')",
		"CREATE FUNCTION shop.lower_c(text) RETURNS text LANGUAGE internal IMMUTABLE STRICT AS 'lower'",
	})
	cmds := []string{`\df`, `\df+`, `\df shop.*`, `\df+ shop.*`, `\dfa`, `\dfp`, `\dfw`, `\dfa shop.*`, `\dfp+ shop.*`, `\df+ shop.rows`,
		`\df public.*`, `\df+ shop.t*`}
	// A pattern without a schema reaches pg_catalog's functions: refused.
	refused := []string{`\df add`, `\df+ a*`, `\df *.gr*`}
	psqlSameOrSameError(t, r, false, cmds...) // pgcatalog_typedetail_test.go
	psqlRefused(t, r, refused...)             // listings_test.go
	execSQL(t, r.pgURL, "DROP FUNCTION add(text, text)", "COMMENT ON FUNCTION add(int, int) IS 'adds, commented again'",
		"GRANT EXECUTE ON FUNCTION add(int, int) TO df_reader", "CREATE FUNCTION shop.later() RETURNS void LANGUAGE sql AS ''",
		"ALTER FUNCTION shop.tab(int) VOLATILE LEAKPROOF")
	pollFacts(t, r) // pgcatalog_usertypes_test.go
	psqlSameOrSameError(t, r, false, cmds...)
	psqlRefused(t, r, refused...)
	catalogCompare(t, r, []string{
		"SELECT p.proname, p.prokind, p.provolatile, p.proparallel, p.prosecdef, p.proretset, p.pronargs, p.proargtypes, p.prosrc, " +
			"array_to_string(p.proacl, ','), p.proacl IS NULL, obj_description(p.oid, 'pg_proc'), pg_get_function_identity_arguments(p.oid), " +
			"pg_get_function_result(p.oid), pg_function_is_visible(p.oid) " +
			"FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 13",
	}, []string{
		"SELECT count(*) FROM pg_proc",
		"SELECT p.proname, p.procost FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'shop'",
	})
}
