package daemon

import (
	"strings"
	"testing"
)

// A schema change reaches the logical stream only with the table's next
// row change (pgoutput sends the new Relation then). On a quiet table
// the SQL port served the old columns after ALTER TABLE — a dropped
// column's values, no added column, the old name and type — until a row
// of that table changed (seen on main: 30 s and counting after each of
// the DDL statements below, with commits on other tables flowing). The
// catalog poll now compares the columns and resyncs the table
// (pollColumns): each statement's effect is on the SQL port with no row
// change of the table, and verify is equal at the end.
func TestQuietSchemaChangeSeenByPoll(t *testing.T) {
	s := startStar(t)
	execSQL(t, s.url, "CREATE TABLE qs (id int PRIMARY KEY, a int, b text, c numeric(10,2))",
		"INSERT INTO qs SELECT g, g * 2, 'b' || g, g + 0.25 FROM generate_series(1, 300) g")
	waitTableReady(t, s.r, "public.qs", s.logs)
	row := "SELECT row_to_json(q)::text FROM qs q WHERE id = 7"
	s.sameOnSQLPort(t, row)
	for _, ddl := range []string{
		"ALTER TABLE qs ADD COLUMN d int DEFAULT 41",
		"ALTER TABLE qs DROP COLUMN b",
		"ALTER TABLE qs RENAME COLUMN a TO aa",
		"ALTER TABLE qs ALTER COLUMN c TYPE numeric(12,3)",
		"ALTER TABLE qs ALTER COLUMN aa TYPE bigint",
	} {
		execSQL(t, s.url, ddl)
		// Commits on another table move the head past the DDL: the
		// mirror is at a version where PostgreSQL has the new columns.
		s.settle(t)
		s.sameOnSQLPort(t, row, "SELECT count(*)::text || ' ' || sum(id)::text FROM qs")
	}
	if !strings.Contains(s.logs.String(), "the catalog poll found other columns than the mirror's") {
		t.Errorf("no resync logged for the poll's finding")
	}
	s.finish(t, "qs")
}

// TestSchemaChangesAfterRowChangeLand: a row change carries a schema
// (the stream describes the table), then quiet schema changes follow
// that no row change describes (rename, retype, drop): each resync's
// copy lands and the table is served. Before, the stream's last
// description — older than every later copy — was taken for a newer
// schema than the copy's once it differed from both the copy's and the
// mirror's: "copied table changed again meanwhile; it needs another
// resync", copied again every ~2 s forever, the table never served at
// HEAD (found on the lead's scratch database: ADD COLUMN + UPDATE,
// RENAME COLUMN + ALTER TYPE, then DROP COLUMN).
func TestSchemaChangesAfterRowChangeLand(t *testing.T) {
	s := startStar(t)
	execSQL(t, s.url, "CREATE TABLE sc (id int PRIMARY KEY, a int, b text)",
		"INSERT INTO sc SELECT g, g * 2, 'b' || g FROM generate_series(1, 200) g")
	waitTableReady(t, s.r, "public.sc", s.logs)
	row := "SELECT row_to_json(q)::text FROM sc q WHERE id = 3"
	for _, step := range [][]string{
		{"ALTER TABLE sc ADD COLUMN extra int DEFAULT 7", "UPDATE sc SET extra = 9 WHERE id <= 3"},
		{"ALTER TABLE sc RENAME COLUMN extra TO extra2", "ALTER TABLE sc ALTER COLUMN extra2 TYPE bigint"},
		{"ALTER TABLE sc DROP COLUMN extra2"},
		{"ALTER TABLE sc DROP COLUMN b"},
	} {
		execSQL(t, s.url, step...)
		s.settle(t)
		s.sameOnSQLPort(t, row, "SELECT count(*)::text || ' ' || sum(id)::text FROM sc")
	}
	s.finish(t, "sc")
}
