package sqlfront_test

import (
	"strconv"
	"strings"
	"testing"
)

// databaseSetup creates databases with what psql's \l prints (an owner
// other than the superuser, a connection limit, a template, privileges
// granted and revoked — an empty datacl —, a comment, and from 15 an ICU
// locale, from 16 ICU rules, from 17 the builtin provider); they are the
// cluster's, so they are dropped first (a rerun on the same cluster)
// and after the test.
func databaseSetup(major int) []string {
	s := []string{dropTemplate, "DROP DATABASE IF EXISTS cat_db_a", "DROP DATABASE IF EXISTS cat_db_icu", "DROP DATABASE IF EXISTS cat_db_b",
		"DROP ROLE IF EXISTS cat_dbowner", "CREATE ROLE cat_dbowner",
		"CREATE DATABASE cat_db_a OWNER cat_dbowner CONNECTION LIMIT 7 IS_TEMPLATE true",
		"GRANT CONNECT, TEMP ON DATABASE cat_db_a TO cat_dbowner WITH GRANT OPTION", "REVOKE ALL ON DATABASE cat_db_a FROM PUBLIC",
		"COMMENT ON DATABASE cat_db_a IS 'the a database'",
	}
	switch {
	case major >= 16:
		s = append(s, "CREATE DATABASE cat_db_icu LOCALE_PROVIDER icu ICU_LOCALE 'und' ICU_RULES '&a < g' TEMPLATE template0")
	case major >= 15:
		s = append(s, "CREATE DATABASE cat_db_icu LOCALE_PROVIDER icu ICU_LOCALE 'und' TEMPLATE template0")
	}
	if major >= 17 {
		s = append(s, "CREATE DATABASE cat_db_b LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8' TEMPLATE template0 ALLOW_CONNECTIONS false")
	}
	return s
}

// dropTemplate lets cat_db_a, a template, be dropped.
const dropTemplate = "DO $$BEGIN IF EXISTS (SELECT FROM pg_database WHERE datname = 'cat_db_a') THEN ALTER DATABASE cat_db_a IS_TEMPLATE false; END IF; END$$"

// listDatabases is the query psql of major client sends for \l to a
// server of major server (describe.c's listAllDbs): the client sends it,
// so every psql's text must run on the engine, not only Debian's 15.
func listDatabases(client, server int) string {
	q := `SELECT
  d.datname as "Name",
  pg_catalog.pg_get_userbyid(d.datdba) as "Owner",
  pg_catalog.pg_encoding_to_char(d.encoding) as "Encoding",
`
	switch {
	case client >= 17 && server >= 170000:
		q += `  CASE d.datlocprovider WHEN 'b' THEN 'builtin' WHEN 'c' THEN 'libc' WHEN 'i' THEN 'icu' END AS "Locale Provider",` + "\n"
	case server >= 150000:
		q += `  CASE d.datlocprovider WHEN 'c' THEN 'libc' WHEN 'i' THEN 'icu' END AS "Locale Provider",` + "\n"
	default:
		q += `  'libc' AS "Locale Provider",` + "\n"
	}
	q += `  d.datcollate as "Collate",
  d.datctype as "Ctype",
`
	switch {
	case client >= 17 && server >= 170000:
		q += `  d.datlocale as "Locale",` + "\n"
	case server >= 150000:
		q += `  d.daticulocale as "ICU Locale",` + "\n"
	default:
		q += `  NULL as "ICU Locale",` + "\n"
	}
	if server >= 160000 {
		q += `  d.daticurules as "ICU Rules",` + "\n"
	} else {
		q += `  NULL as "ICU Rules",` + "\n"
	}
	if client >= 17 {
		q += `  CASE WHEN pg_catalog.array_length(d.datacl, 1) = 0 THEN '(none)' ELSE pg_catalog.array_to_string(d.datacl, E'\n') END AS "Access privileges"`
	} else {
		q += `  pg_catalog.array_to_string(d.datacl, E'\n') AS "Access privileges"`
	}
	return q + "\nFROM pg_catalog.pg_database d\nORDER BY 1;"
}

// TestCatalogDatabases (issue 23): psql's \l and psql -l print what
// PostgreSQL prints (they were refused: the cluster's databases were not
// read), on the followed server's major — psql 15's \l fails 42703 on 17
// and 18 (daticulocale was renamed datlocale) on both —; psql 16's, 17's
// and 18's \l queries answer as PostgreSQL; pg_database's rows, columns
// and pg_encoding_to_char answer as PostgreSQL's; datacl other than
// through the array functions, datfrozenxid and \l+ (pg_database_size)
// are refused 0A000.
func TestCatalogDatabases(t *testing.T) {
	major := pg.ServerVersion() / 10000
	r := newRig(t, []string{"public.items"}, append(databaseSetup(major), "CREATE TABLE items (id int PRIMARY KEY)"))
	t.Cleanup(func() {
		execSQL(t, r.pgURL, dropTemplate, "DROP DATABASE IF EXISTS cat_db_a", "DROP DATABASE IF EXISTS cat_db_icu", "DROP DATABASE IF EXISTS cat_db_b",
			"DROP ROLE IF EXISTS cat_dbowner")
	})
	// sidecar under the followed database's name (pg_database's row of
	// the followed database carries the session's name).
	sqlURL := "postgres://app@" + r.addr + "/" + r.pgURL[strings.LastIndex(r.pgURL, "/")+1:]
	both := func(what string, args ...string) { t.Helper(); psqlSame(t, sqlURL, r.pgURL, what, args...) }
	for _, cmd := range []string{`\l`, `\l cat_db*`, `\l template?`} {
		both(cmd, "-c", cmd)
	}
	both("psql -l", "-l")
	for _, client := range []int{14, 16, 17, 18} {
		both("psql "+strconv.Itoa(client)+"'s \\l", "-c", listDatabases(client, major*10000))
	}
	for _, q := range []string{
		"SELECT oid, datname, datdba, encoding, datistemplate, datallowconn, datconnlimit, dattablespace FROM pg_database ORDER BY datname",
		"SELECT datname, datcollate, datctype, pg_typeof(datcollate) FROM pg_database ORDER BY 1",
		"SELECT count(*) FROM pg_database",
		"SELECT oid FROM pg_database WHERE datname = current_database()",
		"SELECT d.datname, r.rolname FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba WHERE d.datname LIKE 'cat%' ORDER BY 1",
		"SELECT datname, array_to_string(datacl, ','), array_length(datacl, 1), cardinality(datacl), datacl IS NULL FROM pg_database ORDER BY 1",
		"SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database ORDER BY 1",
		"SELECT i, pg_encoding_to_char(i) FROM generate_series(-2, 45) i",
		"SELECT pg_encoding_to_char(NULL), pg_typeof(pg_encoding_to_char(6))",
		"SELECT datname, datlocprovider, daticulocale, datcollversion FROM pg_database ORDER BY 1",
		"SELECT datname, daticurules FROM pg_database ORDER BY 1",
		"SELECT datname, datlocale, dathasloginevt FROM pg_database ORDER BY 1",
		"SELECT datlastsysoid FROM pg_database ORDER BY datname",
	} {
		both(q, "-At", "-c", q)
	}
	// Under another name (the rig's "app"), the followed database's row
	// is named as the session's database, as current_database() says.
	for _, q := range []string{"SELECT oid FROM pg_database WHERE datname = current_database()",
		"SELECT count(*) FROM pg_database WHERE datname = current_database()"} {
		got, err := psql(t, r.sqlURL, "-At", "-c", q)
		want, werr := psql(t, r.pgURL, "-At", "-c", q)
		if err != nil || werr != nil || got != want {
			t.Errorf("%s as app: %s (%v), PostgreSQL %s (%v)", q, got, err, want, werr)
		}
	}
	// The engine's plans are cached across sessions: one of another
	// database or user does not reuse one naming the first's (sidecar
	// answered the first session's current_database() and current_user).
	for _, u := range []string{sqlURL, r.sqlURL, "postgres://bob@" + r.addr + "/app"} {
		user := u[len("postgres://"):strings.Index(u, "@")]
		db := strings.TrimSuffix(u[strings.LastIndex(u, "/")+1:], "?sslmode=disable")
		for _, c := range [][2]string{
			{"SELECT current_database() = datname, current_user FROM pg_database WHERE oid = (SELECT oid FROM pg_database WHERE datname = current_database())", "t|" + user + "\n"},
			{"SELECT current_database(), current_user FROM pg_namespace WHERE nspname = 'public'", db + "|" + user + "\n"},
		} {
			if got, err := psql(t, u, "-At", "-c", c[0]); err != nil || got != c[1] {
				t.Errorf("%s as %s: %q (%v), want %q", c[0], u, got, err, c[1])
			}
		}
	}
	// current_setting reads the session's own settings (a plan cached by
	// another session read that session's).
	for _, name := range []string{"first", "second"} {
		const q = "SELECT current_setting('application_name') FROM pg_namespace WHERE nspname = 'public'"
		if got, err := psql(t, r.sqlURL, "-At", "-c", "SET application_name = '"+name+"'", "-c", q); err != nil || got != "SET\n"+name+"\n" {
			t.Errorf("%s after SET application_name = '%s': %q (%v)", q, name, got, err)
		}
	}
	// A session named as another database of the cluster is refused.
	other := "postgres://app@" + r.addr + "/cat_db_a"
	if out, err := psql(t, other, "-v", "VERBOSITY=verbose", "-c", "SELECT datname FROM pg_database"); err == nil || psqlState(out) != "0A000" {
		t.Errorf("pg_database as cat_db_a: %v\n%s", err, out)
	}
	// Refused: datacl as aclitem[] (in the result, cast, compared),
	// the unknown xids, the sizes.
	for _, q := range []string{"SELECT datacl FROM pg_database", "SELECT datacl::text FROM pg_database", "SELECT * FROM pg_database",
		"SELECT datfrozenxid FROM pg_database", "SELECT unnest(datacl) FROM pg_database"} {
		if out, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", q); err == nil || psqlState(out) != "0A000" {
			t.Errorf("%s: %v\n%s", q, err, out)
		}
	}
	if out, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", `\l+`); err == nil || psqlState(out) != "0A000" && psqlState(out) != "42703" {
		t.Errorf(`\l+: %v\n%s`, err, out)
	}
}

// psqlSame runs psql with args against sidecar (sqlURL) and PostgreSQL
// (pgURL): the outputs must be the same, or both fail with the same
// SQLSTATE (logged).
func psqlSame(t *testing.T, sqlURL, pgURL, what string, args ...string) {
	t.Helper()
	got, err := psql(t, sqlURL, append([]string{"-v", "VERBOSITY=verbose"}, args...)...)
	want, werr := psql(t, pgURL, append([]string{"-v", "VERBOSITY=verbose"}, args...)...)
	switch {
	case werr != nil && err != nil && psqlState(got) == psqlState(want):
		t.Logf("%s fails on PostgreSQL and sidecar: %s", what, psqlState(want))
	case err != nil || werr != nil || got != want:
		t.Errorf("%s:\n%s(%v)\nPostgreSQL:\n%s(%v)", what, got, err, want, werr)
	}
}

// TestCatalogDatabasesFollowDDL: the daemon's catalog poll reads the
// databases and languages again, so a database created and a language
// granted while following are listed (within a poll).
func TestCatalogDatabasesFollowDDL(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.df"}, []string{"DROP DATABASE IF EXISTS cat_db_late", "CREATE TABLE df (id int PRIMARY KEY)"})
	t.Cleanup(func() {
		execSQL(t, pgURL, "DROP DATABASE IF EXISTS cat_db_late", "GRANT USAGE ON LANGUAGE sql TO PUBLIC")
	})
	_, scp := liveConns(t, pgURL)
	const q = "SELECT d.datname, d.datconnlimit, array_to_string(l.lanacl, ',') FROM pg_database d, pg_language l WHERE d.datname LIKE 'cat_db_late%' AND l.lanname = 'sql'"
	eventuallySQL(t, sqlURL, scp, "before CREATE DATABASE: ", q, func(rows []string, err error) bool { return err == nil && len(rows) == 0 })
	execSQL(t, pgURL, "CREATE DATABASE cat_db_late CONNECTION LIMIT 4", "REVOKE USAGE ON LANGUAGE sql FROM PUBLIC")
	eventuallySQL(t, sqlURL, scp, "after CREATE DATABASE: ", q, func(rows []string, err error) bool {
		return err == nil && strings.Join(rows, ";") == `"cat_db_late"|"4"|"postgres=U/postgres"`
	})
}
