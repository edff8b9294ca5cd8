package exec_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/bench/tpch"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/opt"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// lineitemSource serves n generated lineitem rows already typed (what
// the HEAD's typed scan gives), so a benchmark measures the executor.
type lineitemSource struct {
	rows [][]types.Value
}

func (s *lineitemSource) Scan(context.Context, *plan.TableDef, func([]*string) error) error {
	return fmt.Errorf("typed scans only")
}

func (s *lineitemSource) ScanTyped(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	for start := 0; start < len(s.rows); start += exec.BatchSize {
		end := min(start+exec.BatchSize, len(s.rows))
		b := &exec.Batch{N: end - start, Vecs: make([][]types.Value, len(req.Ords))}
		for c, ord := range req.Ords {
			v := make([]types.Value, b.N)
			for i := range v {
				v[i] = s.rows[start+i][ord]
			}
			b.Vecs[c] = v
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

func newLineitemSource(tb testing.TB, n int) *lineitemSource {
	r := rand.New(rand.NewPCG(1, 2))
	in := func(oid plan.OID, s string) types.Value {
		v, err := types.In(oid, -1, s)
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
	s := &lineitemSource{}
	flags, status := []string{"A", "N", "R"}, []string{"F", "O"}
	for i := 0; i < n; i++ {
		row := make([]types.Value, 16)
		row[0], row[1], row[2], row[3] = int64(i/4+1), int64(r.IntN(20000)+1), int64(r.IntN(1000)+1), int64(i%4+1)
		q := r.IntN(50) + 1
		row[4] = in(plan.Numeric, fmt.Sprintf("%d.00", q))
		row[5] = in(plan.Numeric, fmt.Sprintf("%d.%02d", q*(r.IntN(1000)+900), r.IntN(100)))
		row[6] = in(plan.Numeric, fmt.Sprintf("0.%02d", r.IntN(11)))
		row[7] = in(plan.Numeric, fmt.Sprintf("0.%02d", r.IntN(9)))
		row[8], row[9] = in(plan.Bpchar, flags[r.IntN(3)]), in(plan.Bpchar, status[r.IntN(2)])
		d := in(plan.Date, fmt.Sprintf("199%d-0%d-1%d", 2+r.IntN(7), 1+r.IntN(9), r.IntN(9)))
		row[10], row[11], row[12] = d, d, d
		row[13], row[14], row[15] = in(plan.Bpchar, "NONE"), in(plan.Bpchar, "AIR"), in(plan.Varchar, "x")
		s.rows = append(s.rows, row)
	}
	return s
}

// BenchmarkQ1 runs TPC-H's Q1 (numeric sums and averages of
// expressions, four groups) over 100k typed lineitem rows.
func BenchmarkQ1(b *testing.B) {
	cat, err := plantest.LoadCatalog("../plan/testdata/catalog.sql")
	if err != nil {
		b.Fatal(err)
	}
	src := newLineitemSource(b, 100_000)
	p := prepareBench(b, cat, tpch.Queries[0])
	b.ReportAllocs()
	for b.Loop() {
		rows := 0
		if err := p.Run(context.Background(), src, exec.Options{}, func(bt *exec.Batch) error { rows += bt.N; return nil }); err != nil {
			b.Fatal(err)
		}
		if rows == 0 {
			b.Fatal("no rows")
		}
	}
}

// prepareBench is sql planned and compiled for a benchmark.
func prepareBench(b *testing.B, cat plan.Catalog, sql string) *exec.Prepared {
	return preparePlan(b, cat, sql)
}

// preparePlan is sql planned and compiled.
func preparePlan(b testing.TB, cat plan.Catalog, sql string) *exec.Prepared {
	tree, err := pg.Parse(sql)
	if err != nil {
		b.Fatal(err)
	}
	q, err := plan.Bind(tree.Stmts[0].Stmt, cat)
	if err != nil {
		b.Fatal(err)
	}
	p, err := exec.Prepare(opt.Optimize(q))
	if err != nil {
		b.Fatal(err)
	}
	return p
}
