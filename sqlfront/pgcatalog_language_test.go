package sqlfront_test

import "testing"

// TestCatalogLanguages (issue 23): psql's \df+ prints what PostgreSQL
// prints for a database without functions of its own (it was refused:
// its LEFT JOIN reads pg_language, whose plpgsql row has an OID initdb
// assigns), and pg_language's rows answer as PostgreSQL's, its ACL
// through array_to_string (aclitem[]: in the result refused 0A000).
func TestCatalogLanguages(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{"CREATE TABLE items (id int PRIMARY KEY)", "REVOKE USAGE ON LANGUAGE sql FROM PUBLIC"})
	t.Cleanup(func() { execSQL(t, r.pgURL, "GRANT USAGE ON LANGUAGE sql TO PUBLIC") })
	for _, cmd := range []string{`\df+`, `\df+ public.*`, `\df+ public.item*`} {
		psqlSame(t, r.sqlURL, r.pgURL, cmd, "-c", cmd) // PostgreSQL answers them: sidecar must, the same
	}
	for _, q := range []string{
		"SELECT oid, lanname, lanowner, lanispl, lanpltrusted, lanplcallfoid, laninline, lanvalidator FROM pg_language ORDER BY oid",
		"SELECT lanname, array_to_string(lanacl, ','), lanacl IS NULL FROM pg_language ORDER BY 1",
		"SELECT l.lanname, pg_get_userbyid(l.lanowner) FROM pg_language l WHERE l.lanplcallfoid <> 0 ORDER BY 1",
	} {
		psqlSame(t, r.sqlURL, r.pgURL, q, "-At", "-c", q) // pgcatalog_database_test.go
	}
	for _, q := range []string{"SELECT lanacl FROM pg_language", "SELECT * FROM pg_language"} {
		if out, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", q); err == nil || psqlState(out) != "0A000" {
			t.Errorf("%s: %v\n%s", q, err, out)
		}
	}
	// \dL reads pg_language.tableoid and the languages' comments
	// (listings_test.go checks it is PostgreSQL's output).
	got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", `\dL`)
	want, _ := psql(t, r.pgURL, "-v", "VERBOSITY=verbose", "-c", `\dL`)
	if got != want && (err == nil || psqlState(got) != "0A000") {
		t.Errorf(`\dL: %v\n%s\nPostgreSQL:\n%s`, err, got, want)
	}
}
