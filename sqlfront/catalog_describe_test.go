package sqlfront_test

import (
	"strings"
	"testing"
)

// TestCatalogPsqlDescribeVerbose: psql's \d+ prints what PostgreSQL
// prints — storage, compression, statistics targets and comments of the
// columns, the table's and its TOAST table's options, a replica identity
// other than the default, a column collation other than its type's, a
// table's row security policies (read since session 20: \d of such a
// table was refused) — and \d of a table with extended statistics
// (whose statistics objects sidecar does not read) is refused, as is
// \df where the source has functions of its own:
// before, \d+ was refused outright, \d printed no collation for a
// COLLATE "C" column and no policies footer for a table with row
// security.
func TestCatalogPsqlDescribeVerbose(t *testing.T) {
	r := newRig(t, []string{"public.things", "public.guarded", "public.stated"}, []string{
		`CREATE TABLE things (id int PRIMARY KEY, code text COLLATE "C" NOT NULL, label varchar(30) DEFAULT 'x', body text, n numeric, at timestamptz)
			WITH (fillfactor = 80, toast.autovacuum_enabled = false)`,
		"ALTER TABLE things ALTER COLUMN body SET STORAGE external, ALTER COLUMN label SET STATISTICS 500, ALTER COLUMN body SET COMPRESSION pglz",
		"ALTER TABLE things REPLICA IDENTITY FULL",
		"COMMENT ON COLUMN things.code IS 'the code'", "COMMENT ON TABLE things IS 'things'",
		"CREATE TABLE guarded (id int PRIMARY KEY, owner text)", "ALTER TABLE guarded ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY mine ON guarded USING (owner = current_user)",
		"CREATE TABLE stated (id int PRIMARY KEY, a int, b int)", "CREATE STATISTICS stated_ab ON a, b FROM stated",
		"INSERT INTO things VALUES (1, 'a', 'b', 'c', 1, now())",
		"CREATE FUNCTION things_count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM things'",
	})
	// \df lists the source's own functions since session 23 (pg_proc
	// facts, section 'y'); it was refused here before.
	for _, cmd := range []string{`\d+ things`, `\d things`, `\d+ marker`, `\d guarded`, `\d+ guarded`, `\df`} {
		if got, want := psqlBoth(t, r, cmd); got != want {
			t.Errorf("%s:\n%s\nPostgreSQL:\n%s", cmd, got, want)
		}
	}
	// The statistics objects are not read: refused with 0A000 naming
	// them (never printed without them).
	for _, cmd := range []string{`\d stated`, `\d+ stated`} {
		out, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", cmd)
		if err == nil || psqlState(out) != "0A000" || !strings.Contains(out, "not read") {
			t.Errorf("%s: want 0A000, got %v\n%s", cmd, err, out)
		}
	}
}
