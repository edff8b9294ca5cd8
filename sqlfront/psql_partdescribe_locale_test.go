package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
	"github.com/sidecar-dev/sidecar/internal/testenv"
)

// TestPsqlDescribePartitionedEnUS: psql's \d of a partitioned table
// lists its partitions in psql's ORDER BY (DEFAULT last, then the
// regclass text under the database's collation). The rig's databases are
// C-collated; session 26's fix (the reader asks PostgreSQL for psql's
// order instead of sorting by OID under C) was checked on an en_US.UTF-8
// database only by hand. Here a database created with LOCALE
// 'en_US.UTF-8' holds partitions whose order differs between C and
// en_US (mixed case, a quoted name, digits, DEFAULT): \d and \d+ print
// what PostgreSQL prints.
func TestPsqlDescribePartitionedEnUS(t *testing.T) {
	ctx := context.Background()
	if _, err := libccoll.Open("en_US.UTF-8"); err != nil {
		testenv.Missing(t, err.Error(), "install Debian's locales package and generate en_US.UTF-8 (.ci/run does)")
	}
	admin, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const name = "psql_partdescribe_en_us"
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 LOCALE 'en_US.UTF-8' ENCODING 'UTF8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the daemon stopped: its slot too
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	url := pg.URL(name)
	execSQL(t, url, markerSetup,
		"CREATE TABLE meas (k text PRIMARY KEY, v int) PARTITION BY LIST (k)",
		"CREATE TABLE meas_2025 PARTITION OF meas FOR VALUES IN ('2025')",
		"CREATE TABLE meas_b PARTITION OF meas FOR VALUES IN ('b')",
		`CREATE TABLE "Meas_x" PARTITION OF meas FOR VALUES IN ('x')`,
		"CREATE TABLE meas_def PARTITION OF meas DEFAULT",
		"CREATE TABLE meas_9 PARTITION OF meas FOR VALUES IN ('9')",
		"CREATE TABLE meas_2024 PARTITION OF meas FOR VALUES IN ('2024')",
		"CREATE TABLE meas_A PARTITION OF meas FOR VALUES IN ('A')",
		"INSERT INTO meas VALUES ('2024', 1), ('b', 2), ('x', 3), ('zz', 4)")
	// The order differs under C: the premise of the test.
	var c, en string
	if err := admin.QueryRow(ctx, `SELECT string_agg(n, ',' ORDER BY n COLLATE "C"), string_agg(n, ',' ORDER BY n COLLATE "en_US")
		FROM unnest(ARRAY['meas_2025', 'meas_b', '"Meas_x"', 'meas_9', 'meas_2024', 'meas_a']) n`).Scan(&c, &en); err != nil {
		t.Fatal(err)
	}
	if c == en {
		t.Fatalf("the partitions' names order alike under C and en_US (%s): the test proves nothing", c)
	}
	sc, sqlURL := serveFollowed(t, url, []string{"public.marker", "public.meas"}, "SELECT v FROM meas WHERE k = '2024'") // casemap_test.go
	defer sc.Close(ctx)
	psqlCheck{sqlURL: sqlURL, pgURL: url}.same(t, `\d meas`, `\d+ meas`)
}
