package sqlfront_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestFloatAggOrderMatrix: every float aggregate PostgreSQL accumulates
// in its plan's order of rows (sum, avg, stddev*, var*, variance, corr,
// covar_*, regr_*), over a table whose UPDATEs moved rows to the heap's
// end, in every shape that reaches a different path (the query engine's
// plain aggregate, GROUP BY in the evaluator, a subquery in sql/exec, a
// FILTER, DISTINCT, ROLLUP, windows with and without ties): each
// statement is identical to PostgreSQL's or refused 0A000, never
// different. Aggregates over values whose every order gives one result
// (integers and halves as float8 for sums, numeric, one or equal rows,
// a window ordered without ties) must be answered.
func TestFloatAggOrderMatrix(t *testing.T) {
	r := newRig(t, []string{"public.fm"}, []string{
		`CREATE TABLE fm (id int PRIMARY KEY, f float8, h float8, i float8, r real, q real, n numeric, e float8)`,
		`INSERT INTO fm SELECT g, g * 0.1 + 0.2, g * 0.5, g * 3 - 40, (g * 1.37 + 0.0123)::real / 7, g / 4.0, g * 0.1 + 0.2, 2.5
			FROM generate_series(1, 60) g`,
		`UPDATE fm SET f = f + 0.01, h = h + 1, r = r + 0.5, n = n + 0.01 WHERE id % 7 = 0`,
		`UPDATE fm SET i = i + 2 WHERE id % 5 = 1`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	one := []string{"sum", "avg", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp"}
	two := []string{"corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count", "regr_intercept",
		"regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy"}
	shapes := []struct {
		sql    string // %s: the aggregate call
		window bool   // an OVER clause follows the call
	}{
		{"SELECT %s FROM fm", false},
		{"SELECT %s FROM fm WHERE id > 3", false},
		{"SELECT id %% 3, %s FROM fm GROUP BY 1 ORDER BY 1", false},
		{"SELECT %s FROM (SELECT * FROM fm) s", false},
		{"SELECT id %% 4, %s FROM (SELECT * FROM fm) s GROUP BY ROLLUP (1) ORDER BY 1", false},
		{"SELECT %s FROM fm JOIN (SELECT id AS bid FROM fm) b ON fm.id = b.bid", false},
		{"SELECT %s FROM fm WHERE id IN (3, 7, 9, 14)", false},
		{"SELECT %s FROM fm WHERE id = 7", false},
		{"SELECT id, %s OVER (ORDER BY id) FROM fm ORDER BY id", true},
		{"SELECT id, %s OVER (PARTITION BY id %% 3 ORDER BY id / 10) FROM fm ORDER BY id", true},
		{"SELECT id, %s OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM fm ORDER BY id", true},
	}
	type stmt struct {
		sql    string
		answer bool // must be answered: identical
	}
	var stmts []stmt
	for _, sh := range shapes {
		exact := strings.Contains(sh.sql, "id = 7") || sh.window && !strings.Contains(sh.sql, "id / 10")
		add := func(call string, answer bool) {
			if sh.window && strings.Contains(call, "FILTER") || sh.window && strings.Contains(call, "DISTINCT") {
				return
			}
			// A window with tied ORDER BY keys: refused as a whole when
			// peers differ (window.go), whatever the values.
			ties := strings.Contains(sh.sql, "id / 10")
			stmts = append(stmts, stmt{fmt.Sprintf(sh.sql, call), (answer || exact) && !ties})
		}
		for _, fn := range one {
			sum := fn == "sum" || fn == "avg"
			add(fn+"(f)", false)
			add(fn+"(r)", false)
			add(fn+"(h)", sum)
			add(fn+"(i)", sum)
			add(fn+"(q)", sum)
			add(fn+"(e)", true) // equal rows
			add(fn+"(n)", true) // numeric: exact
			add(fn+"(f::numeric)", true)
			add(fn+"(f) FILTER (WHERE id > 50)", false)
			// sql/exec feeds a float DISTINCT aggregate its values sorted,
			// PostgreSQL's order: answered there.
			add(fn+"(DISTINCT f)", strings.Contains(sh.sql, "(SELECT"))
		}
		for _, fn := range two {
			if sh.window {
				continue // not built: regr_* and corr as window functions (0A000)
			}
			add(fn+"(f, h)", fn == "regr_count" || fn == "regr_avgx")
			add(fn+"(i, q)", fn == "regr_count" || fn == "regr_avgx" || fn == "regr_avgy")
			add(fn+"(e, e)", true)
		}
	}
	refused, answered := 0, 0
	for _, s := range stmts {
		want := simpleExec(ctx, conns["postgresql"], s.sql)
		got := simpleExec(ctx, conns["sidecar"], s.sql)
		switch {
		case slices.Equal(got, want):
			answered++
		case len(got) > 0 && strings.HasPrefix(got[0], "ERROR 0A000") && !s.answer:
			refused++
		default:
			t.Errorf("%s\n got %.300q\nwant %.300q", s.sql, strings.Join(got, " "), strings.Join(want, " "))
		}
	}
	t.Logf("%d statements: %d identical, %d refused", len(stmts), answered, refused)
	if refused == 0 || answered == 0 {
		t.Error("both identical and refused statements expected (the f and r columns' sums depend on the order of rows)")
	}
}
