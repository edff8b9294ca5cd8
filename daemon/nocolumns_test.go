package daemon

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
)

// TestZeroColumnTable: a table without any column (CREATE TABLE t (),
// rows inserted: PostgreSQL counts them) cannot be followed, since a row
// carries no value to key, store or tell apart. With tables ["*"] it is
// left out with a preflight warning in the log and the other tables are
// copied and followed (before, the copy failed on it and nothing was
// followed); named in tables, the start is refused at preflight, naming
// the table and the fix, before anything is created.
func TestZeroColumnTable(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE nothing ()", "ALTER TABLE nothing REPLICA IDENTITY FULL",
		"INSERT INTO nothing DEFAULT VALUES", "INSERT INTO nothing DEFAULT VALUES", "INSERT INTO nothing DEFAULT VALUES",
		"CREATE TABLE dropped_all (a int)", "ALTER TABLE dropped_all REPLICA IDENTITY FULL",
		"INSERT INTO dropped_all VALUES (1), (2)", "ALTER TABLE dropped_all DROP COLUMN a",
		"CREATE TABLE keep (id int PRIMARY KEY, v text)",
		"INSERT INTO keep SELECT g, 'v' || g FROM generate_series(1, 20) g")

	t.Run("star", func(t *testing.T) {
		cfg := testConfig(t, url, `'*'`)
		var logs syncBuilder
		r := start(t, cfg, &logs)
		st := r.waitDurable(t, marker(t, url, "UPDATE keep SET v = 'changed' WHERE id = 1"))
		states := map[string]string{}
		for _, ts := range st.Tables {
			states[ts.Name] = ts.State
		}
		if want := map[string]string{"public.keep": "ready"}; !maps.Equal(states, want) {
			t.Fatalf("status tables %v, want %v\n%s", states, want, logs.String())
		}
		for _, tbl := range []string{"public.nothing", "public.dropped_all"} {
			if !strings.Contains(logs.String(), tbl+" has no column") {
				t.Errorf("no log line says %s has no column:\n%s", tbl, logs.String())
			}
		}
		execSQL(t, url, "INSERT INTO nothing DEFAULT VALUES")
		r.waitDurable(t, marker(t, url, "UPDATE keep SET v = 'again' WHERE id = 2"))
		if err := r.stop(); err != nil {
			t.Fatal(err)
		}
		_, got := mirrortest.MirrorRows(t, cfg.DataDir, "public.keep")
		if want := mirrortest.PGRows(t, url, "keep"); !slices.Equal(got, want) || len(got) != 20 {
			t.Fatalf("keep: mirror %d rows, PostgreSQL %d; they differ", len(got), len(want))
		}
	})

	t.Run("named", func(t *testing.T) {
		cfg := testConfig(t, url, "public.keep", "public.nothing")
		err := Run(context.Background(), Options{Config: cfg})
		if err == nil || !strings.Contains(err.Error(), "preflight failed") || !strings.Contains(err.Error(), "public.nothing has no column") ||
			!strings.Contains(err.Error(), "ADD COLUMN") {
			t.Fatalf("want a preflight error naming the table without columns and the fix, got %v", err)
		}
	})
}
