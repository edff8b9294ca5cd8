package plan_test

import (
	"errors"
	"fmt"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// TestBind: testdata/bind/*.plan, the logical plan of each statement as
// bound (no rules), or the error it is refused with.
func TestBind(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/catalog.sql")
	if err != nil {
		t.Fatal(err)
	}
	plantest.Run(t, "testdata/bind/*.plan", func(t *testing.T, directive, sql string) string {
		if directive != "plan" {
			t.Fatalf("unknown directive %q", directive)
		}
		q, err := Bind(sql, cat)
		if err != nil {
			return ErrorText(err)
		}
		return plan.Explain(q)
	})
}

// Bind parses and binds one statement.
func Bind(sql string, cat plan.Catalog) (*plan.Query, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return nil, err
	}
	if len(tree.Stmts) != 1 {
		return nil, fmt.Errorf("%d statements", len(tree.Stmts))
	}
	return plan.Bind(tree.Stmts[0].Stmt, cat)
}

// ErrorText is an error as the tests print it.
func ErrorText(err error) string {
	var pe *plan.Error
	if errors.As(err, &pe) {
		return fmt.Sprintf("error %s: %s", pe.Code, pe.Message)
	}
	return "error: " + err.Error()
}
