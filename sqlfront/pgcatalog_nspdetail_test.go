package sqlfront_test

import "testing"

// TestPsqlSchemasVerbose (issue 23): psql's \dn+ prints PostgreSQL's
// schema ACLs and comments (it was refused 0A000: nspacl unknown, and
// obj_description of a schema), with a pattern too; then GRANT, REVOKE
// and COMMENT ON SCHEMA while following (not in the logical stream) are
// read by the catalog poll.
func TestPsqlSchemasVerbose(t *testing.T) {
	r := newRig(t, []string{"public.t", "shop.items", "locked.x"}, []string{
		"DROP ROLE IF EXISTS nsp_reader", "CREATE ROLE nsp_reader",
		"CREATE SCHEMA shop", "COMMENT ON SCHEMA shop IS 'the shop'", "GRANT USAGE ON SCHEMA shop TO nsp_reader",
		"CREATE SCHEMA locked", "REVOKE ALL ON SCHEMA locked FROM postgres",
		"COMMENT ON SCHEMA public IS 'public, commented'",
		"CREATE TABLE t (id int PRIMARY KEY)", "CREATE TABLE shop.items (id int PRIMARY KEY)", "CREATE TABLE locked.x (id int PRIMARY KEY)",
	})
	t.Cleanup(func() { execSQL(t, r.pgURL, "COMMENT ON SCHEMA public IS 'standard public schema'") })
	cmds := []string{`\dn+`, `\dn+ shop`, `\dn+ pub*`, `\dn+ locked`, `\dn`}
	psqlSameOrSameError(t, r, false, cmds...) // pgcatalog_typedetail_test.go
	execSQL(t, r.pgURL, "GRANT CREATE ON SCHEMA shop TO nsp_reader", "COMMENT ON SCHEMA shop IS NULL", "GRANT USAGE ON SCHEMA locked TO PUBLIC",
		"COMMENT ON SCHEMA locked IS 'now open'")
	pollFacts(t, r) // pgcatalog_usertypes_test.go
	psqlSameOrSameError(t, r, false, cmds...)
	catalogCompare(t, r, []string{
		"SELECT n.nspname, array_to_string(n.nspacl, ','), n.nspacl IS NULL, obj_description(n.oid, 'pg_namespace') FROM pg_namespace n " +
			"WHERE n.nspname IN ('shop', 'locked', 'public', 'pg_catalog', 'information_schema') ORDER BY 1",
	}, nil)
}
