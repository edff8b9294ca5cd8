package sqlfront_test

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestExtraFloatDigitsEveryPath: under extra_float_digits < 1 every
// statement shape — the flat planner's, its fast paths (point get, key
// range, the query engine's aggregates) and sql/exec's — prints floats
// as PostgreSQL does or is refused; never in the shortest-round-trip
// form PostgreSQL uses only for extra_float_digits ≥ 1.
func TestExtraFloatDigitsEveryPath(t *testing.T) {
	r := newRig(t, []string{"public.efd"}, []string{
		`CREATE TABLE efd (id int PRIMARY KEY, f float8, r real)`,
		`INSERT INTO efd SELECT g, g * 0.1 + 0.2, g / 3.0 FROM generate_series(1, 50) g`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	stmts := []string{
		`SELECT id, f, r FROM efd ORDER BY id`,
		`SELECT f, r FROM efd WHERE id = 1`,
		`SELECT f FROM efd WHERE id BETWEEN 3 AND 9 ORDER BY id`,
		`SELECT sum(f), avg(f), min(r), max(f) FROM efd`,
		`SELECT id % 3, min(f), max(r), count(*) FROM efd GROUP BY 1 ORDER BY 1`,
		`SELECT id, f FROM efd WHERE id IN (1, 2, 3) ORDER BY id`,
		`SELECT id FROM efd WHERE f > 1 ORDER BY id`,
		`SELECT f * 3, r + 1 FROM efd WHERE id < 5 ORDER BY id`,
		`SELECT 0.1::float8 + 0.2::float8`,
		`SELECT f FROM efd WHERE f > 2 ORDER BY f LIMIT 3`,
	}
	refused, answered := 0, 0
	for _, setting := range []string{`SET extra_float_digits = 0`, `SET extra_float_digits = -4`, `SET extra_float_digits = 1`, `SET extra_float_digits = -15`, `RESET extra_float_digits`} {
		simpleExec(ctx, conns["postgresql"], setting)
		simpleExec(ctx, conns["sidecar"], setting)
		for _, q := range stmts {
			// Twice: the second from the plan cache, which must not hand
			// a plan made under another setting.
			for range 2 {
				want := simpleExec(ctx, conns["postgresql"], q)
				got := simpleExec(ctx, conns["sidecar"], q)
				switch {
				case slices.Equal(got, want):
					answered++
				case len(got) > 0 && strings.HasPrefix(got[0], "ERROR 0A000"):
					refused++
					t.Logf("%s: %s refused: %s", setting, q, got[0])
				default:
					t.Errorf("%s: %s\n got %q\nwant %q (or a refusal)", setting, q, got, want)
				}
			}
		}
	}
	// The point is answers, not refusals: most of these must answer.
	t.Logf("%d answered identically, %d refused", answered, refused)
	if refused > answered/4 {
		t.Errorf("%d refused against %d answered: the settings should not refuse plain statements", refused, answered)
	}
}
