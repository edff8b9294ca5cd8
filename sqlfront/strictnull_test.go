package sqlfront_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStrictNullFolding: PostgreSQL's planner replaces a strict
// operator, cast or function with an argument that folds to NULL by a
// NULL constant (eval_const_expressions, evaluate_function), so its
// other arguments are never evaluated: `f8::int2 < (NULL::int + 1)` is
// NULL on a row whose f8 is out of int2's range. The flat path computed
// the cast per row and failed 22003 (issue 21, session 17). Each
// statement runs on the flat path and, inside a derived table, on
// sql/exec.
func TestStrictNullFolding(t *testing.T) {
	r := newRig(t, []string{"public.sn"}, []string{
		"CREATE TABLE sn (id int PRIMARY KEY, f8 float8, t text)",
		"INSERT INTO sn VALUES (1, 1.5, 'a'), (2, 1e10, 'b'), (3, 'Infinity', NULL), (4, NULL, 'c')",
	})
	ctx := context.Background()
	stmts := []string{
		"SELECT id FROM sn WHERE f8::int2 < (NULL::int + 1) ORDER BY id",
		"SELECT id FROM sn WHERE id > 0 AND f8::int2 < (NULL::int + 1) ORDER BY id",
		"SELECT id, f8::int2 < (NULL::int + 1) FROM sn ORDER BY id",
		"SELECT id, (f8::int2 < (NULL::int + 1)) IS NULL FROM sn ORDER BY id",
		"SELECT id, f8::int2 + (- (NULL::int2 * 2::int2)) FROM sn ORDER BY id",
		"SELECT id, f8::int2 + abs(NULL::int2) FROM sn ORDER BY id",
		"SELECT id, f8::int2::text LIKE (NULL::text || 'x') FROM sn ORDER BY id",
		// the other argument folds first: its error stands
		"SELECT id FROM sn WHERE (32767::int2 + 1::int2) < (NULL::int + 1) ORDER BY id",
		// NULL beside a column, not folded: the cast fails
		"SELECT id FROM sn WHERE f8::int2 < NULLIF(id, id) ORDER BY id",
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		pgc := connectMode(t, r.pgURL, mode)
		scc := connectMode(t, r.sqlURL, mode)
		for _, q := range stmts {
			vec := "SELECT * FROM (" + strings.Replace(q, " ORDER BY id", "", 1) + ") s ORDER BY id"
			for _, q := range []string{q, vec} {
				want, werr := resultOf(ctx, pgc, q)
				got, gerr := resultOf(ctx, scc, q)
				if !sameOutcome(want, werr, got, gerr) {
					t.Errorf("mode %v: %s:\n PostgreSQL %q %v\n sidecar    %q %v", mode, q, want, werr, got, gerr)
				}
			}
		}
		pgc.Close(ctx)
		scc.Close(ctx)
	}
}
