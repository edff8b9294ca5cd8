package sqlfront_test

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestTablelessViewsMatchPostgres (issue 22: the regression corpus's
// gstest1, v_window and nums): views that read no table (VALUES,
// generate_series, a recursive view over itself) and views above them
// answer as PostgreSQL's, row for row; CREATE OR REPLACE VIEW is seen
// after the catalog poll while AS OF an earlier version keeps the
// earlier definition; DROP VIEW makes the name unknown; one calling a
// function sidecar does not know is refused by name.
func TestTablelessViewsMatchPostgres(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.emp"}, []string{
		"CREATE TABLE emp (id int PRIMARY KEY, name text)",
		"INSERT INTO emp VALUES (1, 'ann'), (2, 'bob'), (3, NULL)",
		"CREATE SCHEMA z",
		"CREATE VIEW vals (a, b, v) AS VALUES (1, 1, 10), (1, 2, 12), (2, 3, 15), (3, 4, 17), (NULL, 4, NULL)",
		"CREATE VIEW series AS SELECT i, sum(i) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s FROM generate_series(1, 10) i",
		"CREATE RECURSIVE VIEW nums (n) AS VALUES (1) UNION ALL SELECT n + 1 FROM nums WHERE n < 5",
		"CREATE VIEW over_vals AS SELECT a, sum(v) AS total FROM vals GROUP BY a",
		"CREATE VIEW emp_nums AS SELECT e.name, n.n FROM emp e JOIN nums n ON n.n = e.id",
		"CREATE VIEW z.zv AS SELECT 2 AS two",
		"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 7'",
		"CREATE VIEW fv AS SELECT f() AS seven",
	})
	pgc, scp := liveConns(t, pgURL)
	pgRows := func(q string) []string {
		t.Helper()
		res := pgc.ExecParams(t.Context(), q, nil, nil, nil, nil).Read()
		if res.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, res.Err)
		}
		return rowsText(res)
	}
	eventually := func(q string, check func(rows []string, err error) bool) {
		t.Helper()
		eventuallySQL(t, sqlURL, scp, "", q, check)
	}
	same := func(q string) {
		t.Helper()
		want := strings.Join(pgRows(q), "\n")
		eventually(q, func(rows []string, err error) bool { return err == nil && strings.Join(rows, "\n") == want })
	}
	refused := func(q, code, names string) {
		t.Helper()
		eventually(q, func(_ []string, err error) bool {
			pe, ok := err.(*pgconn.PgError)
			return ok && pe.Code == code && strings.Contains(pe.Message, names)
		})
	}
	for _, q := range []string{
		"SELECT * FROM vals ORDER BY a, b",
		"SELECT a, b, sum(v), count(*) FROM vals GROUP BY ROLLUP (a, b) ORDER BY 1, 2, 4",
		"SELECT * FROM series ORDER BY i",
		"SELECT * FROM nums ORDER BY n",
		"SELECT count(*), sum(n) FROM nums",
		"SELECT * FROM over_vals ORDER BY a",
		"SELECT * FROM emp_nums ORDER BY n",
		"SELECT e.name, v.v FROM emp e LEFT JOIN vals v ON v.a = e.id ORDER BY 1, 2",
		"SELECT relname, relkind FROM pg_class WHERE relname IN ('vals', 'series', 'nums', 'over_vals', 'emp_nums') ORDER BY 1",
		"SELECT pg_get_viewdef('vals'), pg_get_viewdef('nums', true)",
	} {
		same(q)
	}
	// No followed table in z: its views are not read (as a table sidecar
	// does not follow).
	refused("SELECT * FROM z.zv", "42P01", "z.zv")
	refused("SELECT * FROM fv", "0A000", "f()")

	// A version before the view changes (the marker moves HEAD past it).
	old := strings.Join(pgRows("SELECT * FROM series ORDER BY i"), "\n")
	before := versionBeforeMarker(t, sqlURL, scp, pgURL)
	execSQL(t, pgURL, "CREATE OR REPLACE VIEW series AS SELECT i, sum(i) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS s FROM generate_series(1, 10) i")
	same("SELECT * FROM series ORDER BY i")
	asOf := "SELECT * FROM series AS OF '" + before + "' ORDER BY i"
	eventually(asOf, func(rows []string, err error) bool {
		if err != nil {
			t.Fatalf("%s: %v", asOf, err)
		}
		return strings.Join(rows, "\n") == old
	})
	execSQL(t, pgURL, "DROP VIEW over_vals", "DROP VIEW series")
	refused("SELECT * FROM series", "42P01", "series")
	refused("SELECT * FROM over_vals", "42P01", "over_vals")
	same("SELECT * FROM vals ORDER BY a, b")
}

// versionBeforeMarker is the SQL port's current version, once HEAD has
// moved past it (the marker's change): AS OF it then reads a version
// before whatever the test changes next (the poll records new facts
// from the head it sees on).
func versionBeforeMarker(t *testing.T, sqlURL string, scp **pgconn.PgConn, pgURL string) string {
	t.Helper()
	var before string
	eventuallySQL(t, sqlURL, scp, "", "SELECT sidecar.version()", func(rows []string, err error) bool {
		if err == nil && len(rows) == 1 {
			before = strings.Trim(rows[0], `"`)
		}
		return before != ""
	})
	execSQL(t, pgURL, markerStmt)
	eventuallySQL(t, sqlURL, scp, "", "SELECT sidecar.version()", func(rows []string, err error) bool {
		return err == nil && len(rows) == 1 && strings.Trim(rows[0], `"`) != before
	})
	return before
}
