package sqlfront_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
)

// joinRowQueries are rows of two-table joins without an aggregate that
// the flat plan ran on its row-at-a-time hash join on 4f1044f (EXPLAIN
// showed "Hash Join (evaluator)"), over joinAggSetup's tables: inner and
// left, residual ON conditions, WHERE on either side and across both,
// expressions in the select list and ORDER BY, DISTINCT, NULL and
// repeated keys, keys of different integer types, an empty side.
var joinRowQueries = []string{
	"SELECT a.id, b.id FROM ja a JOIN jb b ON a.k = b.k WHERE a.id < 5 ORDER BY 1, 2",
	"SELECT a.id, a.g, a.n, b.id, b.h, b.x FROM ja a JOIN jb b ON a.k = b.k WHERE b.x > 5 AND a.id < 900 ORDER BY a.id, b.id",
	"SELECT a.id, b.id, b.h FROM ja a LEFT JOIN jb b ON a.k = b.k AND b.h <> 'h1' WHERE a.id < 300 ORDER BY a.id, b.id",
	"SELECT a.id, b.id, a.m * (1 - b.x) AS v FROM ja a JOIN jb b ON b.k = a.k AND a.n > b.x WHERE a.d < date '1995-03-01' ORDER BY v DESC, a.id, b.id",
	"SELECT DISTINCT a.g, b.h FROM ja a JOIN jb b ON a.k = b.k ORDER BY 1, 2",
	"SELECT b.id, a.id, a.d FROM jb b LEFT JOIN ja a ON a.k = b.k AND a.g = 'y1' WHERE b.id % 37 = 0 ORDER BY b.id, a.id NULLS FIRST",
	"SELECT * FROM ja a JOIN jb b ON a.id = b.id WHERE a.id BETWEEN 100 AND 140 ORDER BY a.id",
	"SELECT a.id, b.id FROM ja a JOIN jb b ON a.id = b.id WHERE a.id = 77",
	"SELECT a.id, e.id FROM ja a JOIN je e ON a.k = e.k ORDER BY 1",
	"SELECT a.id, e.k FROM ja a LEFT JOIN je e ON a.k = e.k WHERE a.id < 40 ORDER BY 1",
	"SELECT a.g || '/' || b.h AS gh, a.id FROM ja a JOIN jb b ON a.k = b.k WHERE a.g IS NOT NULL AND b.id < 60 ORDER BY gh DESC, a.id",
}

// joinRowUnordered are such joins without ORDER BY: PostgreSQL's order
// is its plan's, so the rows are compared as multisets.
var joinRowUnordered = []string{
	"SELECT a.id, b.id, b.x FROM ja a JOIN jb b ON a.k = b.k WHERE a.id < 1200",
	"SELECT a.id, b.h FROM ja a LEFT JOIN jb b ON a.k = b.k AND b.x < 2",
	"SELECT e.id, a.id FROM je e JOIN ja a ON a.k = e.k",
}

// TestEvaluatorJoinRoute: the rows of a two-table JOIN … ON that the
// flat plan left to its row-at-a-time evaluator are planned on sql/exec
// (joinroute.go): EXPLAIN shows no evaluator step, and the answers are
// PostgreSQL's warm and cold, text and binary. A LIMIT over such a join
// stays refused where its rows depend on PostgreSQL's read order.
func TestEvaluatorJoinRoute(t *testing.T) {
	tables := []string{"public.ja", "public.jb", "public.je"}
	t.Run("plans", func(t *testing.T) {
		r := newRig(t, tables, joinAggSetup)
		ctx := context.Background()
		conn := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
		defer conn.Close(ctx)
		for _, q := range append(slices.Clone(joinRowQueries), joinRowUnordered...) {
			lines, err := resultOf(ctx, conn, "EXPLAIN "+q)
			if err != nil {
				t.Fatalf("EXPLAIN %s: %v", q, err)
			}
			if plan := strings.Join(lines, "\n"); strings.Contains(plan, "evaluator") {
				t.Errorf("%s: planned on the evaluator:\n%s", q, plan)
			}
		}
		// Rows picked by a LIMIT in the join's order: refused (0A000), as
		// before; with an ORDER BY that tells them apart: answered.
		for _, q := range []string{
			"SELECT a.id, b.id FROM ja a JOIN jb b ON a.k = b.k LIMIT 5",
			"SELECT a.id, b.id FROM ja a JOIN jb b ON a.k = b.k ORDER BY a.id LIMIT 6",
		} {
			if _, err := resultOf(ctx, conn, q); err == nil || !strings.Contains(err.Error(), "0A000") {
				t.Errorf("%s: want a 0A000 refusal, got %v", q, err)
			}
		}
	})
	limited := append(slices.Clone(joinRowQueries),
		"SELECT a.id, b.id FROM ja a JOIN jb b ON a.k = b.k ORDER BY a.id, b.id LIMIT 7 OFFSET 3",
		"SELECT a.id, b.id FROM ja a JOIN jb b ON a.id = b.id ORDER BY a.id DESC LIMIT 5")
	t.Run("warm", func(t *testing.T) {
		r := newRig(t, tables, joinAggSetup)
		joinAggCheck(t, r, limited)
		joinUnorderedCheck(t, r, joinRowUnordered)
	})
	t.Run("cold", func(t *testing.T) {
		cfg := heap.Config{PageRows: 256, Budget: heap.NewPageBudget(64 << 10)}
		r := newRigHead(t, head.Options{Heap: cfg}, tables, joinAggSetup)
		joinAggCheck(t, r, limited)
		joinUnorderedCheck(t, r, joinRowUnordered)
	})
}

// joinUnorderedCheck compares queries on r with PostgreSQL's answers as
// multisets of rows (sorted before comparing), over the simple and the
// extended protocol.
func joinUnorderedCheck(t *testing.T, r *rig, queries []string) {
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		pgc := connectMode(t, r.pgURL, mode)
		conn := connectMode(t, r.sqlURL, mode)
		for _, q := range queries {
			want, werr := resultOf(ctx, pgc, q)
			got, gerr := resultOf(ctx, conn, q)
			slices.Sort(want)
			slices.Sort(got)
			if werr != nil || gerr != nil || len(want) == 0 || !slices.Equal(want, got) {
				t.Errorf("%s (mode %v):\n PostgreSQL %d rows %v\n sidecar    %d rows %v", q, mode, len(want), werr, len(got), gerr)
			}
		}
		pgc.Close(ctx)
		conn.Close(ctx)
	}
}
