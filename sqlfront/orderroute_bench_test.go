package sqlfront_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

var orderRouteBenchRows = flag.Int("sqlfront.orderroute-rows", 0, "run TestOrderRouteBench over a table of this many rows (0: skip)")

// TestOrderRouteBench (go test ./sqlfront -run TestOrderRouteBench
// -sqlfront.orderroute-rows 1000000 -v) times one-table ORDER BY and
// DISTINCT without aggregates (issue 22, orderroute.go) on the sidecar
// — the in-memory HEAD and the trees — and PostgreSQL, alternating,
// median of 5, each answer compared with PostgreSQL's (every statement
// orders its rows completely, or is compared as a set).
func TestOrderRouteBench(t *testing.T) {
	n := *orderRouteBenchRows
	if n == 0 {
		t.Skip("set -sqlfront.orderroute-rows N to run the ORDER BY / DISTINCT comparison")
	}
	// a is a permutation of 0..n-1 (7919 is prime and divides no power
	// of ten), so ORDER BY a is a total order; g has 10 values.
	r := newRig(t, []string{"public.ob"}, []string{
		"CREATE TABLE ob (id int PRIMARY KEY, a int NOT NULL, g int NOT NULL, s text NOT NULL, n numeric(12,2))",
		fmt.Sprintf("INSERT INTO ob SELECT i, (i::bigint * 7919) %% %d, i %% 10, 'k' || (i %% 1000), (i %% 5000) * 0.25 FROM generate_series(1, %d) i", n, n),
		"VACUUM ANALYZE ob",
	})
	ctx := context.Background()
	conns := map[string]*pgconn.PgConn{}
	for name, url := range map[string]string{"head": r.sqlURL, "tree": r.treeURL(t), "pg": r.pgURL} {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		conns[name] = c
		if name != "pg" { // the evaluator took past the rig's 30 s
			if err := c.Exec(ctx, "SET statement_timeout = '5min'").Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	cells := []struct {
		sql   string
		asSet bool // the statement leaves the order open
	}{
		{"SELECT * FROM ob ORDER BY a LIMIT 100", false},
		{"SELECT DISTINCT g FROM ob", true},
		{"SELECT DISTINCT g FROM ob ORDER BY g", false},
		{"SELECT id, g, a FROM ob ORDER BY g, a", false},
		{"SELECT id, s FROM ob WHERE g = 3 ORDER BY s, id", false},
		{"SELECT DISTINCT s FROM ob ORDER BY s", false},
	}
	load, _ := os.ReadFile("/proc/loadavg")
	lines := []string{fmt.Sprintf("ob: %d rows; load average at start: %s", n, strings.TrimSpace(string(load))),
		"| statement | rows | sidecar HEAD ms | sidecar trees ms | PostgreSQL ms | HEAD / PG | plan |", "|---|---:|---:|---:|---:|---:|---|"}
	for _, c := range cells {
		times := map[string][]float64{}
		answers := map[string][]string{}
		for i := 0; i < 5; i++ {
			for _, key := range []string{"head", "pg", "tree"} {
				start := time.Now()
				res := conns[key].ExecParams(ctx, c.sql, nil, nil, nil, nil).Read()
				el := time.Since(start)
				if res.Err != nil {
					t.Fatalf("%s on %s: %v", c.sql, key, res.Err)
				}
				times[key] = append(times[key], float64(el.Microseconds())/1000)
				answers[key] = rowsText(res)
				if c.asSet {
					slices.Sort(answers[key])
				}
			}
		}
		for _, key := range []string{"head", "tree"} {
			if !slices.Equal(answers[key], answers["pg"]) {
				t.Errorf("%s: sidecar (%s) answered %d rows unlike PostgreSQL's %d", c.sql, key, len(answers[key]), len(answers["pg"]))
			}
		}
		res := conns["head"].ExecParams(ctx, "EXPLAIN "+c.sql, nil, nil, nil, nil).Read()
		where := "flat"
		if res.Err != nil {
			where = res.Err.Error()
		} else if strings.Contains(strings.Join(rowsText(res), "\n"), "vectorized executor") {
			where = "sql/exec"
		}
		h, tr, p := median(times["head"]), median(times["tree"]), median(times["pg"])
		lines = append(lines, fmt.Sprintf("| `%s` | %d | %.1f | %.1f | %.1f | %.2f× | %s |", c.sql, len(answers["pg"]), h, tr, p, h/p, where))
		t.Log(lines[len(lines)-1])
	}
	load, _ = os.ReadFile("/proc/loadavg")
	lines = append(lines, "load average at end: "+strings.TrimSpace(string(load)))
	fmt.Println(strings.Join(lines, "\n"))
}
