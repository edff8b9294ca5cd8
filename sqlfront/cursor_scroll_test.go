package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// cursorScript runs each statement of script in order on one connection
// (simple protocol) and returns one line per result: the statement, its
// command tag and its rows, or its SQLSTATE.
func cursorScript(t *testing.T, url string, script []string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out []string
	for _, q := range script {
		res, err := conn.PgConn().Exec(ctx, q).ReadAll()
		if err != nil {
			out = append(out, q+" → "+pgCode(err))
			continue
		}
		for _, rs := range res {
			line := q + " → " + rs.CommandTag.String()
			for _, row := range rs.Rows {
				var vals []string
				for _, v := range row {
					vals = append(vals, string(v))
				}
				line += " [" + strings.Join(vals, "|") + "]"
			}
			out = append(out, line)
		}
	}
	return out
}

// scrollRig is a table whose heap order is its key order (rows inserted
// in id order, never updated), so a cursor over a plain scan reads the
// same order on both sides.
func scrollRig(t *testing.T) *rig {
	return newRig(t, []string{"public.scr", "public.scr_empty"}, []string{
		"CREATE TABLE scr (id int PRIMARY KEY, v text)",
		"INSERT INTO scr SELECT g, 'v' || g FROM generate_series(1, 12) g",
		"CREATE TABLE scr_empty (id int PRIMARY KEY)",
	})
}

// compareScripts runs script on PostgreSQL and sidecar: every line must be
// PostgreSQL's, except that the statements of refused may be refused
// with 0A000 instead (each is the last of its transaction, followed by
// ROLLBACK, so the lines after it agree again).
func compareScripts(t *testing.T, r *rig, script []string, refused ...string) {
	t.Helper()
	want, got := cursorScript(t, r.pgURL, script), cursorScript(t, r.sqlURL, script)
	if len(want) != len(got) {
		t.Fatalf("sidecar:\n%s\nPostgreSQL:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	isRefused := map[string]bool{}
	for _, q := range refused {
		isRefused[q] = true
	}
	for i := range want {
		q := got[i][:strings.Index(got[i], " → ")]
		if isRefused[q] && got[i] == q+" → 0A000" {
			continue
		}
		if got[i] != want[i] {
			t.Errorf("sidecar    %s\nPostgreSQL %s", got[i], want[i])
		}
	}
}

// TestCursorScroll: SCROLL cursors move in every direction as
// PostgreSQL's do (FETCH PRIOR, FIRST, LAST, ABSOLUTE, RELATIVE,
// BACKWARD, MOVE, counts past either end, re-fetching the current row),
// WITH HOLD ones after COMMIT too. SCROLL was refused with 0A000 and every
// backward FETCH failed (issue 21).
func TestCursorScroll(t *testing.T) {
	r := scrollRig(t)
	compareScripts(t, r, []string{
		"BEGIN",
		"DECLARE c SCROLL CURSOR FOR SELECT id, v FROM scr WHERE id <= 10 ORDER BY id",
		"FETCH 3 FROM c", "FETCH PRIOR FROM c", "FETCH BACKWARD 5 FROM c", "FETCH PRIOR FROM c",
		"FETCH FIRST FROM c", "FETCH LAST FROM c", "FETCH NEXT FROM c", "FETCH PRIOR FROM c",
		"FETCH ABSOLUTE 4 FROM c", "FETCH ABSOLUTE -2 FROM c", "FETCH RELATIVE -1 FROM c",
		"FETCH RELATIVE 0 FROM c", "FETCH 0 FROM c", "FETCH FORWARD -2 FROM c", "FETCH BACKWARD -3 FROM c",
		"MOVE BACKWARD ALL IN c", "FETCH NEXT FROM c", "MOVE LAST IN c", "MOVE 0 IN c", "FETCH ALL FROM c",
		"MOVE 0 IN c", "FETCH 0 FROM c", "FETCH BACKWARD ALL FROM c", "FETCH ABSOLUTE 0 FROM c", "FETCH ABSOLUTE 20 FROM c",
		"FETCH PRIOR FROM c", "MOVE ABSOLUTE 3 IN c", "FETCH RELATIVE 2 FROM c", "FETCH ABSOLUTE -20 FROM c",
		"FETCH NEXT FROM c", "MOVE FORWARD ALL IN c", "MOVE BACKWARD 2 IN c", "FETCH 1 FROM c",
		"FETCH ABSOLUTE 1 FROM c", "FETCH ABSOLUTE 1 FROM c", "FETCH ABSOLUTE 9 FROM c", "FETCH ABSOLUTE 8 FROM c",
		"FETCH ABSOLUTE 2 FROM c", "MOVE RELATIVE -5 IN c", "MOVE RELATIVE 50 IN c", "MOVE RELATIVE -1 IN c",
		"FETCH RELATIVE -50 FROM c", "MOVE BACKWARD ALL IN c", "MOVE FORWARD 20 IN c", "MOVE BACKWARD 20 IN c",
		"FETCH BACKWARD 0 FROM c", "FETCH FORWARD 0 FROM c",
		"DECLARE e SCROLL CURSOR FOR SELECT id FROM scr_empty",
		"FETCH LAST FROM e", "FETCH PRIOR FROM e", "FETCH ABSOLUTE 1 FROM e", "MOVE 0 IN e", "FETCH 0 FROM e",
		"FETCH BACKWARD ALL FROM e", "MOVE BACKWARD ALL IN e", "FETCH ALL FROM e",
		"DECLARE h SCROLL CURSOR WITH HOLD FOR SELECT id, upper(v) FROM scr ORDER BY id DESC",
		"FETCH 2 FROM h",
		"COMMIT",
		"FETCH PRIOR FROM h", "FETCH LAST FROM h", "FETCH RELATIVE -3 FROM h", "FETCH ALL FROM h", "FETCH BACKWARD 2 FROM h",
		"CLOSE h",
		"BEGIN",
		"DECLARE b SCROLL BINARY CURSOR FOR SELECT id FROM scr WHERE id > 9 ORDER BY id",
		"FETCH LAST FROM b", "FETCH PRIOR FROM b",
		"ROLLBACK",
	})
}

// TestCursorNoScrollBackward: a cursor declared without SCROLL moves
// backward exactly when PostgreSQL's plan can (ExecSupportsBackwardScan):
// over a plain scan of a table it answers; over grouping,
// aggregates, DISTINCT, window functions or no FROM, and with NO SCROLL,
// a backward move fails with 55000 while forward ones (ABSOLUTE ahead of
// the position included) answer; where the plan is not known sidecar
// refuses the backward move with 0A000. PostgreSQL 14 rewinds any cursor
// (FETCH FIRST, ABSOLUTE behind the position, MOVE BACKWARD ALL), 15 and
// later only a scrollable one. Every backward FETCH failed with
// 55000 and ABSOLUTE/RELATIVE were refused before (issue 21).
func TestCursorNoScrollBackward(t *testing.T) {
	r := scrollRig(t)
	compareScripts(t, r, []string{
		"BEGIN",
		"DECLARE s CURSOR FOR SELECT id, v, id * 2 FROM scr",
		"FETCH 3 FROM s", "FETCH PRIOR FROM s", "FETCH BACKWARD 5 FROM s", "FETCH ABSOLUTE 5 FROM s",
		"FETCH LAST FROM s", "FETCH FIRST FROM s", "MOVE BACKWARD ALL IN s", "FETCH RELATIVE 2 FROM s", "FETCH 0 FROM s",
		"COMMIT",
		"BEGIN",
		"DECLARE n NO SCROLL CURSOR FOR SELECT id FROM scr ORDER BY id",
		"FETCH ABSOLUTE 1 FROM n", "FETCH 2 FROM n", "FETCH ABSOLUTE 6 FROM n", "FETCH RELATIVE 2 FROM n", "MOVE 0 IN n",
		"MOVE FORWARD 2 IN n", "FETCH ABSOLUTE 10 FROM n", "FETCH ABSOLUTE 10 FROM n",
		"ROLLBACK",
		"BEGIN", "DECLARE n NO SCROLL CURSOR FOR SELECT id FROM scr", "FETCH 2 FROM n", "FETCH 0 FROM n", "ROLLBACK",
		"BEGIN", "DECLARE n NO SCROLL CURSOR FOR SELECT id FROM scr", "FETCH FORWARD -1 FROM n", "ROLLBACK",
		"BEGIN", "DECLARE n NO SCROLL CURSOR FOR SELECT id FROM scr", "FETCH LAST FROM n", "ROLLBACK",
		"BEGIN", "DECLARE n NO SCROLL CURSOR FOR SELECT id FROM scr", "FETCH 3 FROM n", "FETCH ABSOLUTE 1 FROM n", "ROLLBACK",
		"BEGIN", "DECLARE n NO SCROLL CURSOR FOR SELECT id FROM scr", "FETCH ALL FROM n", "MOVE BACKWARD ALL IN n", "ROLLBACK",
		"BEGIN", "DECLARE g CURSOR FOR SELECT count(*) FROM scr", "FETCH 1 FROM g", "FETCH PRIOR FROM g", "ROLLBACK",
		"BEGIN", "DECLARE g CURSOR FOR SELECT id / 100, count(*) FROM scr GROUP BY 1", "FETCH 1 FROM g", "FETCH FIRST FROM g", "ROLLBACK",
		"BEGIN", "DECLARE g CURSOR FOR SELECT DISTINCT id / 100 FROM scr", "FETCH 1 FROM g", "MOVE BACKWARD 1 IN g", "ROLLBACK",
		"BEGIN", "DECLARE g CURSOR FOR SELECT 1, 'x'", "FETCH 1 FROM g", "FETCH 0 FROM g", "ROLLBACK",
		"BEGIN", "DECLARE u CURSOR FOR SELECT id FROM scr WHERE id > 3", "FETCH 2 FROM u", "FETCH ABSOLUTE 5 FROM u", "FETCH PRIOR FROM u", "ROLLBACK",
		"BEGIN", "DECLARE u CURSOR FOR SELECT id FROM scr ORDER BY v", "FETCH 2 FROM u", "FETCH FIRST FROM u", "ROLLBACK",
		"BEGIN", "DECLARE u CURSOR FOR SELECT a.id FROM scr a JOIN scr b ON a.id = b.id", "FETCH 2 FROM u", "FETCH 0 FROM u", "ROLLBACK",
	}, "FETCH PRIOR FROM u", "FETCH FIRST FROM u", "FETCH 0 FROM u")
}
