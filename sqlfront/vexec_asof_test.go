package sqlfront_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestVectorizedAsOf: an explicit `AS OF` in a statement that runs on
// sql/exec (a subquery in FROM, a join of three tables, WITH …) reads
// that version: its answers equal PostgreSQL's over a copy of the table
// taken in the same transaction as that version's changes, also with
// the same table read at HEAD and at the old version in one statement.
func TestVectorizedAsOf(t *testing.T) {
	r := newRig(t, []string{"public.acc", "public.cat"}, []string{
		"CREATE TABLE acc (id int PRIMARY KEY, owner text, balance numeric(10,2), cat int)",
		"INSERT INTO acc SELECT g, 'o' || g, g * 10.5, g % 3 FROM generate_series(1, 30) g",
		"CREATE TABLE cat (id int PRIMARY KEY, label text)",
		"INSERT INTO cat VALUES (0, 'zero'), (1, 'one'), (2, 'two')",
	}, []string{
		"UPDATE acc SET balance = balance + 1000 WHERE id % 4 = 0",
		"DELETE FROM acc WHERE id > 25",
		"UPDATE cat SET label = 'ONE' WHERE id = 1",
		"CREATE TABLE acc_v1 AS SELECT * FROM acc", "CREATE TABLE cat_v1 AS SELECT * FROM cat",
	}, []string{
		"UPDATE acc SET owner = upper(owner), cat = 2 WHERE id < 10",
		"INSERT INTO acc VALUES (100, 'new', 1, 1)",
		"DELETE FROM cat WHERE id = 0",
	})
	v1 := "'" + r.lsns[0] + "'"
	pairs := [][2]string{ // sidecar's statement, PostgreSQL's
		{"SELECT s.id, s.owner, s.balance FROM (SELECT * FROM acc AS OF " + v1 + ") s ORDER BY s.id",
			"SELECT s.id, s.owner, s.balance FROM (SELECT * FROM acc_v1) s ORDER BY s.id"},
		{"SELECT c.label, count(*), sum(a.balance) FROM acc AS OF " + v1 + " a JOIN cat AS OF " + v1 + " c ON c.id = a.cat GROUP BY c.label ORDER BY 1",
			"SELECT c.label, count(*), sum(a.balance) FROM acc_v1 a JOIN cat_v1 c ON c.id = a.cat GROUP BY c.label ORDER BY 1"},
		// The same table at HEAD and at the old version in one statement.
		{"SELECT n.id, o.owner, n.owner, o.cat, n.cat FROM acc n JOIN (SELECT * FROM acc AS OF " + v1 + ") o ON o.id = n.id WHERE o.owner <> n.owner OR o.cat <> n.cat ORDER BY 1",
			"SELECT n.id, o.owner, n.owner, o.cat, n.cat FROM acc n JOIN (SELECT * FROM acc_v1) o ON o.id = n.id WHERE o.owner <> n.owner OR o.cat <> n.cat ORDER BY 1"},
		{"WITH old AS (SELECT id FROM acc AS OF " + v1 + ") SELECT count(*) FROM acc WHERE id NOT IN (SELECT id FROM old)",
			"WITH old AS (SELECT id FROM acc_v1) SELECT count(*) FROM acc WHERE id NOT IN (SELECT id FROM old)"},
		{"SELECT id FROM acc AS OF " + v1 + " EXCEPT SELECT id FROM acc ORDER BY 1",
			"SELECT id FROM acc_v1 EXCEPT SELECT id FROM acc ORDER BY 1"},
	}
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheDescribe} {
		pgc := connectMode(t, r.pgURL, mode)
		scc := connectMode(t, r.sqlURL, mode)
		for _, p := range pairs {
			want, werr := rowsOf(ctx, pgc, p[1])
			got, gerr := rowsOf(ctx, scc, p[0])
			if werr != nil || gerr != nil || !slices.Equal(want, got) {
				t.Errorf("mode %v: %s:\n PostgreSQL %q %v\n sidecar    %q %v", mode, p[0], want, werr, got, gerr)
			}
		}
		// A ref that names no version is the flat path's error, not an
		// answer at another version.
		if _, err := rowsOf(ctx, scc, "SELECT * FROM (SELECT * FROM acc AS OF 'nosuchref') s"); err == nil || !strings.Contains(err.Error(), "SQLSTATE") {
			t.Errorf("mode %v: AS OF a missing ref: %v", mode, err)
		}
		pgc.Close(ctx)
		scc.Close(ctx)
	}
}
