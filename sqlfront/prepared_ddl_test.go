package sqlfront_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPreparedAcrossSchemaChange: a statement prepared before ALTER TABLE
// … ADD COLUMN on a table it reads, executed after the sidecar serves the
// new column. As PostgreSQL's plan cache: one whose result keeps its
// columns is planned again and answers; one whose result changes (SELECT
// *) fails 0A000 "cached plan must not change result type", the message
// drivers re-prepare on — for SQL PREPARE/EXECUTE and for named
// statements of the extended protocol. Before session 27 SQL EXECUTE
// failed 40001 "run it again" for both, every time, where PostgreSQL
// answers the first.
func TestPreparedAcrossSchemaChange(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.pt"}, []string{ // schemachange_test.go
		"CREATE TABLE pt (k int PRIMARY KEY, v text)",
		"INSERT INTO pt SELECT g, 'v' || g FROM generate_series(1, 50) g",
	})
	ctx := context.Background()
	var probe *pgconn.PgConn
	eventuallySQL(t, sqlURL, &probe, "the copy served: ", "SELECT count(*) FROM pt", func(rows []string, err error) bool { // views_pg_test.go
		return err == nil && slices.Equal(rows, []string{`"50"`})
	})
	defer probe.Close(ctx)
	conns := map[string]*pgconn.PgConn{}
	for name, url := range map[string]string{"postgresql": pgURL, "sidecar": sqlURL} {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		conns[name] = c
	}
	type outcome struct {
		rows []string
		code string
		msg  string
	}
	simple := func(c *pgconn.PgConn, q string) outcome {
		res, err := c.Exec(ctx, q).ReadAll()
		if err != nil {
			var pe *pgconn.PgError
			if asPgErr(err, &pe) {
				return outcome{code: pe.Code, msg: pe.Message}
			}
			return outcome{msg: err.Error()}
		}
		return outcome{rows: rowsText(res[len(res)-1])}
	}
	extended := func(c *pgconn.PgConn, name string) outcome {
		res := c.ExecPrepared(ctx, name, nil, nil, nil).Read()
		if res.Err != nil {
			var pe *pgconn.PgError
			if asPgErr(res.Err, &pe) {
				return outcome{code: pe.Code, msg: pe.Message}
			}
			return outcome{msg: res.Err.Error()}
		}
		return outcome{rows: rowsText(res)}
	}
	same := func(what string, got, want outcome) {
		t.Helper()
		if !slices.Equal(got.rows, want.rows) || got.code != want.code || got.msg != want.msg {
			t.Errorf("%s: sidecar %+v, PostgreSQL %+v", what, got, want)
		}
	}
	for name, c := range conns {
		for _, q := range []string{
			"PREPARE keep AS SELECT k, v FROM pt ORDER BY k LIMIT 3",
			"PREPARE star AS SELECT * FROM pt ORDER BY k LIMIT 3",
		} {
			if o := simple(c, q); o.code != "" || o.msg != "" {
				t.Fatalf("%s: %s: %+v", name, q, o)
			}
		}
		for stmt, q := range map[string]string{"xkeep": "SELECT k, v FROM pt ORDER BY k LIMIT 3", "xstar": "SELECT * FROM pt ORDER BY k LIMIT 3"} {
			if _, err := c.Prepare(ctx, stmt, q, nil); err != nil {
				t.Fatalf("%s: prepare %s: %v", name, stmt, err)
			}
		}
	}
	same("EXECUTE keep before", simple(conns["sidecar"], "EXECUTE keep"), simple(conns["postgresql"], "EXECUTE keep"))
	same("EXECUTE star before", simple(conns["sidecar"], "EXECUTE star"), simple(conns["postgresql"], "EXECUTE star"))
	same("xkeep before", extended(conns["sidecar"], "xkeep"), extended(conns["postgresql"], "xkeep"))
	execSQL(t, pgURL, "ALTER TABLE pt ADD COLUMN e int DEFAULT 7")
	eventuallySQL(t, sqlURL, &probe, "the new column served: ", "SELECT e FROM pt WHERE k = 1", func(rows []string, err error) bool {
		return err == nil && len(rows) == 1
	})
	for _, q := range []string{"EXECUTE keep", "EXECUTE star", "EXECUTE keep"} {
		same(q+" after ADD COLUMN", simple(conns["sidecar"], q), simple(conns["postgresql"], q))
	}
	for _, name := range []string{"xkeep", "xstar", "xkeep"} {
		same(name+" after ADD COLUMN", extended(conns["sidecar"], name), extended(conns["postgresql"], name))
	}
}
