package sqlfront_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPgSleep (issue 23): pg_sleep, pg_sleep_for and pg_sleep_until
// answer as PostgreSQL (a void column, its empty value; psql prints the
// same), and a sleep ends with 57014 on statement_timeout and on a
// cancel request, well before its time, on both executors (a catalog
// relation's scan is the flat evaluator's; a VALUES list sql/exec's).
func TestPgSleep(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{"CREATE TABLE items (id int PRIMARY KEY)", "INSERT INTO items VALUES (1), (2)"})
	for _, q := range []string{
		"SELECT pg_sleep(0.05)", "SELECT pg_sleep(0), pg_sleep(-1), pg_sleep('NaN'), pg_sleep(NULL)",
		"SELECT pg_sleep_for('50 milliseconds'), pg_sleep_for(NULL), pg_sleep_for('-1 day')",
		"SELECT pg_sleep_until(now() + interval '50 milliseconds') IS NULL, pg_sleep_until('-infinity')",
		"SELECT id, pg_sleep(0.01) FROM items ORDER BY id",
		"SELECT x, pg_sleep(0.01) FROM (VALUES (1), (2)) v(x)",
		"SELECT pg_sleep(1 / 0)",
	} {
		psqlSame(t, r.sqlURL, r.pgURL, q, "-c", q) // pgcatalog_database_test.go
	}
	conn, err := pgx.Connect(t.Context(), r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// statement_timeout: PostgreSQL's 57014, after about the timeout.
	if _, err := conn.Exec(t.Context(), "SET statement_timeout = '200ms'"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT pg_sleep(30)", "SELECT pg_sleep('Infinity')", "SELECT pg_sleep_for('1 hour')",
		"SELECT pg_sleep_until('infinity')", "SELECT x, pg_sleep(30) FROM (VALUES (1)) v(x)", "SELECT id, pg_sleep(30) FROM items"} {
		start := time.Now()
		_, err := conn.Exec(t.Context(), q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to statement timeout" {
			t.Errorf("%s under statement_timeout 200ms: %v", q, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s ended after %s (statement_timeout 200ms)", q, d)
		}
	}
	if _, err := conn.Exec(t.Context(), "SET statement_timeout = 0"); err != nil {
		t.Fatal(err)
	}
	// A cancel request (pgx sends one when the context ends): "due to
	// user request", and the connection goes on.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	start := time.Now()
	_, err = conn.Exec(ctx, "SELECT pg_sleep(60)")
	cancel()
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("pg_sleep(60) canceled after %s", d)
	}
	if err == nil {
		t.Fatal("pg_sleep(60) canceled: no error")
	}
	if conn.IsClosed() {
		// pgx closes a connection whose context ended mid-query; a new
		// one must work.
		if conn, err = pgx.Connect(t.Context(), r.sqlURL); err != nil {
			t.Fatal(err)
		}
	}
	var v string
	if err := conn.QueryRow(t.Context(), "SELECT pg_sleep(0)::text || 'ok'").Scan(&v); err != nil || v != "ok" {
		t.Errorf("after the cancel: %q %v", v, err)
	}
}

// TestPsqlListings (issue 23): psql's \dm lists the materialized views
// (it was refused: "relkinds other than tables"), \dy the event
// triggers and \do the operators of the database's own schemas (none:
// pg_event_trigger and pg_operator were refused), \dL the languages
// with their comments (pg_language.tableoid was refused), as
// PostgreSQL does; with an operator and an event trigger of the
// database's own, \do and \dy are refused (TestPsqlListingsOwnObjects),
// and \do of PostgreSQL's own operators always is.
func TestPsqlListings(t *testing.T) {
	r := newRig(t, []string{"public.items"}, []string{"CREATE TABLE items (id int PRIMARY KEY, v text)",
		"CREATE MATERIALIZED VIEW items_mv AS SELECT id FROM items", "CREATE VIEW items_v AS SELECT v FROM items",
		"COMMENT ON LANGUAGE sql IS 'sql, commented'"})
	t.Cleanup(func() { execSQL(t, r.pgURL, "COMMENT ON LANGUAGE sql IS 'SQL-language functions'") })
	for _, cmd := range []string{`\dm`, `\dm items*`, `\dv`, `\dt`, `\d`, `\dy`, `\do`, `\do public.*`, `\dL`, `\dLS`} {
		psqlSame(t, r.sqlURL, r.pgURL, cmd, "-c", cmd)
	}
	for _, q := range []string{
		"SELECT l.tableoid, l.lanname, d.description FROM pg_language l LEFT JOIN pg_description d ON d.classoid = l.tableoid AND d.objoid = l.oid ORDER BY 2",
		"SELECT c.tableoid, c.relname FROM pg_class c WHERE c.relname = 'items'",
	} {
		psqlSame(t, r.sqlURL, r.pgURL, q, "-At", "-c", q)
	}
	// \dL+ prints the handlers as regprocedure (not served: it was
	// XX000 once pg_language.tableoid answered).
	psqlRefused(t, r, `\do +`, `\do pg_catalog.*`, "SELECT count(*) FROM pg_operator", "SELECT * FROM pg_language", `\dL+`,
		"SELECT lanplcallfoid::regprocedure FROM pg_language")
}

// TestPsqlListingsOwnObjects (issue 23): with an operator and an event
// trigger of the database's own, \do and \dy are refused 0A000 (their
// definitions are not read).
func TestPsqlListingsOwnObjects(t *testing.T) {
	own := newRig(t, []string{"public.items"}, []string{"CREATE TABLE items (id int PRIMARY KEY)",
		"CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq)",
		"CREATE FUNCTION noop_evt() RETURNS event_trigger LANGUAGE plpgsql AS 'BEGIN END'",
		"CREATE EVENT TRIGGER noop ON ddl_command_end EXECUTE FUNCTION noop_evt()"})
	t.Cleanup(func() { execSQL(t, own.pgURL, "DROP EVENT TRIGGER noop") })
	psqlRefused(t, own, `\do`, `\dy`)
}

// psqlRefused checks that each command is refused 0A000 on the SQL port.
func psqlRefused(t *testing.T, r *rig, cmds ...string) {
	t.Helper()
	for _, cmd := range cmds {
		if out, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", cmd); err == nil || psqlState(out) != "0A000" {
			t.Errorf("%s: want 0A000, got (%v)\n%s", cmd, err, out)
		}
	}
}
