package exec_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// tablesSource serves typed rows per table name (nil: a column left
// NULL), so a benchmark measures the executor.
type tablesSource struct {
	rows map[string][][]types.Value
}

func (s *tablesSource) Scan(context.Context, *plan.TableDef, func([]*string) error) error {
	return fmt.Errorf("typed scans only")
}

func (s *tablesSource) ScanTyped(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	rows := s.rows[req.Table.Name]
	for start := 0; start < len(rows); start += exec.BatchSize {
		end := min(start+exec.BatchSize, len(rows))
		b := &exec.Batch{N: end - start, Vecs: make([][]types.Value, len(req.Ords))}
		for c, ord := range req.Ords {
			v := make([]types.Value, b.N)
			for i := range v {
				v[i] = rows[start+i][ord]
			}
			b.Vecs[c] = v
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// lateralTables is customers (nc), 10 orders each, 25 lineitems per
// order: the keys and l_quantity filled, the other columns NULL.
func lateralTables(nc int) *tablesSource {
	s := &tablesSource{rows: map[string][][]types.Value{}}
	for c := 1; c <= nc; c++ {
		row := make([]types.Value, 8)
		row[0] = int64(c)
		s.rows["customer"] = append(s.rows["customer"], row)
		for k := 0; k < 10; k++ {
			o := (c-1)*10 + k + 1
			orow := make([]types.Value, 9)
			orow[0], orow[1] = int64(o), int64(c)
			s.rows["orders"] = append(s.rows["orders"], orow)
			for l := 1; l <= 25; l++ {
				lrow := make([]types.Value, 16)
				q, _ := types.In(plan.Numeric, -1, fmt.Sprintf("%d.00", (o*7+l*13)%50+1))
				lrow[0], lrow[3], lrow[4] = int64(o), int64(l), q
				s.rows["lineitem"] = append(s.rows["lineitem"], lrow)
			}
		}
	}
	return s
}

// lateralTopN is a LATERAL subquery joining a correlated side (the
// customer's orders) to an uncorrelated one (all of lineitem).
const lateralTopN = `SELECT c.c_custkey, x.o_orderkey, x.l_quantity FROM customer c CROSS JOIN LATERAL (
  SELECT o.o_orderkey, l.l_quantity FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey
  WHERE o.o_custkey = c.c_custkey ORDER BY l.l_quantity DESC, o.o_orderkey, l.l_linenumber LIMIT 2) x`

// BenchmarkLateralJoinBuild runs lateralTopN over 200 customers (2,000
// orders, 50,000 lineitems).
func BenchmarkLateralJoinBuild(b *testing.B) {
	cat, err := plantest.LoadCatalog("../plan/testdata/catalog.sql")
	if err != nil {
		b.Fatal(err)
	}
	src := lateralTables(200)
	p := prepareBench(b, cat, lateralTopN)
	b.ReportAllocs()
	for b.Loop() {
		rows := 0
		if err := p.Run(context.Background(), src, exec.Options{}, func(bt *exec.Batch) error { rows += bt.N; return nil }); err != nil {
			b.Fatal(err)
		}
		if rows != 400 {
			b.Fatalf("%d rows", rows)
		}
	}
}

// TestLateralKeepsBuild checks that a hash join inside a LATERAL
// subquery builds the side reading no outer column once per statement,
// not once per outer row: lateralTopN over 20 customers built 20 tables
// (the customer's orders, probed by all of lineitem) before; with the
// variants below (the uncorrelated side on the left, on the right, a
// LEFT JOIN and an EXISTS) each builds one. The answers are compared
// with a plain join's, which builds nothing per row.
func TestLateralKeepsBuild(t *testing.T) {
	cat, err := plantest.LoadCatalog("../plan/testdata/catalog.sql")
	if err != nil {
		t.Fatal(err)
	}
	src := lateralTables(20)
	run := func(sql string) (string, int) {
		p := preparePlan(t, cat, sql)
		var b strings.Builder
		n, err := exec.RunCountingBuilds(p, context.Background(), src, exec.Options{}, func(bt *exec.Batch) error {
			for i := 0; i < bt.N; i++ {
				for _, v := range bt.Vecs {
					fmt.Fprintf(&b, "%v|", v[i])
				}
				b.WriteString("\n")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return b.String(), n
	}
	for _, c := range []struct{ lateral, plain string }{
		{lateralTopN, ""},
		{`SELECT c.c_custkey, x.n FROM customer c CROSS JOIN LATERAL (SELECT count(*) AS n FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey WHERE o.o_custkey = c.c_custkey AND l.l_linenumber < 3) x ORDER BY 1`,
			`SELECT o.o_custkey, count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey WHERE l.l_linenumber < 3 GROUP BY 1 ORDER BY 1`},
		{`SELECT c.c_custkey, x.n FROM customer c CROSS JOIN LATERAL (SELECT count(l.l_orderkey) AS n FROM orders o LEFT JOIN lineitem l ON l.l_orderkey = o.o_orderkey AND l.l_linenumber = 1 WHERE o.o_custkey = c.c_custkey) x ORDER BY 1`,
			`SELECT o.o_custkey, count(l.l_orderkey) FROM orders o LEFT JOIN lineitem l ON l.l_orderkey = o.o_orderkey AND l.l_linenumber = 1 GROUP BY 1 ORDER BY 1`},
		{`SELECT c.c_custkey, (SELECT count(*) FROM orders o WHERE o.o_custkey = c.c_custkey AND EXISTS (SELECT 1 FROM lineitem l WHERE l.l_orderkey = o.o_orderkey AND l.l_quantity > 49)) FROM customer c ORDER BY 1`,
			`SELECT o.o_custkey, count(*) FILTER (WHERE EXISTS (SELECT 1 FROM lineitem l WHERE l.l_orderkey = o.o_orderkey AND l.l_quantity > 49)) FROM orders o GROUP BY 1 ORDER BY 1`},
	} {
		got, builds := run(c.lateral)
		if builds > 2 {
			t.Errorf("%s: %d hash tables built for 20 customers, want the uncorrelated side's once", c.lateral, builds)
		}
		if strings.Count(got, "\n") < 20 {
			t.Errorf("%s: %d rows:\n%s", c.lateral, strings.Count(got, "\n"), got)
		}
		if c.plain != "" {
			if want, _ := run(c.plain); got != want {
				t.Errorf("%s:\n%s\nwant (%s):\n%s", c.lateral, got, c.plain, want)
			}
		}
	}
}
