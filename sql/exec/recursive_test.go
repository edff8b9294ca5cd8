package exec_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/opt"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// TestRecursiveBounded: a recursion that does not end is stopped by the
// statement's working memory (53200, the result and working table
// accounted) or by its deadline, never runs the daemon out of memory.
func TestRecursiveBounded(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	src := loadData(t)
	for _, q := range []string{
		// Read twice: materialized, result accounted.
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r a, r b",
		// Read once: streamed, the working table and (UNION) the rows seen accounted.
		"WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION SELECT n + 1, s || 'x' FROM r) SELECT count(*) FROM r",
	} {
		got := runSQL(cat, src, q, 1<<20)
		if !strings.Contains(got, "error 53200") {
			t.Errorf("%s with 1 MiB: %s", q, got)
		}
	}
	tree, err := pg.Parse("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r")
	if err != nil {
		t.Fatal(err)
	}
	q, err := plan.Bind(tree.Stmts[0].Stmt, cat)
	if err != nil {
		t.Fatal(err)
	}
	p, err := exec.Prepare(opt.Optimize(q))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = p.Run(ctx, src, exec.Options{WorkMem: 1 << 40}, func(*exec.Batch) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a recursion past its deadline: %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("stopped after %v", took)
	}
}
