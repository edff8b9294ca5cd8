package sqlfront_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestCatalogFactsFollowDDL (issue 21 items 4 and 12): inheritance and
// collations change without a row change; the daemon's catalog poll
// refreshes what the copy read. A table made to inherit from a followed
// parent makes FROM parent refused (it is not followed), NO INHERIT makes
// it answer again as PostgreSQL does; a column's collation changed to an
// ICU one (where the server has ICU) makes ORDER BY on it refused.
func TestCatalogFactsFollowDDL(t *testing.T) {
	setup := append([]string{"CREATE TABLE cf (id int PRIMARY KEY, s text)", "INSERT INTO cf VALUES (1, 'b'), (2, 'A'), (3, 'a')"}, inheritSetup...)
	pgURL, sqlURL := liveDaemon(t, []string{"public.cf", "public.person", "public.emp", "public.student", "public.stud_emp"}, setup)
	ctx := context.Background()
	pgc, scp := liveConns(t, pgURL)
	// eventually runs q on the SQL port until check accepts its answer
	// (the rows' texts, or the error), for at most two minutes.
	eventually := func(what, q string, check func(rows []string, err error) bool) {
		t.Helper()
		eventuallySQL(t, sqlURL, scp, what+": ", q, check) // views_pg_test.go
	}
	pgOne := func(q string) string {
		t.Helper()
		res := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if res.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, res.Err)
		}
		return strings.Join(rowsText(res), ";")
	}
	refusedNaming := func(name string) func([]string, error) bool {
		return func(_ []string, err error) bool {
			var pe *pgconn.PgError
			return errors.As(err, &pe) && pe.Code == "0A000" && strings.Contains(pe.Message, name)
		}
	}
	const count = "SELECT count(*), sum(id) FROM person"
	want := pgOne(count)
	answers := func(want string) func([]string, error) bool {
		return func(rows []string, err error) bool { return err == nil && strings.Join(rows, ";") == want }
	}
	eventually("followed", count, answers(want))
	execSQL(t, pgURL, "CREATE TABLE newkid (toy text) INHERITS (person)", "INSERT INTO newkid VALUES (50, 'kid', 5, 'ball')")
	eventually("after CREATE TABLE … INHERITS", count, refusedNaming("public.newkid"))
	execSQL(t, pgURL, "ALTER TABLE newkid NO INHERIT person")
	eventually("after NO INHERIT", count, answers(pgOne(count)))

	if pgOne("SELECT EXISTS (SELECT FROM pg_collation WHERE collname = 'en-x-icu')") != `"t"` {
		t.Log("no ICU collation on this server: the collation change is not checked")
		return
	}
	const order = "SELECT s FROM cf ORDER BY s, id"
	eventually("C collation", order, answers(pgOne(order)))
	execSQL(t, pgURL, `ALTER TABLE cf ALTER COLUMN s TYPE text COLLATE "en-x-icu"`)
	eventually("after ALTER COLUMN … COLLATE", order, refusedNaming(`"en-x-icu"`))
}
