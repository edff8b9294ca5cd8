package opt_test

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/bench/tpch"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/opt"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// TestJoinOrderNeverBuildsOnLineitem: in TPC-H's multi-way joins (Q5,
// Q7, Q8, Q9, Q10: lineitem, the largest table, joined to smaller or
// filtered ones) no inner join builds its hash table (its right side)
// on a scan of lineitem once the tables' row counts are known: FROM order built
// on it in Q5/Q8/Q9.
func TestJoinOrderNeverBuildsOnLineitem(t *testing.T) {
	cat, err := plantest.LoadCatalog("../plan/testdata/catalog.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.LoadStats("testdata/stats.txt"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{5, 7, 8, 9, 10} {
		tree, err := pg.Parse(tpch.Queries[n-1])
		if err != nil {
			t.Fatal(err)
		}
		q, err := plan.Bind(tree.Stmts[0].Stmt, cat)
		if err != nil {
			t.Fatalf("Q%d: %v", n, err)
		}
		o := opt.Optimize(q)
		var walk func(r plan.Rel)
		walk = func(r plan.Rel) {
			if j, ok := r.(*plan.Join); ok && j.Kind == plan.InnerJoin && readsTable(j.Right, "lineitem") {
				t.Errorf("Q%d builds a hash table on lineitem:\n%s", n, plan.Explain(o))
			}
			for _, in := range r.Inputs() {
				walk(in)
			}
		}
		walk(o.Plan)
	}
}

// readsTable says whether r is a scan of table name (under filters).
func readsTable(r plan.Rel, name string) bool {
	switch x := r.(type) {
	case *plan.Scan:
		return x.Table.Name == name
	case *plan.Filter:
		return readsTable(x.Input, name)
	}
	return false
}
