package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRuntimeErrorPosition: PostgreSQL reports a cursor position for an
// error of parse analysis (an unknown column, a literal's coercion) and
// none for an error a function raises as it runs (sqrt(-1), ln(0), a
// negative number to a fractional power) — whether it runs on a
// constant at plan time or on a row. Before session 27 the flat
// evaluator pointed at the call for every library function's error
// (LINE 1: SELECT sqrt(-1) / ^), where PostgreSQL prints no LINE.
func TestRuntimeErrorPosition(t *testing.T) {
	r := newRig(t, []string{"public.accounts"}, corpusSetup) // corpus_test.go
	ctx := context.Background()
	conns := connectBoth(t, r) // pgbench_test.go: closed at the test's end
	pgc, sc := conns["postgresql"], conns["sidecar"]
	for _, q := range []string{
		"SELECT sqrt(-1)",
		"SELECT ln(0)",
		"SELECT log(-1)",
		"SELECT (-8) ^ (1.0 / 3)",
		"SELECT (-8)::float8 ^ 0.5",
		"SELECT sqrt(balance - 100000) FROM accounts",
		"SELECT ln(small) FROM accounts WHERE small = 0",
		"SELECT id FROM accounts WHERE sqrt(score - 1000) > 1",
		"SELECT factorial(-1)",
		"SELECT make_date(2024, 2, 30)",
		"SELECT repeat(name, -1), lower(name) FROM accounts WHERE id = 1 / (id - id)",
		// parse-analysis errors keep their position
		"SELECT sqrt('abc')",
		"SELECT int4('abc')",
		"SELECT 'abc'::int",
		"SELECT nosuch FROM accounts",
	} {
		for _, format := range []int16{-1, 0, 1} { // -1: the simple query protocol (psql's)
			run := func(c *pgconn.PgConn) error {
				if format < 0 {
					_, err := c.Exec(ctx, q).ReadAll()
					return err
				}
				_, err := c.ExecParams(ctx, q, nil, nil, nil, []int16{format}).Close()
				return err
			}
			werr, gerr := run(pgc), run(sc)
			var we, ge *pgconn.PgError
			if !asPgErr(werr, &we) || !asPgErr(gerr, &ge) {
				t.Errorf("%s: want errors from both, got PostgreSQL %v, sidecar %v", q, werr, gerr)
				continue
			}
			if we.Code != ge.Code || we.Message != ge.Message {
				t.Errorf("%s: %s %q, PostgreSQL %s %q", q, ge.Code, ge.Message, we.Code, we.Message)
			}
			if we.Position != ge.Position {
				t.Errorf("%s (format %d): position %d, PostgreSQL %d (%s)", q, format, ge.Position, we.Position, we.Message)
			}
		}
	}
}
