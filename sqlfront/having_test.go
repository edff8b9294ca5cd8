package sqlfront_test

import (
	"context"
	"testing"
)

// TestHavingWithoutGrouping: a HAVING without GROUP BY and without an
// aggregate makes one group whose row is the HAVING's answer alone
// (PostgreSQL's is_degenerate_grouping: a Result with no input, the
// table is not read), so `WHERE 1/a = 1 HAVING 1 < 2` over a row with
// a = 0 answers one row (select_having.sql:48) — sidecar evaluated the
// WHERE per row and answered 22012 on 60c07d9. The family around it:
// a constant HAVING false, an empty table, WHERE false, aggregates over
// no rows (one row), a HAVING beside aggregates (the rows are read:
// 22012 stands), constants PostgreSQL's planner folds (22012 before any
// row), an ungrouped column (42803). Each is PostgreSQL's answer or
// error, in text and binary; a refusal (0A000) is reported as such.
func TestHavingWithoutGrouping(t *testing.T) {
	r := newRig(t, []string{"public.th", "public.th_empty"}, []string{
		"CREATE TABLE th (id int PRIMARY KEY, a int, b int)",
		"INSERT INTO th VALUES (1, 0, 1), (2, 1, 2), (3, 2, 2), (4, 3, 3)",
		"CREATE TABLE th_empty (id int PRIMARY KEY, a int)",
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	answered := []string{
		"SELECT 1 AS one FROM th WHERE 1/a = 1 HAVING 1 < 2",
		"SELECT 1 AS one FROM th HAVING 1 > 2",
		"SELECT 1 AS one FROM th HAVING 1 < 2",
		"SELECT 1 AS one FROM th_empty HAVING 1 < 2",
		"SELECT 1 AS one FROM th WHERE false HAVING true",
		"SELECT 'x' AS x FROM th WHERE a > 100 HAVING 2 > 1",
		"SELECT 1 AS one, 'k' AS k FROM th WHERE 1/a = 1 HAVING 1 < 2 ORDER BY 1",
		"SELECT DISTINCT 1 AS one FROM th WHERE 1/a = 1 HAVING true",
		"SELECT 1 AS one FROM th WHERE 1/a = 1 HAVING 1 < 2 LIMIT 5",
		"SELECT 1 AS one FROM th WHERE id = 1 AND 1/a = 1 HAVING true",
		"SELECT 1 AS one FROM th t1 JOIN th t2 ON t1.a / t2.a = 1 HAVING true",
		"SELECT min(a), max(a) FROM th HAVING min(a) = max(a)",
		"SELECT min(a), max(a) FROM th HAVING min(a) < max(a)",
		"SELECT count(*), sum(a), max(b) FROM th WHERE a > 100",
		"SELECT count(*) FROM th_empty",
		"SELECT count(*) FROM th WHERE a > 100 HAVING count(*) = 0",
		"SELECT count(*) FROM th WHERE 1/a = 1 HAVING false",
		"SELECT 1 AS one FROM th HAVING 1/0 = 1",
		"SELECT 1 AS one FROM th WHERE 1/0 = 1 HAVING true",
		"SELECT count(*) FROM th WHERE 1/a = 1",
		"SELECT 1 AS one FROM th HAVING a > 1",
		"SELECT a FROM th HAVING min(a) < max(a)",
	}
	for _, q := range answered {
		for _, f := range [][]int16{nil, {1}} {
			want := pgc.ExecParams(ctx, q, nil, nil, nil, f).Read()
			got := sc.ExecParams(ctx, q, nil, nil, nil, f).Read()
			if want.Err == nil && pgCode(got.Err) == "0A000" {
				t.Logf("refused: %s: %v", q, got.Err)
				continue
			}
			sameResult(t, q, got, want)
		}
	}
	// The corpus's statement is answered, not refused.
	q := "SELECT 1 AS one FROM th WHERE 1/a = 1 HAVING 1 < 2"
	if g := sc.ExecParams(ctx, q, nil, nil, nil, nil).Read(); g.Err != nil || len(g.Rows) != 1 {
		t.Errorf("sidecar: %s: %q %v, want one row", q, rowsText(g), g.Err)
	}
}
