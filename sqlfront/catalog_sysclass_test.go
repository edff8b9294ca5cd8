package sqlfront_test

import "testing"

// TestCatalogSystemClasses: pg_class lists PostgreSQL's bootstrap
// catalogs (pg_type, pg_attribute, pg_proc, pg_class) as PostgreSQL
// does, for the scans that name them (pgjdbc's getProcedures joins
// pg_description's classoid to pg_class by relname 'pg_proc'; refused
// before), with pg_table_is_visible of them under search paths that
// place pg_catalog implicitly, first or after a schema, and relnatts as
// the major has it; what differs by server (relfilenode) or any other
// system relation stays refused.
func TestCatalogSystemClasses(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{"CREATE TABLE items (id int PRIMARY KEY, name text)", "INSERT INTO items VALUES (1, 'a')"})
	const names = "relname IN ('pg_proc', 'pg_class', 'pg_type', 'pg_attribute')"
	catalogCompare(t, r, []string{
		// (the columns the tables' rows know too: a value unknown in any
		// row a scan reads is refused)
		"SELECT oid, relname, relnamespace, reloftype, relowner, relam, reltablespace, relhasindex, relisshared, relpersistence, relkind, " +
			"relnatts, relchecks, relhastriggers, relhassubclass, relispopulated, relispartition, relrewrite, reloptions FROM pg_class WHERE " + names + " ORDER BY oid",
		"SELECT relname, pg_table_is_visible(oid) FROM pg_class WHERE " + names + " ORDER BY 1",
		"SET search_path = public, pg_catalog; SELECT relname, pg_table_is_visible(oid) FROM pg_class WHERE relname = 'pg_proc'",
		"SELECT c.relname, n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'pg_proc'",
		// psql's \dt and the BI listings do not reach them.
		"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p') AND n.nspname = 'public' " +
			"AND pg_table_is_visible(c.oid) ORDER BY 1",
		"SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','v','m','p','f') " +
			"AND n.nspname NOT IN ('pg_catalog','information_schema') ORDER BY 1",
	}, []string{
		"SELECT relfilenode FROM pg_class WHERE relname = 'pg_class'",
		"SELECT oid FROM pg_class WHERE relname = 'pg_namespace'",
		"SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'pg_proc'",
	})
}
