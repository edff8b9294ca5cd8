package sqlfront_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestRouteOrderAndFunctions: a LIMIT whose rows depend on the order
// PostgreSQL's plan reads them in is refused on both paths (the flat
// planner leaves it to sql/exec, which refuses when the rows the cut
// could pick differ), and answered where an ORDER BY on the key, a
// grouping or a single row fixes them; a call of a function the database
// defines and the sidecar does not know is refused as 0A000 naming the
// function, whichever path's refusal would otherwise stand.
func TestRouteOrderAndFunctions(t *testing.T) {
	r := newRig(t, []string{"public.ra", "public.rk"}, []string{
		"CREATE TABLE ra (id int PRIMARY KEY, name text, b bool)",
		"INSERT INTO ra SELECT g, 'n' || g, g % 3 = 0 FROM generate_series(1, 50) g",
		"CREATE TABLE rk (name text, n int)",
		"ALTER TABLE rk REPLICA IDENTITY FULL",
		"INSERT INTO rk VALUES ('x', 1), ('y', 2), ('z', 2), ('z', 2)",
		"CREATE FUNCTION tattle(x int, y int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT x > y'",
	})
	ctx := context.Background()
	pgc := connectMode(t, r.pgURL, pgx.QueryExecModeSimpleProtocol)
	scc := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
	defer pgc.Close(ctx)
	defer scc.Close(ctx)
	answered := []string{
		"SELECT id, name FROM ra ORDER BY id LIMIT 3",
		"SELECT id FROM ra ORDER BY id DESC LIMIT 2 OFFSET 5",
		"SELECT count(*) FROM ra LIMIT 1",
		"SELECT b, count(*) FROM ra GROUP BY b ORDER BY b LIMIT 1",
		"SELECT n FROM rk WHERE n = 2 LIMIT 1",
		"SELECT name, n FROM rk ORDER BY n LIMIT 1",
		"SELECT name, n FROM rk ORDER BY n DESC, name LIMIT 2",
		"SELECT * FROM rk LIMIT 10",
	}
	for _, q := range answered {
		want, werr := resultOf(ctx, pgc, q)
		got, gerr := resultOf(ctx, scc, q)
		if werr != nil || gerr != nil || !slices.Equal(want, got) {
			t.Errorf("%s:\n PostgreSQL %q %v\n sidecar    %q %v", q, want, werr, got, gerr)
		}
	}
	// Catalog relations are the sidecar's own rows: a LIMIT over them is
	// answered (as the flat planner answers it), on either path.
	for _, q := range []string{
		"SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' LIMIT 1",
	} {
		if _, err := resultOf(ctx, scc, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	refused := map[string]string{
		"SELECT name FROM rk LIMIT 1":                                                    "LIMIT",
		"SELECT name, n FROM rk ORDER BY n DESC LIMIT 1":                                 "LIMIT",
		"SELECT * FROM ra LIMIT 2":                                                       "LIMIT",
		"SELECT id FROM ra OFFSET 48":                                                    "LIMIT",
		"SELECT r.name FROM ra, LATERAL (SELECT name FROM rk LIMIT 1) r WHERE ra.id = 1": "LIMIT",
		"SELECT tattle(id, 3) FROM ra WHERE id < 5":                                      "tattle",
		"SELECT * FROM (SELECT id FROM ra) s WHERE tattle(id, 8)":                        "tattle",
	}
	for q, names := range refused {
		if _, err := pgc.Exec(ctx, q); err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, err)
		}
		_, err := resultOf(ctx, scc, q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, names) {
			t.Errorf("%s: want a 0A000 naming %s, got %v", q, names, err)
		}
	}
}
