package exec_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/opt"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// memSource serves the rows of testdata/data.txt.
type memSource struct {
	rows map[string][][]*string
}

func (m *memSource) Scan(ctx context.Context, t *plan.TableDef, fn func(row []*string) error) error {
	for _, r := range m.rows[t.Name] {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func loadData(t *testing.T) *memSource {
	f, err := os.Open("testdata/data.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := &memSource{rows: map[string][][]*string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		var row []*string
		for _, p := range parts[1:] {
			if p == `\N` {
				row = append(row, nil)
				continue
			}
			row = append(row, &p)
		}
		m.rows[parts[0]] = append(m.rows[parts[0]], row)
	}
	return m
}

// runSQL plans and runs sql: the columns and rows as text, or the error.
func runSQL(cat plan.Catalog, src exec.Source, sql string, workMem int64) string {
	return runSQLWith(cat, src, sql, exec.Options{WorkMem: workMem})
}

// runSQLWith is runSQL under opts.
func runSQLWith(cat plan.Catalog, src exec.Source, sql string, opts exec.Options) string {
	s, _ := runSQLCounted(cat, src, sql, opts)
	return s
}

// runSQLCounted is runSQLWith, also giving the runs the statement's
// DISTINCT aggregates and windows spilled (distinctspill.go).
func runSQLCounted(cat plan.Catalog, src exec.Source, sql string, opts exec.Options) (string, int) {
	return runSQLCtx(context.Background(), cat, src, sql, opts)
}

// runSQLCtx is runSQLCounted under ctx (memory.query's account:
// membudget.WithAccount).
func runSQLCtx(ctx context.Context, cat plan.Catalog, src exec.Source, sql string, opts exec.Options) (string, int) {
	if opts.Dialect.Version == 0 && pgc != nil {
		// The statement follows the test cluster's major, as the SQL
		// front end's follow the followed server's (sqlfront passes the
		// facts' major): json_object_agg's NULL key, 14–15's integer
		// input differ.
		opts.Dialect = types.Dialect{Version: pgc.ServerVersion()}
	}
	tree, err := pg.Parse(sql)
	if err != nil {
		return "error: " + err.Error(), 0
	}
	q, err := plan.Bind(tree.Stmts[0].Stmt, cat)
	if err != nil {
		return errText(err), 0
	}
	q = opt.Optimize(q)
	p, err := exec.Prepare(q)
	if err != nil {
		return errText(err), 0
	}
	var b strings.Builder
	cols := q.Plan.Columns()
	for i, id := range cols {
		if i > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "%s %s", q.Names[i], q.MD.Column(id).Type)
	}
	b.WriteString("\n")
	var zone *types.Zone // timestamptz prints in the session's zone
	if opts.Clock != nil {
		zone = opts.Clock.Zone
	}
	runs, err := exec.RunCountingSpillRuns(p, ctx, src, opts, func(bt *exec.Batch) error {
		for i := 0; i < bt.N; i++ {
			for c, vec := range bt.Vecs {
				if c > 0 {
					b.WriteString("|")
				}
				if vec[i] == nil {
					b.WriteString(`\N`)
				} else {
					b.WriteString(types.OutIn(q.MD.Column(cols[c]).Type.OID, vec[i], zone))
				}
			}
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		return b.String() + errText(err), runs
	}
	return b.String(), runs
}

func errText(err error) string {
	var te *types.Error
	var pe *plan.Error
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("error %s: %s", te.Code, te.Message)
	case errors.As(err, &pe):
		return fmt.Sprintf("error %s: %s", pe.Code, pe.Message)
	}
	return "error: " + err.Error()
}

// TestExec: testdata/*.exec, each statement's result over the rows of
// testdata/data.txt (runnable without PostgreSQL; -update rewrites).
// Statements without ORDER BY list rows in the executor's order, which
// is deterministic for these inputs.
func TestExec(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	src := loadData(t)
	plantest.Run(t, "testdata/*.exec", func(t *testing.T, directive, sql string) string {
		switch directive {
		case "exec":
			return runSQL(cat, src, sql, 0)
		case "exec-small-mem":
			return runSQL(cat, src, sql, 200)
		}
		t.Fatalf("unknown directive %q", directive)
		return ""
	})
}

// TestCancel: a cancelled statement stops within one batch with the
// context's error (the session maps it to 57014).
func TestCancel(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pg.Parse("SELECT a.n, b.n FROM t2 a, t3 b, t3 c, t2 d ORDER BY 1")
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
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rows := 0
	err = p.Run(ctx, loadData(t), exec.Options{}, func(b *exec.Batch) error { rows += b.N; return nil })
	if !errors.Is(err, context.Canceled) || rows != 0 {
		t.Fatalf("cancelled run: %d rows, %v", rows, err)
	}
}
