package sqlfront_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
)

// TestSettingsOrderedByName (issue 23): pg_settings.name is text of the
// database's default collation; in a database whose default is
// en_US.UTF-8 an ORDER BY name over the settings a statement names is
// PostgreSQL's order (TimeZone after search_path there, before it in
// byte order) or refused 0A000, never byte order; the unrestricted
// listing stays refused (sidecar lists the settings it keeps only).
// Today the first two are refused (a catalog column's collation is not
// derived), COLLATE "C" answers: a guard against byte order, not yet
// the answer.
func TestSettingsOrderedByName(t *testing.T) {
	ctx := context.Background()
	if _, err := libccoll.Open("en_US.UTF-8"); err != nil {
		t.Skipf("%v: install Debian's locales package and generate en_US.UTF-8 (.ci/run does)", err)
	}
	admin, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := "settings_order_en_us"
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 LOCALE 'en_US.UTF-8' ENCODING 'UTF8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	url := pg.URL(name)
	execSQL(t, url, markerSetup)
	sc, sqlURL := serveFollowed(t, url, []string{"public.marker"}, "SELECT id FROM marker WHERE id = 1")
	defer sc.Close(ctx)
	const named = "WHERE name IN ('TimeZone', 'search_path', 'DateStyle', 'standard_conforming_strings', 'max_index_keys', 'IntervalStyle')"
	stmts := []string{
		"SELECT name, setting FROM pg_settings " + named + " ORDER BY name",
		"SELECT name FROM pg_settings " + named + " ORDER BY name DESC",
		"SELECT name FROM pg_settings " + named + " ORDER BY name COLLATE \"C\"",
	}
	for _, q := range stmts {
		_, gerr := sc.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if gerr != nil {
			if errors.As(gerr, &pe) && pe.Code == "0A000" {
				t.Logf("%s: refused: %s", q, pe.Message)
				continue
			}
			t.Errorf("%s: %v", q, gerr)
			continue
		}
		compareWithPostgres(t, url, sqlURL, []string{q}, nil, "pg_settings order")
	}
	for _, q := range []string{"SELECT name, setting FROM pg_settings ORDER BY name"} {
		_, err := sc.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" {
			t.Errorf("%s: want 0A000, got %v", q, err)
		}
	}
}
