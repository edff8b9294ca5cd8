package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
)

// TestCollateExplicitOnEngine: an explicit COLLATE in a statement the
// flat planner leaves to sql/exec (a derived table, a window, a CTE) was
// refused there ("COLLATE other than pg_catalog.default"); it is
// answered where every ordering of the statement uses byte order ("C",
// "POSIX", "ucs_basic") or one proven libc locale (the database
// default's, by its collation name), in a database whose default is
// en_US.UTF-8, and refused (0A000) otherwise — never ordered otherwise
// than PostgreSQL (issue 21, session 17).
func TestCollateExplicitOnEngine(t *testing.T) {
	ctx := context.Background()
	if _, err := libccoll.Open("en_US.UTF-8"); err != nil {
		t.Skipf("%v: install Debian's locales package and generate en_US.UTF-8 (.ci/run does)", err)
	}
	admin, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := "collate_explicit_" + strings.ToLower(t.Name())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 LOCALE 'en_US.UTF-8' ENCODING 'UTF8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var vals []string
	for k, w := range libcWords {
		vals = append(vals, fmt.Sprintf("(%d, %s, %s)", k, quote(w), quote(w)))
	}
	vals = append(vals, fmt.Sprintf("(%d, NULL, NULL)", len(libcWords)))
	url := pg.URL(name)
	execSQL(t, url, markerSetup,
		`CREATE TABLE cw (id int PRIMARY KEY, s text, v varchar(40))`,
		"INSERT INTO cw VALUES "+strings.Join(vals, ", "))
	sc, sqlURL := serveFollowed(t, url, []string{"public.marker", "public.cw"}, "SELECT id FROM cw WHERE id = 1")
	defer sc.Close(ctx)
	compareWithPostgres(t, url, sqlURL, []string{
		`SELECT s FROM (SELECT s, id FROM cw) w ORDER BY s COLLATE "C", id`,
		`SELECT s FROM (SELECT s, id FROM cw) w ORDER BY s COLLATE "POSIX" DESC, id`,
		`SELECT id FROM (SELECT * FROM cw) w WHERE s COLLATE "C" < 'b' ORDER BY id`,
		`SELECT id FROM (SELECT * FROM cw) w WHERE 'B' COLLATE "C" <= v ORDER BY id`,
		`SELECT min(s COLLATE "C"), max(v COLLATE "ucs_basic") FROM (SELECT s, v FROM cw) w`,
		`SELECT id, rank() OVER (ORDER BY s COLLATE "C") FROM cw ORDER BY id`,
		`SELECT s FROM (SELECT s, id FROM cw) w ORDER BY s COLLATE "en_US.utf8", id`,
		`SELECT id FROM (SELECT * FROM cw) w WHERE s COLLATE "en_US.utf8" > 'b' ORDER BY id`,
		`SELECT string_agg(s COLLATE "C", ',' ORDER BY s COLLATE "C") FROM (SELECT s FROM cw) w`,
		// the column is named after COLLATE's argument (randwide seed 8101)
		`SELECT s COLLATE "C", v::text COLLATE "C", 'x' COLLATE "C", count(*) FROM (SELECT s, v FROM cw) w GROUP BY 1, 2, 3 ORDER BY 1, 2`,
	}, nil, "explicit COLLATE")
	for _, q := range []string{
		// byte order beside the default's locale in one statement
		`SELECT s FROM (SELECT * FROM cw) w WHERE s < 'm' ORDER BY s COLLATE "C", id`,
		// collations sidecar does not know the order of
		`SELECT s FROM (SELECT s, id FROM cw) w ORDER BY s COLLATE "en-US-x-icu", id`,
		`SELECT s FROM (SELECT s, id FROM cw) w ORDER BY s COLLATE "en_US", id`,
		// a CTE's column: its collation is not traced
		`WITH w AS (SELECT s COLLATE "C" AS k FROM cw) SELECT k FROM w ORDER BY k`,
	} {
		_, err := sc.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" {
			t.Errorf("%s: want 0A000, got %v", q, err)
		}
	}
}
