package daemon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// A followed table dropped or renamed away in PostgreSQL stayed a table
// of the SQL port at HEAD: `SELECT count(*) FROM gone1` answered its last
// rows where PostgreSQL says 42P01, and pg_class and
// information_schema listed it (seen by the lead after RENAME, SET SCHEMA
// and DROP: three stale names, status "dropped" for all three). Once the
// poll finds it gone, HEAD has it no more — 42P01 and no catalog row —
// while a version before the drop still reads it (AS OF).
func TestDroppedTableGoneAtHead(t *testing.T) {
	s := startStar(t)
	execSQL(t, s.url, "CREATE TABLE gone1 (id int PRIMARY KEY, v text)",
		"INSERT INTO gone1 SELECT g, 'v' || g FROM generate_series(1, 50) g",
		"CREATE TABLE gone2 (id int PRIMARY KEY)", "INSERT INTO gone2 VALUES (1), (2)")
	waitTableReady(t, s.r, "public.gone1", s.logs)
	waitTableReady(t, s.r, "public.gone2", s.logs)
	s.sameOnSQLPort(t, "SELECT count(*)::text FROM gone1", "SELECT count(*)::text FROM gone2")
	before := s.settle(t).DurableLSN

	execSQL(t, s.url, "DROP TABLE gone1", "ALTER TABLE gone2 RENAME TO gone2b")
	for _, name := range []string{"public.gone1", "public.gone2"} {
		daemontest.Eventually(t, name+" reported dropped", 0,
			func() bool { return tableState(s.r.status(t), name) == "dropped" },
			func() string { return fmt.Sprintf("%+v", s.r.status(t).Tables) })
	}
	// A followed commit after the drop: HEAD is a version after it, the
	// one before it an older version (with none, HEAD is that version).
	s.settle(t)
	ctx := t.Context()
	// The relation list (facts section 'w') is read by the catalog poll,
	// up to one poll after the dropped poll; a list still naming the
	// dropped table is read without it (sqlfront/gonetables.go), so the
	// name is not "a relation not followed" (0A000) meanwhile: 42P01 at
	// once, as PostgreSQL (CI run 5 of session 22 saw 0A000 on 17).
	for _, q := range []string{"SELECT count(*) FROM gone1", "SELECT * FROM gone2 ORDER BY id", "SELECT count(*) FROM public.gone1 AS OF 'HEAD'"} {
		if got := ask(ctx, s.sql, q); got.code != "42P01" {
			t.Errorf("%s on the SQL port: %+v, want 42P01 as PostgreSQL", q, got)
		}
	}
	// The catalog lists neither old name (PostgreSQL lists gone2b only;
	// the renamed table is followed again as gone2b by the new-table poll).
	list := "SELECT coalesce(string_agg(relname, ',' ORDER BY relname), '') FROM pg_class WHERE relname IN ('gone1', 'gone2', 'gone1_pkey')"
	if got := ask(ctx, s.sql, list); got.code != "" || len(got.rows) != 1 || got.rows[0] != "" {
		t.Errorf("pg_class on the SQL port lists %+v; PostgreSQL lists none", got)
	}
	cols := "SELECT count(*)::text FROM information_schema.columns WHERE table_name IN ('gone1', 'gone2')"
	if got := ask(ctx, s.sql, cols); got.code != "" || len(got.rows) != 1 || got.rows[0] != "0" {
		t.Errorf("information_schema.columns on the SQL port: %+v; PostgreSQL has none", got)
	}
	// History stays readable: the version before the drop.
	if got := ask(ctx, s.sql, "SELECT count(*) FROM gone1 AS OF '"+before+"'"); got.code != "" || len(got.rows) != 1 || strings.TrimSpace(got.rows[0]) != "50" {
		t.Errorf("gone1 AS OF %s (before the drop): %+v, want 50", before, got)
	}
	s.sameOnSQLPort(t, "SELECT count(*)::text FROM gone2b")
	if err := s.r.stop(); err != nil {
		t.Fatal(err)
	}
}
