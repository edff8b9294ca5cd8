package sqlfront_test

import (
	"slices"
	"strings"
	"testing"
)

// extensionQueries are answered as PostgreSQL answers them: every column
// of pg_extension, the tools' "is it installed" checks (Grafana's and
// Metabase's PostGIS/TimescaleDB probes, DBeaver's listing), comments
// through pg_description and obj_description, schemas through
// pg_namespace.
var extensionQueries = []string{
	"SELECT * FROM pg_extension ORDER BY extname",
	"SELECT oid, extname, extowner, extnamespace, extrelocatable, extversion, extconfig, extcondition FROM pg_catalog.pg_extension ORDER BY oid",
	"SELECT extversion FROM pg_extension WHERE extname = 'pg_trgm'",
	"SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'",
	"SELECT count(*) FROM pg_extension WHERE extname = 'postgis'",
	"SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'hstore')",
	"SELECT extname FROM pg_extension WHERE extname IN ('plpgsql', 'citext', 'postgis') ORDER BY 1",
	"SELECT e.extname, n.nspname, e.extrelocatable FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace ORDER BY 1",
	"SELECT e.extname, obj_description(e.oid, 'pg_extension') FROM pg_extension e ORDER BY 1",
	"SELECT e.extname, d.description FROM pg_extension e LEFT JOIN pg_description d ON d.objoid = e.oid AND d.classoid = 'pg_catalog.pg_extension'::regclass ORDER BY 1",
	"SELECT d.description FROM pg_description d WHERE d.classoid = 'pg_catalog.pg_extension'::regclass ORDER BY 1",
	"SELECT nspname FROM pg_namespace WHERE oid IN (SELECT extnamespace FROM pg_extension) ORDER BY 1",
	"SELECT extname, extversion FROM pg_extension WHERE extname ~ '^p' ORDER BY extversion DESC, extname",
}

// TestCatalogExtensions: pg_extension lists the database's extensions as
// PostgreSQL does (plpgsql, contrib extensions in public and in another
// schema, one with a comment), psql's \dx and \dx <pattern> print
// PostgreSQL's output, \dx+ too (the members' descriptions as read under
// search_path public; refused 0A000 under a path that could print them
// otherwise); then CREATE,
// ALTER (UPDATE, SET SCHEMA), COMMENT ON and DROP EXTENSION while
// following: the catalog poll reads them. Before, pg_extension was
// 42P01 ("relation does not exist": not served) and \dx failed.
func TestCatalogExtensions(t *testing.T) {
	avail := availableExtensions(t)
	setup := []string{"CREATE SCHEMA ext", "CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a')"}
	later := []string{"COMMENT ON EXTENSION plpgsql IS 'changed'"}
	has := func(name string) bool { return slices.Contains(avail, name) }
	if has("pg_trgm") {
		setup = append(setup, "CREATE EXTENSION pg_trgm")
		later = append(later, "DROP EXTENSION pg_trgm")
	}
	if has("hstore") {
		setup = append(setup, "CREATE EXTENSION hstore SCHEMA ext VERSION '1.7'", "COMMENT ON EXTENSION hstore IS 'key/value pairs'")
		later = append(later, "ALTER EXTENSION hstore UPDATE", "ALTER EXTENSION hstore SET SCHEMA public")
	}
	if has("citext") {
		later = append(later, "CREATE EXTENSION citext SCHEMA ext")
	}
	t.Logf("extensions available: pg_trgm %v, hstore %v, citext %v", has("pg_trgm"), has("hstore"), has("citext"))
	r := newRig(t, []string{"public.t"}, setup)
	check := func() {
		t.Helper()
		for _, cmd := range []string{`\dx`, `\dx pg_trgm`, `\dx h*`, `\dx nosuch`, `\dx+`, `\dx+ plpgsql`, `\dx+ h*`} {
			got, want := psqlBoth(t, r, cmd)
			if got != want {
				t.Errorf("%s:\n%s\nPostgreSQL:\n%s", cmd, got, want)
			}
		}
		catalogCompare(t, r, extensionQueries, nil)
		// The members' descriptions were read under search_path public:
		// a path naming the extensions' schema would print them
		// unqualified (and pg_catalog after public can hide them).
		for _, path := range []string{"ext, public", "public, pg_catalog"} {
			got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", "SET search_path = "+path, "-c", `\dx+ plpgsql`)
			if err == nil || psqlState(got) != "0A000" {
				t.Errorf("\\dx+ under search_path %s: want 0A000, got (%v)\n%s", path, err, got)
			}
		}
		got, err := psql(t, r.sqlURL, "-c", "SET search_path = nosuch, public", "-c", `\dx+`)
		want, _ := psql(t, r.pgURL, "-c", "SET search_path = nosuch, public", "-c", `\dx+`)
		if err != nil || got != want {
			t.Errorf("\\dx+ under search_path nosuch, public: (%v)\n%s\nPostgreSQL:\n%s", err, got, want)
		}
	}
	check()
	if got, _ := psqlBoth(t, r, `\dx`); !strings.Contains(got, "plpgsql") {
		t.Errorf(`\dx lists no plpgsql:\n%s`, got)
	}
	execSQL(t, r.pgURL, later...)
	pollFacts(t, r) // pgcatalog_usertypes_test.go
	check()
}

// availableExtensions are the extensions the test server can create
// (pg_available_extensions: contrib is not in every build).
func availableExtensions(t *testing.T) []string {
	t.Helper()
	out, err := psql(t, pg.NewDB(t), "-At", "-c", "SELECT name FROM pg_available_extensions WHERE name IN ('pg_trgm', 'hstore', 'citext') ORDER BY 1")
	if err != nil {
		t.Fatalf("pg_available_extensions: %v\n%s", err, out)
	}
	return strings.Fields(out)
}
