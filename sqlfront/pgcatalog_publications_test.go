package sqlfront_test

import (
	"strings"
	"testing"
)

// TestCatalogPublications: psql's \d prints a followed table's
// "Publications:" footer as PostgreSQL does — the sidecar's own
// publication, FOR ALL TABLES, by name with a row filter and a column
// list and by schema (15 on) — and pg_publication, pg_publication_rel
// and pg_publication_namespace answer as PostgreSQL's (a publication
// listing a table not followed included), per major; pg_publication_tables
// and pg_get_publication_tables, which expand a publication into tables
// sidecar does not follow, are refused. Then a table added to a
// publication shows after the catalog poll. Before, the footer was never
// printed and the relations were not served.
func TestCatalogPublications(t *testing.T) {
	setup := []string{
		"CREATE SCHEMA s",
		"CREATE TABLE things (id int PRIMARY KEY, a int, b text, c int)",
		"CREATE TABLE s.other (id int PRIMARY KEY, v text)",
		"CREATE TABLE unfollowed (id int PRIMARY KEY)",
		"INSERT INTO things VALUES (1, 2, 'x', 3)",
		"CREATE PUBLICATION p_all FOR ALL TABLES",
		"CREATE PUBLICATION p_some FOR TABLE things, unfollowed WITH (publish = 'insert', publish_via_partition_root = true)",
	}
	version := serverVersionNum(t, &rig{pgURL: pg.NewDB(t)})
	if version >= 150000 {
		setup = append(setup, "CREATE PUBLICATION p_filter FOR TABLE things (id, c, a) WHERE (a > 10 AND b IS NOT NULL)",
			"CREATE PUBLICATION p_schema FOR TABLES IN SCHEMA s")
	}
	if version >= 180000 {
		setup = append(setup, "CREATE PUBLICATION p_gen FOR TABLE s.other WITH (publish_generated_columns = stored)")
	}
	r := newRig(t, []string{"public.things", "s.other"}, setup)
	describe := func() {
		t.Helper()
		for _, cmd := range []string{`\d things`, `\d s.other`, `\d+ things`, `\dRp`} {
			got, want := psqlBoth(t, r, cmd)
			if got != want {
				t.Errorf("%s:\n%s\nPostgreSQL:\n%s", cmd, got, want)
			}
			if cmd == `\d things` && !strings.Contains(want, "\n    \"p_some\"\n") {
				t.Errorf("PostgreSQL's %s prints no p_some in its footer:\n%s", cmd, want)
			}
			t.Logf("%s:\n%s", cmd, got)
		}
	}
	describe()
	// \dRp+ lists each publication's tables: p_some's include a table
	// sidecar does not follow.
	psqlSameOrRefused(t, r, `\dRp+`, `\dRp+ p_some`, `\dRp+ p_all`) // pgcatalog_usertypes_test.go
	same := []string{
		"SELECT oid, pubname, pubowner, puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, pubviaroot FROM pg_publication ORDER BY pubname",
		"SELECT * FROM pg_publication ORDER BY oid",
		"SELECT p.pubname, pr.prrelid, pr.oid FROM pg_publication_rel pr JOIN pg_publication p ON p.oid = pr.prpubid ORDER BY 1, 2",
		"SELECT pubname FROM pg_publication p WHERE EXISTS (SELECT 1 FROM pg_publication_rel pr WHERE pr.prpubid = p.oid AND pr.prrelid = 'things'::regclass) ORDER BY 1",
		"SELECT count(*) FROM pg_publication_rel",
		// An unfollowed table's regclass prints its name (its OID is in
		// the relation list; session 24 resolves it).
		"SELECT pr.prrelid::regclass FROM pg_publication_rel pr ORDER BY 1",
	}
	refused := []string{
		"SELECT * FROM pg_publication_tables ORDER BY 1, 2, 3",
		"SELECT count(*) FROM pg_publication_tables WHERE pubname = 'p_some'",
		"SELECT count(*) FROM pg_get_publication_tables('p_some')",
		// The tables' names: pg_class lists the followed tables only.
		"SELECT c.relname FROM pg_publication_rel pr JOIN pg_class c ON c.oid = pr.prrelid ORDER BY 1",
	}
	if version >= 150000 {
		same = append(same,
			"SELECT prpubid, prrelid, pg_get_expr(prqual, prrelid), pg_get_expr(prqual, prrelid, true), prattrs FROM pg_publication_rel ORDER BY oid",
			"SELECT pn.pnpubid, n.nspname FROM pg_publication_namespace pn JOIN pg_namespace n ON n.oid = pn.pnnspid ORDER BY 1",
			"SELECT * FROM pg_publication_namespace ORDER BY oid")
		refused = append(refused, "SELECT prqual FROM pg_publication_rel ORDER BY oid")
	}
	catalogCompare(t, r, same, refused)
	if version < 150000 {
		// 15's relation and columns: 42P01 and 42703 as on PostgreSQL.
		for _, q := range []string{"SELECT * FROM pg_publication_namespace", "SELECT prqual FROM pg_publication_rel", "SELECT pubgencols FROM pg_publication"} {
			want, _ := psql(t, r.pgURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
			got, _ := psql(t, r.sqlURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
			if psqlState(got) != psqlState(want) || psqlState(want) == "" {
				t.Errorf("%s: sidecar %q, PostgreSQL %q", q, got, want)
			}
		}
	}
	// A table added to a publication, a publication dropped: the poll
	// reads them.
	execSQL(t, r.pgURL, "ALTER PUBLICATION p_some ADD TABLE s.other", "DROP PUBLICATION p_all")
	pollFacts(t, r)
	describe()
	catalogCompare(t, r, same, nil)
}
