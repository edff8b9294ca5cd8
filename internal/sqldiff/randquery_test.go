package sqldiff_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

var seedFlag = seed.Flag()

// TestRandomQueries compares the sidecar's answers to generated queries
// (issue 22 item 6(c)) with PostgreSQL's over the same NULL-heavy tables.
// Only queries both answer are compared; refusals are counted. A wrong
// answer (or rows in another order: every query orders by all its
// columns) fails the test with the seed, the query and a minimized query
// that still fails. SIDECAR_RANDQ_N sets the number of queries (default
// 300); -seed replays a run.
func TestRandomQueries(t *testing.T) {
	n := 300
	if s := os.Getenv("SIDECAR_RANDQ_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SIDECAR_RANDQ_N=%q: %v", s, err)
		}
		n = v
	}
	sd := seed.Or(t, seedFlag, 20261204)
	ctx := context.Background()
	pgs, scs := followed(t, sqldiff.RandomSetup, sqldiff.RandomTables) // randexpr_test.go
	compare := func(q *sqldiff.RandQuery) sqldiff.Outcome {
		o, _, _ := sqldiff.Compare(ctx, pgs, scs, sqldiff.NewStatement(q.SQL()), 10*time.Second, false)
		return o
	}
	bad := func(o sqldiff.Outcome) bool { return o.Class.Wrong() || o.Class == sqldiff.OrderOnly }
	gen := sqldiff.NewGenerator(sd)
	counts := map[sqldiff.Class]int{}
	refusals := map[string]int{}
	failures := 0
	for i := range n {
		q := gen.Next()
		o := compare(q)
		counts[o.Class]++
		if o.Class == sqldiff.Refused || o.Class == sqldiff.ErrorMismatch {
			refusals[o.Code+" "+o.Message]++
		}
		if o.Class == sqldiff.ErrorMismatch && counts[o.Class] <= 3 {
			t.Logf("error mismatch (PostgreSQL answered): %s\n  %s %s", q.SQL(), o.Code, o.Message)
		}
		if !bad(o) {
			continue
		}
		failures++
		if failures > 10 {
			continue // counted; the first ten are shown
		}
		small := sqldiff.Minimize(q, func(s *sqldiff.RandQuery) bool { return bad(compare(s)) })
		t.Errorf("seed %d query %d: %s\n  %s\n  minimized: %s\n  %s", sd, i, o.Class, q.SQL(), small.SQL(), compare(small).Message)
	}
	compared := counts[sqldiff.Identical] + counts[sqldiff.OrderOnly] + counts[sqldiff.Different] + counts[sqldiff.Columns]
	t.Logf("seed %d, %d queries: %d compared (%d identical, %d wrong), %d refused, %d error mismatches, %d timeouts, %d PostgreSQL errors, %d answered where PostgreSQL failed",
		sd, n, compared, counts[sqldiff.Identical], failures, counts[sqldiff.Refused], counts[sqldiff.ErrorMismatch], counts[sqldiff.Timeout],
		counts[sqldiff.PGError], counts[sqldiff.AnsweredError])
	keys := make([]string, 0, len(refusals))
	for k := range refusals {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return refusals[b] - refusals[a] })
	for i, k := range keys {
		if i == 8 {
			break
		}
		t.Logf("%5d  %s", refusals[k], fmt.Sprintf("%.160s", k))
	}
}
