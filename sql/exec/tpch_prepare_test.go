package exec_test

import (
	"fmt"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/bench/tpch"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/opt"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// TestTPCHPrepare reports which of TPC-H's 22 queries (as the spec
// writes them and with their date arithmetic folded) the executor
// accepts; it fails if one that ran before is refused (tpchAccepted).
func TestTPCHPrepare(t *testing.T) {
	cat, err := plantest.LoadCatalog("../plan/testdata/catalog.sql")
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for i, q := range tpch.Queries {
		for _, v := range []struct{ name, sql string }{{"", q}, {" folded", tpch.FoldDates(q)}} {
			tree, err := pg.Parse(v.sql)
			if err != nil {
				t.Fatal(err)
			}
			bq, err := plan.Bind(tree.Stmts[0].Stmt, cat)
			if err == nil {
				_, err = exec.Prepare(opt.Optimize(bq))
			}
			name := fmt.Sprintf("Q%d%s", i+1, v.name)
			if err != nil {
				t.Logf("%s: %v", name, err)
				continue
			}
			accepted++
		}
	}
	t.Logf("%d of 44 accepted", accepted)
	if accepted < tpchAccepted {
		t.Errorf("%d of 44 TPC-H queries accepted, %d before", accepted, tpchAccepted)
	}
}

// tpchAccepted is the number of TPC-H queries (of 44) Prepare accepts.
const tpchAccepted = 38
