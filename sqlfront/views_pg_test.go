package sqlfront_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// viewSetup creates the tables and views TestViewsMatchPostgres
// follows: a view with a WHERE, one renaming its columns, a join, a
// view over a view, one over a table not followed (secret) and a
// materialized view.
var viewSetup = []string{
	"CREATE TABLE emp (id int PRIMARY KEY, name text, dept int, salary numeric(10,2))",
	"CREATE TABLE dept (id int PRIMARY KEY, dname varchar(20))",
	"CREATE TABLE secret (id int PRIMARY KEY)",
	"INSERT INTO emp VALUES (1, 'ann', 1, 150), (2, 'bob', 2, 90.5), (3, 'cy', 1, 250), (4, NULL, NULL, NULL), (5, 'dee', 3, 120)",
	"INSERT INTO dept VALUES (1, 'eng'), (2, 'ops'), (3, NULL)",
	"CREATE VIEW rich AS SELECT id, name, salary FROM emp WHERE salary > 100",
	"CREATE VIEW named (ident, who) AS SELECT id, name, dept FROM emp",
	"CREATE VIEW empdept AS SELECT e.name, d.dname, e.salary * 2 AS twice FROM emp e JOIN dept d ON d.id = e.dept WHERE e.id > 1",
	"CREATE VIEW richdept AS SELECT r.name, d.dname, count(*) AS n FROM rich r LEFT JOIN empdept d ON d.name = r.name GROUP BY r.name, d.dname",
	"CREATE VIEW withsecret AS SELECT e.id FROM emp e JOIN secret s ON s.id = e.id",
	"CREATE MATERIALIZED VIEW mv AS SELECT count(*) FROM emp",
}

// viewQueries are compared row for row with PostgreSQL.
var viewQueries = []string{
	"SELECT * FROM rich ORDER BY id",
	"SELECT ident, who, dept FROM named WHERE ident < 4 ORDER BY 1",
	"SELECT * FROM named n(a, b) ORDER BY a",
	"SELECT * FROM empdept ORDER BY 1",
	"SELECT * FROM richdept ORDER BY 1",
	"SELECT count(*), sum(salary) FROM rich",
	"SELECT r.name, d.dname FROM rich r JOIN empdept d ON d.name = r.name ORDER BY 1",
	"WITH emp AS (SELECT 1 AS id) SELECT * FROM rich ORDER BY id",
	"SELECT who FROM public.named WHERE ident IN (SELECT id FROM rich) ORDER BY 1",
	"SELECT oid, relname, relkind, relowner, reloptions FROM pg_class WHERE relname IN ('rich', 'named', 'withsecret') ORDER BY relname",
	"SELECT relname, relkind FROM pg_class WHERE relname IN ('rich', 'mv', 'empdept', 'dept') ORDER BY 1",
	"SELECT pg_get_viewdef('named')",
	"SELECT pg_get_viewdef('rich'), pg_get_viewdef('empdept', true), pg_get_viewdef('public.richdept'::regclass, true), pg_get_viewdef('emp')",
	"SELECT relname, pg_get_viewdef(oid), pg_get_viewdef(oid, false) FROM pg_class WHERE relname IN ('rich', 'named', 'emp', 'withsecret') ORDER BY 1",
}

// TestViewsMatchPostgres (issues 22 and 23: views): views above
// followed tables answer as PostgreSQL's, row for row; CREATE OR
// REPLACE VIEW is seen after the catalog poll while AS OF an earlier
// version keeps the earlier definition; DROP VIEW makes the name
// unknown; a view over a table not followed and a materialized view
// are refused by name.
func TestViewsMatchPostgres(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.emp", "public.dept"}, viewSetup)
	ctx := context.Background()
	pgc, scp := liveConns(t, pgURL)
	pgRows := func(q string) []string {
		t.Helper()
		res := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if res.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, res.Err)
		}
		return rowsText(res)
	}
	// eventually runs q on the SQL port until check accepts its answer,
	// for at most two minutes (the copy, then the catalog poll).
	eventually := func(q string, check func(rows []string, err error) bool) {
		t.Helper()
		eventuallySQL(t, sqlURL, scp, "", q, check)
	}
	same := func(q string) []string {
		t.Helper()
		want := pgRows(q)
		eventually(q, func(rows []string, err error) bool {
			return err == nil && strings.Join(rows, "\n") == strings.Join(want, "\n")
		})
		return want
	}
	refused := func(q, code, names string) {
		t.Helper()
		eventually(q, func(_ []string, err error) bool {
			pe, ok := err.(*pgconn.PgError)
			return ok && pe.Code == code && strings.Contains(pe.Message, names)
		})
	}
	for _, q := range viewQueries {
		same(q)
	}
	// psql's describing commands over views: identical to PostgreSQL's
	// or refused (an ERROR), never a different description.
	// The unfollowed table secret is listed as PostgreSQL lists it
	// (pgcatalog_relations.go).
	for _, cmd := range []string{`\d`, `\dv`, `\dt`, `\dm`, `\d rich`, `\d+ rich`, `\d named`, `\dv+`} {
		got, err := psql(t, sqlURL, "-c", cmd)
		want, _ := psql(t, pgURL, "-c", cmd)
		switch {
		case err != nil && strings.Contains(got, "ERROR:"):
			t.Logf("%s refused: %s", cmd, strings.TrimSpace(got))
		case got != want:
			t.Errorf("%s answered differently:\n%s\nPostgreSQL:\n%s", cmd, got, want)
		}
	}
	// Catalog queries a tool sends about a view's columns: identical or
	// refused (pg_attribute lists the views' columns: pgcatalog_viewcols.go).
	for _, q := range []string{
		"SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'rich' AND a.attnum > 0 ORDER BY a.attnum",
		"SELECT count(*) FROM pg_attribute WHERE attrelid = (SELECT oid FROM pg_class WHERE relname = 'rich')",
		"SELECT column_name FROM information_schema.columns WHERE table_name = 'rich' ORDER BY ordinal_position",
		"SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'secret' ORDER BY 1",
		"SELECT table_name, column_name, ordinal_position, data_type, is_nullable, udt_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'secret' ORDER BY 1, 3",
		"SELECT c.relname, a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND c.relname <> 'secret' ORDER BY 1, 2",
		"SELECT 'rich'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'rich')",
	} {
		want := strings.Join(pgRows(q), "\n")
		if *scp == nil {
			c, err := pgconn.Connect(ctx, sqlURL)
			if err != nil {
				t.Fatal(err)
			}
			*scp = c
		}
		res := (*scp).ExecParams(ctx, q, nil, nil, nil, nil).Read()
		switch got := strings.Join(rowsText(res), "\n"); {
		case res.Err != nil:
			t.Logf("%s: refused: %v", q, res.Err)
		case got != want:
			t.Errorf("%s answered differently:\n%s\nPostgreSQL:\n%s", q, got, want)
		}
	}
	// A view's whole-row value is of its composite type, whose OID is
	// not kept: refused (answered as an anonymous record, the column's
	// type differed from PostgreSQL's).
	refused("SELECT rich FROM rich", "0A000", "whole-row reference")
	refused("SELECT (SELECT r) FROM rich r", "0A000", "whole-row reference")
	refused("SELECT * FROM withsecret", "0A000", "public.secret")
	refused("SELECT * FROM mv", "0A000", "materialized view public.mv")

	// A version before the view changes: the marker moves HEAD past it
	// (the poll records new facts from the head it sees on).
	old := pgRows("SELECT * FROM rich ORDER BY id")
	before := versionBeforeMarker(t, sqlURL, scp, pgURL)
	execSQL(t, pgURL, "CREATE OR REPLACE VIEW rich AS SELECT id, name, salary FROM emp WHERE salary > 200 OR name = 'bob'")
	same("SELECT * FROM rich ORDER BY id")
	same("SELECT * FROM richdept ORDER BY 1")
	asOf := "SELECT * FROM rich AS OF '" + before + "' ORDER BY id"
	eventually(asOf, func(rows []string, err error) bool {
		if err != nil {
			t.Fatalf("%s: %v", asOf, err)
		}
		return strings.Join(rows, "\n") == strings.Join(old, "\n")
	})

	execSQL(t, pgURL, "DROP VIEW richdept", "DROP VIEW named")
	refused("SELECT * FROM named", "42P01", "named")
	same("SELECT * FROM empdept ORDER BY 1")
}

// liveConns connects to PostgreSQL at pgURL and returns that connection
// with the slot for the SQL port's (eventuallySQL connects it when nil);
// both are closed at the test's end.
func liveConns(t *testing.T, pgURL string) (*pgconn.PgConn, **pgconn.PgConn) {
	t.Helper()
	ctx := context.Background()
	pgc, err := pgconn.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	sc := new(*pgconn.PgConn)
	t.Cleanup(func() {
		pgc.Close(ctx)
		if *sc != nil {
			(*sc).Close(ctx)
		}
	})
	return pgc, sc
}

// eventuallySQL runs q (what: a label, "" or ending in ": ") on the SQL port at sqlURL (connecting *sc when
// nil) until check accepts its answer (the rows' texts, or the error),
// for at most two minutes: the copy, then the catalog poll.
func eventuallySQL(t *testing.T, sqlURL string, sc **pgconn.PgConn, what, q string, check func(rows []string, err error) bool) {
	t.Helper()
	ctx := context.Background()
	var rows []string
	var err error
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if *sc == nil {
			if *sc, err = pgconn.Connect(ctx, sqlURL); err != nil {
				continue
			}
		}
		res := (*sc).ExecParams(ctx, q, nil, nil, nil, nil).Read()
		rows, err = rowsText(res), res.Err
		if check(rows, err) {
			return
		}
	}
	t.Fatalf("%s%s: still %q, %v after 2 minutes", what, q, rows, err)
}
