package opt_test

import (
	"errors"
	"fmt"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/opt"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// TestRules: testdata/*.plan, each statement's plan after the rules
// ("opt"), or as bound ("plan") to show a rule's before and after.
func TestRules(t *testing.T) {
	cat, err := plantest.LoadCatalog("../plan/testdata/catalog.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.LoadStats("testdata/stats.txt"); err != nil {
		t.Fatal(err)
	}
	plantest.Run(t, "testdata/*.plan", func(t *testing.T, directive, sql string) string {
		tree, err := pg.Parse(sql)
		if err != nil {
			return "error: " + err.Error()
		}
		q, err := plan.Bind(tree.Stmts[0].Stmt, cat)
		if err != nil {
			var pe *plan.Error
			if errors.As(err, &pe) {
				return fmt.Sprintf("error %s: %s", pe.Code, pe.Message)
			}
			return "error: " + err.Error()
		}
		switch directive {
		case "plan":
			return plan.Explain(q)
		case "opt":
			return plan.Explain(opt.Optimize(q))
		}
		t.Fatalf("unknown directive %q", directive)
		return ""
	})
}
