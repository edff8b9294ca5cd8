package daemon

import (
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
)

// TestHugeIdentityFullRow: a REPLICA IDENTITY FULL table's key is its
// whole row, and the in-memory HEAD's index takes keys of at most 1 MiB
// (radixindex.MaxKeyLen). A row of 1.2 MB (PostgreSQL's rowtypes.sql
// inserts one) panicked the whole process, in the HEAD build at the
// copy ("radixindex: a key of 1200012 bytes exceeds MaxKeyLen") and at
// apply. Now the HEAD declines it (reads go to the trees) and the
// daemon follows on: the row is copied, a second one streamed, and the
// mirror equals PostgreSQL.
func TestHugeIdentityFullRow(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE wide (a int, t text)", "ALTER TABLE wide REPLICA IDENTITY FULL",
		"INSERT INTO wide VALUES (1, repeat('x', 1200000)), (2, 'small')",
		"CREATE TABLE keep (id int PRIMARY KEY, v text)",
		"INSERT INTO keep SELECT g, 'v' || g FROM generate_series(1, 20) g")
	cfg := testConfig(t, url, "public.wide", "public.keep")
	var logs syncBuilder
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE keep SET v = 'changed' WHERE id = 1"))
	execSQL(t, url, "INSERT INTO wide VALUES (3, repeat('y', 1100000))", "INSERT INTO wide VALUES (4, 'after')")
	r.waitDurable(t, marker(t, url, "UPDATE keep SET v = 'again' WHERE id = 2"))
	if err := r.stop(); err != nil {
		t.Fatalf("stop: %v\n%s", err, logs.String())
	}
	for _, tbl := range []string{"wide", "keep"} {
		_, got := mirrortest.MirrorRows(t, cfg.DataDir, "public."+tbl)
		want := mirrortest.PGRows(t, url, tbl)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: mirror %d rows, PostgreSQL %d; they differ", tbl, len(got), len(want))
		}
	}
}
