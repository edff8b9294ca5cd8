package sqlfront_test

import (
	"strconv"
	"strings"
	"testing"
)

// TestCatalogBIListing: the table listings BI tools send (Metabase,
// Superset, DBeaver: pg_class joined to pg_namespace with a relkind
// filter and the system schemas excluded by NOT IN) answer as
// PostgreSQL; pg_class.reltuples (the server's statistics, changed by
// ANALYZE and autovacuum outside the logical stream) is refused.
func TestCatalogBIListing(t *testing.T) {
	r := catalogRig(t)
	catalogCompare(t, r, []string{
		"SELECT c.relname, n.nspname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace " +
			"WHERE c.relkind IN ('r','v','m','p','f') AND n.nspname NOT IN ('pg_catalog','information_schema') ORDER BY n.nspname, c.relname",
		"SELECT n.nspname AS schema, c.relname AS name, c.relkind, obj_description(c.oid, 'pg_class') AS description FROM pg_catalog.pg_class c " +
			"JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p','v','m','f') " +
			"AND n.nspname NOT IN ('pg_catalog','information_schema') AND n.nspname NOT LIKE 'pg_toast%' ORDER BY 1, 2",
		"SELECT c.relname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE n.oid = c.relnamespace AND c.relkind IN ('r','p') " +
			"AND n.nspname = 'public' ORDER BY c.relname",
		// Metabase's sync (its pg_description join aside: a view's
		// pg_description rows are not all known): the system schemas
		// excluded by one regular expression (was 0A000).
		`SELECT "n"."nspname" AS "schema", "c"."relname" AS "name", CASE "c"."relkind" WHEN 'p' THEN 'TABLE' WHEN 'r' THEN 'TABLE' ` +
			`WHEN 'v' THEN 'VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE NULL END AS "type", obj_description(c.oid, 'pg_class') ` +
			`FROM "pg_catalog"."pg_class" AS "c" INNER JOIN "pg_catalog"."pg_namespace" AS "n" ON "c"."relnamespace" = "n"."oid" ` +
			`WHERE ("c"."relnamespace" = "n"."oid") AND ("n"."nspname" !~ '^information_schema|catalog_history|pg_') ` +
			`AND ("c"."relkind" IN ('r', 'p', 'v', 'f', 'm')) AND ("n"."nspname" NOT IN ('information_schema')) ORDER BY "type" ASC, "schema" ASC, "name" ASC`,
		"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p') AND n.nspname NOT LIKE 'pg\\_%' " +
			"AND n.nspname NOT LIKE 'pg%' AND n.nspname <> 'information_schema' ORDER BY 1",
	}, []string{
		"SELECT c.relname, c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = 'public' ORDER BY 1",
		// Patterns whose match is not decided, or that leave a system
		// schema in.
		"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p') AND n.nspname !~ '^(pg_|information_schema)' ORDER BY 1",
		"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p') AND n.nspname !~ '^pg_' ORDER BY 1",
		"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p') AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema' ORDER BY 1",
	})
	// information_schema's constraint views, and the three-way foreign
	// key join (was 0A000: the flat planner joined two tables). 15 added
	// nulls_distinct; 18 lists NOT NULL constraints otherwise: refused.
	nullsDistinct := ", nulls_distinct"
	if v := serverVersionNum(t, r); v < 150000 {
		nullsDistinct = ""
	}
	same := []string{
		"SELECT constraint_name, constraint_type, is_deferrable, initially_deferred, enforced" + nullsDistinct + " FROM information_schema.table_constraints " +
			"WHERE table_name IN ('items', 'accounts') AND constraint_type <> 'CHECK' ORDER BY 1",
		"SELECT count(*) FROM information_schema.table_constraints WHERE table_name = 'items'",
		"SELECT table_name, column_name, ordinal_position, position_in_unique_constraint, constraint_name FROM information_schema.key_column_usage " +
			"WHERE table_schema = 'public' ORDER BY 1, 2, 3",
		"SELECT table_schema, table_name, column_name, constraint_schema, constraint_name FROM information_schema.constraint_column_usage " +
			"WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 2, 3, 5",
		"SELECT tc.table_schema, tc.constraint_name, tc.table_name, kcu.column_name, ccu.table_schema AS foreign_table_schema, " +
			"ccu.table_name AS foreign_table_name, ccu.column_name AS foreign_column_name FROM information_schema.table_constraints AS tc " +
			"JOIN information_schema.key_column_usage AS kcu ON tc.constraint_name = kcu.constraint_name AND tc.table_schema = kcu.table_schema " +
			"JOIN information_schema.constraint_column_usage AS ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema " +
			"WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_name = 'items' ORDER BY 2, 4",
		"SELECT kcu.column_name, ccu.table_name, ccu.column_name FROM information_schema.table_constraints tc " +
			"JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.constraint_schema = tc.constraint_schema " +
			"JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.constraint_schema = tc.constraint_schema " +
			"WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public' ORDER BY 1",
	}
	if serverVersionNum(t, r) >= 180000 {
		catalogCompare(t, r, nil, same)
		return
	}
	catalogCompare(t, r, same, []string{
		// The system catalogs' constraints (listed to a superuser).
		"SELECT count(*) FROM information_schema.table_constraints",
		"SELECT count(*) FROM information_schema.key_column_usage WHERE ordinal_position = 1",
		// A NOT NULL column's constraint is named by its attnum, which
		// sidecar does not know once a column was dropped.
		"SELECT constraint_name FROM information_schema.table_constraints WHERE table_name = 'items' ORDER BY 1",
	})
}

// serverVersionNum is the rig's PostgreSQL's server_version_num.
func serverVersionNum(t *testing.T, r *rig) int {
	t.Helper()
	out, err := psql(t, r.pgURL, "-At", "-c", "SHOW server_version_num")
	v, cerr := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || cerr != nil {
		t.Fatalf("server_version_num: %v %v\n%s", err, cerr, out)
	}
	return v
}
