package sqlfront_test

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// Issue 21 (wrong answers): under extra_float_digits < 1 a value
// converted to text inside a statement printed in the shortest form
// where PostgreSQL prints 15 digits: only the plan's columns were
// checked, so `SELECT 'x' || (1/3::float8)` answered x0.3333333333333333
// (PostgreSQL x0.333333333333333), as did format, concat, a cast to text
// over a computed float, and a view whose column is f::text (the
// statement's own text has no cast). Each is now PostgreSQL's answer or
// refused 0A000.
func TestPrintInsideExpressionsFollowSettings(t *testing.T) {
	r := newRig(t, []string{"public.pf"}, []string{
		`CREATE TABLE pf (id int PRIMARY KEY, n numeric, f float8)`,
		`INSERT INTO pf VALUES (1, 1047.29, 1.0/3), (2, 2094.58, 2.0/3), (3, NULL, NULL)`,
		`CREATE VIEW pfv AS SELECT id, (n::float8 / 3)::text AS t, n::float8 / 3 AS g FROM pf`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	stmts := []string{
		`SELECT 'x' || (1/3::float8)`,
		`SELECT format('%s', 1/3::float8)`,
		`SELECT concat(1/3::float8)`,
		`SELECT (1/3::float8)::text`,
		`SELECT 'x' || (n::float8 / 3) FROM pf ORDER BY id`,
		`SELECT (n::float8 / 7)::text FROM pf ORDER BY id`,
		`SELECT t FROM pfv ORDER BY id`,
		`SELECT id, t FROM pfv WHERE id < 3 ORDER BY id`,
		`SELECT 1/3::float8, f FROM pf ORDER BY id`,
	}
	for _, set := range []string{`SET extra_float_digits = 0`, `SET extra_float_digits = -2`} {
		simpleExec(ctx, conns["postgresql"], set)
		simpleExec(ctx, conns["sidecar"], set)
		answered := 0
		for _, q := range stmts {
			want := simpleExec(ctx, conns["postgresql"], q)
			got := simpleExec(ctx, conns["sidecar"], q)
			switch {
			case slices.Equal(got, want):
				answered++
			case len(got) > 0 && strings.HasPrefix(got[0], "ERROR 0A000"):
			default:
				t.Errorf("%s; %s\n got %q\nwant %q (or 0A000)", set, q, got, want)
			}
		}
		if answered == 0 {
			t.Errorf("%s: every statement refused; the last (only result columns print) should be answered", set)
		}
	}
}
