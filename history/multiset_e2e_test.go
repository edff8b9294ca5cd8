package history

import (
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestRevertKeylessEndToEnd follows a keyless REPLICA IDENTITY FULL table
// holding identical rows. A bad transaction deletes one of two identical
// rows and updates one of three others (each through its ctid: exactly
// one occurrence); a later write inserts a row. The diff of the bad
// transaction is the removed and added occurrences; the revert patch,
// applied to PostgreSQL, brings back exactly one of the deleted pair and
// turns the updated row back, also when a later write inserted another
// copy of the deleted row (revert is a multiset merge), and once the
// mirror has followed the patch through replication, its HEAD differs
// from the state before the bad transaction by the later inserts only.
func TestRevertKeylessEndToEnd(t *testing.T) {
	ctx := t.Context()
	url := pg.NewDB(t)
	conn := connect(t, url)
	exec := func(sqls ...string) { t.Helper(); mustExec(t, conn, sqls...) }
	exec(`CREATE TABLE ks (a int, b text, j json)`,
		`ALTER TABLE ks REPLICA IDENTITY FULL`,
		`INSERT INTO ks VALUES (1, 'dup', NULL), (1, 'dup', NULL), (2, 'it''s', '{"k": 1}'), (3, NULL, NULL), (3, NULL, NULL), (3, NULL, NULL)`)
	f := follow(t, url, conn, "keyless_revert", "public.ks")
	exec(`INSERT INTO ks VALUES (5, 'streamed', '[1]')`)
	before := f.sync()
	exec(`BEGIN`,
		`DELETE FROM ks WHERE ctid = (SELECT ctid FROM ks WHERE a = 1 LIMIT 1)`,
		`UPDATE ks SET b = 'changed' WHERE ctid = (SELECT ctid FROM ks WHERE a = 3 LIMIT 1)`,
		`COMMIT`)
	after := f.sync()
	// Later writes: a new row, and one more of the row the bad
	// transaction deleted one of (a merge by key would take it for the
	// revert's insert and insert nothing).
	exec(`INSERT INTO ks VALUES (4, 'later', NULL), (1, 'dup', NULL)`)
	f.sync()

	svc := New(f.db, f.m)
	ops := func(from, to string) []string {
		t.Helper()
		var out []string
		if _, err := svc.Diff(ctx, DiffRequest{From: from, To: to}, func(e *Event) error {
			if e.Type == EventRow {
				r := e.From
				if r == nil {
					r = e.To
				}
				out = append(out, e.Op+" "+strings.Join(fmtRow(r.Values), ","))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	if got, want := ops(before, after), []string{"added 3,changed,NULL", "removed 1,dup,NULL", "removed 3,NULL,NULL"}; !slices.Equal(got, want) {
		t.Fatalf("diff of the bad transaction: %q, want %q", got, want)
	}

	var patch strings.Builder
	w := NewSQLWriter(&patch)
	sum, err := svc.Revert(ctx, RevertRequest{From: before, To: after}, w.Write)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if sum.Conflicts != 0 || strings.Count(patch.String(), "WHERE ctid = (SELECT ctid FROM") != 1 || strings.Count(patch.String(), "INSERT INTO") != 2 {
		t.Fatalf("revert: %d conflicts; want one ctid DELETE and two INSERTs:\n%s", sum.Conflicts, patch.String())
	}
	if _, err := conn.PgConn().Exec(ctx, patch.String()).ReadAll(); err != nil {
		t.Fatalf("apply the revert patch: %v\n%s", err, patch.String())
	}
	rows := queryStrings(t, conn, `SELECT a || ',' || coalesce(b, 'NULL') || ',' || coalesce(j::text, 'NULL') FROM ks ORDER BY 1`)
	want := []string{"1,dup,NULL", "1,dup,NULL", "1,dup,NULL", `2,it's,{"k": 1}`, "3,NULL,NULL", "3,NULL,NULL", "3,NULL,NULL", "4,later,NULL", "5,streamed,[1]"}
	if !slices.Equal(rows, want) {
		t.Fatalf("after the revert PostgreSQL has %q, want %q\n%s", rows, want, patch.String())
	}
	f.sync()
	if got, want := ops(before, "HEAD"), []string{"added 1,dup,NULL", "added 4,later,NULL"}; !slices.Equal(got, want) {
		t.Fatalf("the mirror after following the patch differs from before the bad transaction by %q, want %q", got, want)
	}
}

// TestKeylessPatchMatchesByText: in a keyless table, rows whose values are
// "=" but print differently (1.5 and 1.50, 0 and -0, '1 day' and
// '24:00:00') are different rows; the patch that deletes one of them
// deletes that one, not the other.
func TestKeylessPatchMatchesByText(t *testing.T) {
	ctx := t.Context()
	url := pg.NewDB(t)
	conn := connect(t, url)
	exec := func(sqls ...string) { t.Helper(); mustExec(t, conn, sqls...) }
	exec(`CREATE TABLE kn (n numeric, f float8, i interval, t timestamptz)`,
		`ALTER TABLE kn REPLICA IDENTITY FULL`,
		`INSERT INTO kn VALUES (1.50, '-0', '24:00:00', '2026-01-01 00:00:00+00'), (1.5, 0, '1 day', '2026-01-01 00:00:00+00')`)
	f := follow(t, url, conn, "keyless_text", "public.kn")
	exec(`INSERT INTO kn VALUES (2, 1, '1 hour', NULL)`)
	before := f.sync()
	exec(`DELETE FROM kn WHERE n::text = '1.50'`)
	after := f.sync()
	// Put the row back in PostgreSQL, then apply the patch that deletes it.
	exec(`SET timezone = 'America/New_York'`, `SET intervalstyle = 'iso_8601'`,
		`INSERT INTO kn VALUES (1.50, '-0', '24:00:00', '2026-01-01 00:00:00+00')`)
	var patch strings.Builder
	w := NewSQLWriter(&patch)
	if _, err := New(f.db, f.m).Diff(ctx, DiffRequest{From: before, To: after}, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().Exec(ctx, patch.String()).ReadAll(); err != nil {
		t.Fatalf("apply: %v\n%s", err, patch.String())
	}
	exec(`RESET timezone`, `RESET intervalstyle`)
	rows := queryStrings(t, conn, `SELECT n::text || ' ' || f::text || ' ' || i::text FROM kn ORDER BY 1`)
	if want := []string{"1.5 0 1 day", "2 1 01:00:00"}; !slices.Equal(rows, want) {
		t.Fatalf("after the patch PostgreSQL has %q, want %q\n%s", rows, want, patch.String())
	}
}

// queryStrings returns the rows of a query of one text column.
func queryStrings(t *testing.T, conn *pgx.Conn, sql string) []string {
	t.Helper()
	rows, err := conn.Query(t.Context(), sql)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// TestKeylessResync: a schema change resyncs a keyless FULL table (the
// copy numbers identical rows again) while changes to its identical rows
// keep coming (held, then applied over the copy); afterwards the mirror's
// HEAD holds exactly PostgreSQL's multiset of rows.
func TestKeylessResync(t *testing.T) {
	ctx := t.Context()
	url := pg.NewDB(t)
	conn := connect(t, url)
	exec := func(sqls ...string) { t.Helper(); mustExec(t, conn, sqls...) }
	exec(`CREATE TABLE kr (a int, b text)`, `ALTER TABLE kr REPLICA IDENTITY FULL`,
		`INSERT INTO kr SELECT i % 5, CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || (i % 2) END FROM generate_series(1, 200) i`)
	f := follow(t, url, conn, "keyless_resync", "public.kr")
	exec(`ALTER TABLE kr ADD COLUMN c int DEFAULT 7`,
		`UPDATE kr SET c = 8 WHERE ctid = (SELECT ctid FROM kr WHERE a = 1 AND b = 'v1' LIMIT 1)`,
		`DELETE FROM kr WHERE ctid = (SELECT ctid FROM kr WHERE a = 2 AND b IS NULL LIMIT 1)`,
		`INSERT INTO kr VALUES (3, 'v1', 7), (3, 'v1', 7), (9, NULL, NULL)`)
	f.sync()
	exec(`UPDATE kr SET b = 'after' WHERE ctid = (SELECT ctid FROM kr WHERE a = 3 AND b = 'v1' LIMIT 1)`,
		`DELETE FROM kr WHERE ctid = (SELECT ctid FROM kr WHERE a = 4 LIMIT 1)`)
	f.sync()
	if f.resyncs.Load() == 0 {
		t.Fatal("ADD COLUMN … DEFAULT resynced nothing")
	}
	var got []string
	err := New(f.db, f.m).Scan(ctx, ReadRequest{Table: "public.kr"}, func(ReadHeader) error { return nil }, func(r *Row) error {
		got = append(got, strings.Join(fmtRow(r.Values), ","))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := queryStrings(t, conn, `SELECT a || ',' || coalesce(b, 'NULL') || ',' || coalesce(c::text, 'NULL') FROM kr`)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the mirror holds %d rows, PostgreSQL %d; mirror %q\nPostgreSQL %q", len(got), len(want), got, want)
	}
}
