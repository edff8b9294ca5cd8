package sqlfront_test

import (
	"slices"
	"testing"
)

// typeDetailSetup: types of every kind a user creates — domains with
// named and unnamed CHECK constraints, NOT NULL, a default and a
// collation, an enum, composite types, a range (and, from 14, its
// multirange), a shell type, an extension's base types (hstore when
// available) — with comments, privileges granted and revoked, user
// collations, and namesakes in another schema; the followed table uses
// none of them.
var typeDetailSetup = []string{
	"DROP ROLE IF EXISTS cat_typereader", "CREATE ROLE cat_typereader",
	"CREATE DOMAIN posint AS int CONSTRAINT posint_positive CHECK (VALUE > 0) CHECK (VALUE < 1000000)",
	"CREATE DOMAIN smallpos AS posint DEFAULT 1 NOT NULL",
	`CREATE DOMAIN label AS text COLLATE "C" CHECK (length(VALUE) < 20)`,
	`CREATE DOMAIN "Mixed Case" AS varchar(10)`,
	"COMMENT ON DOMAIN posint IS 'positive'", "REVOKE USAGE ON DOMAIN posint FROM PUBLIC",
	"CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')", "COMMENT ON TYPE mood IS 'feelings'",
	"CREATE TYPE pair AS (a int, b text)", "COMMENT ON TYPE pair IS 'two things'", "GRANT USAGE ON TYPE pair TO cat_typereader",
	"CREATE TYPE floatrange AS RANGE (subtype = float8, subtype_diff = float8mi)",
	"CREATE TYPE shell",
	"CREATE COLLATION mycoll (provider = libc, locale = 'C')", "COMMENT ON COLLATION mycoll IS 'mine'",
	"CREATE SCHEMA other", "CREATE TYPE other.pair AS (x int)",
	"CREATE DOMAIN other.code AS text COLLATE mycoll NOT NULL CHECK (VALUE <> '')",
	"CREATE COLLATION other.mycoll (provider = libc, locale = 'POSIX')",
	"CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a')",
	"CREATE TABLE unfollowed (id int)", "CREATE VIEW tv AS SELECT id FROM t",
}

// typeDetailQueries are answered as PostgreSQL answers them.
var typeDetailQueries = []string{
	"SELECT c.conname, c.contype, c.condeferrable, c.convalidated, c.conrelid, t.typname, pg_get_constraintdef(c.oid), pg_get_constraintdef(c.oid, true) " +
		"FROM pg_type t JOIN pg_constraint c ON c.contypid = t.oid WHERE t.typtype = 'd' ORDER BY 6, 1",
	"SELECT t.typname, obj_description(t.oid, 'pg_type'), array_to_string(t.typacl, ',') FROM pg_type t WHERE t.typtype IN ('d', 'e') ORDER BY 1, 2",
	"SELECT t.typname, t.typtype, t.typrelid <> 0, t.typisdefined, t.typlen, t.typcategory, format_type(t.oid, NULL), pg_type_is_visible(t.oid), " +
		"obj_description(t.oid, 'pg_type'), array_to_string(t.typacl, ',') " +
		"FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') " +
		"AND (t.typrelid = 0 OR (SELECT c.relkind = 'c' FROM pg_class c WHERE c.oid = t.typrelid)) " +
		"AND NOT EXISTS (SELECT 1 FROM pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid) ORDER BY 1, 7",
	"SELECT t.typname, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public' AND t.typtype IN ('r', 'm', 'p') ORDER BY 1",
	"SELECT c.collname, c.collprovider, c.collisdeterministic, c.collcollate, c.collctype, pg_collation_is_visible(c.oid), n.nspname " +
		"FROM pg_collation c JOIN pg_namespace n ON n.oid = c.collnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 7",
	"SELECT c.collname FROM pg_type t JOIN pg_collation c ON c.oid = t.typcollation WHERE t.typtype = 'd' ORDER BY 1",
	"SELECT getdatabaseencoding(), pg_char_to_encoding('UTF8'), pg_char_to_encoding('sql_ascii')",
	"SELECT relname, relkind FROM pg_class WHERE relname IN ('pair', 't') ORDER BY 1",
	"SET search_path = other, public; SELECT t.typname, format_type(t.oid, NULL), pg_type_is_visible(t.oid) FROM pg_type t " +
		"JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname IN ('public', 'other') AND t.typrelid = 0 " +
		"AND NOT EXISTS (SELECT 1 FROM pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid) ORDER BY 1, 2",
}

// TestCatalogTypesPsql: psql's \dT, \dT+, \dT pattern, \dD, \dD+ and \dO
// print PostgreSQL's output on every major (they were refused 0A000:
// pg_collation not served, the domains' constraints, composite, range,
// base and shell types, typacl and the types' comments not read; psql
// 15's \dO fails on 17+ as on PostgreSQL, colliculocale renamed); the
// catalog reads behind them answer as PostgreSQL. Then types, domains
// and collations created, altered, commented, granted and dropped while
// following: the catalog poll reads them again.
func TestCatalogTypesPsql(t *testing.T) {
	setup := slices.Clone(typeDetailSetup)
	if slices.Contains(availableExtensions(t), "hstore") { // pgcatalog_extensions_test.go
		setup = append(setup, "CREATE EXTENSION hstore")
	}
	r := newRig(t, []string{"public.t"}, setup)
	cmds := []string{`\dT`, `\dT+`, `\dT pos*`, `\dT other.*`, `\dT *.pair`, `\dT mood`, `\dT+ frange`, `\dT nosuch`,
		`\dD`, `\dD+`, `\dD other.*`, `\dD *.code`, `\dO`, `\dO+`, `\dO other.*`}
	// Patterns PostgreSQL's own types and collations match (their
	// comments, all of pg_collation are not read).
	refusable := []string{`\dT+ float*`, `\dO my*`, `\dT *.*`}
	psqlSameOrSameError(t, r, false, cmds...)
	psqlSameOrSameError(t, r, true, refusable...)
	catalogCompare(t, r, typeDetailQueries, []string{
		// PostgreSQL's own types (their comments) and collations are not
		// all read.
		`SELECT count(*) FROM pg_type t WHERE t.typname ~ '^(int.*)$'`,
		"SELECT obj_description(23, 'pg_type')",
		"SELECT count(*) FROM pg_collation",
		// The tables' and views' row types' arrays have typrelid 0 (and
		// pg_type does not list them).
		"SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public' AND t.typrelid = 0 ORDER BY 1",
		"SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public' AND t.typtype = 'c' ORDER BY 1",
	})
	execSQL(t, r.pgURL, "CREATE TYPE other.size AS ENUM ('s', 'm')", "DROP DOMAIN label", "ALTER DOMAIN posint ADD CONSTRAINT big CHECK (VALUE <> 7)",
		"ALTER DOMAIN posint DROP CONSTRAINT posint_positive", "COMMENT ON TYPE pair IS NULL", "GRANT USAGE ON DOMAIN posint TO cat_typereader",
		"CREATE TYPE trio AS (a int, b int, c int)", "DROP COLLATION other.mycoll", "CREATE COLLATION other.c2 (provider = libc, locale = 'C')",
		"ALTER TYPE floatrange RENAME TO frange")
	pollFacts(t, r) // pgcatalog_usertypes_test.go
	psqlSameOrSameError(t, r, false, cmds...)
	psqlSameOrSameError(t, r, true, refusable...)
	catalogCompare(t, r, typeDetailQueries, nil)
}

// psqlSameOrSameError checks that each psql command prints on the SQL
// port what it prints on PostgreSQL, or fails there with PostgreSQL's
// SQLSTATE where PostgreSQL fails (psql 15's \dO on 17+), or (refusable)
// is refused 0A000 (logged).
func psqlSameOrSameError(t *testing.T, r *rig, refusable bool, cmds ...string) {
	t.Helper()
	c := psqlRig(r).orSameError()
	if refusable {
		c = c.orRefused()
	}
	c.same(t, cmds...)
}
