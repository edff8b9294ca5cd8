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

var topNBenchRows = flag.Int("sqlfront.topn-rows", 0, "run TestTopNBench over a table of this many rows (0: skip)")

// TestTopNBench (go test ./sqlfront -run TestTopNBench
// -sqlfront.topn-rows 1000000 -v) times ORDER BY … LIMIT over one table
// on sql/exec's top-N (the in-memory HEAD and the trees) and PostgreSQL,
// alternating, median of 5 (SIDECAR_TOPN_REPS), each answer compared
// with PostgreSQL's in order; every statement's ORDER BY tells the rows
// apart. The table is TestOrderRouteBench's. Beside the wall times it
// reports the CPU each side spent (medians): this process's (the
// sidecar runs in it) and the throwaway cluster's (every process of it,
// parallel workers included: pgClusterCPU), which the machine's load
// inflates far less than wall time. SIDECAR_TOPN_TREES=0 leaves the
// trees out (slow at 10M rows).
func TestTopNBench(t *testing.T) {
	n := *topNBenchRows
	if n == 0 {
		t.Skip("set -sqlfront.topn-rows N to run the ORDER BY … LIMIT comparison")
	}
	reps := 5
	if s := os.Getenv("SIDECAR_TOPN_REPS"); s != "" {
		fmt.Sscan(s, &reps)
	}
	ctx := context.Background()
	conns := obConns(t, n)
	stmts := []string{
		"SELECT * FROM ob ORDER BY a LIMIT 100",
		"SELECT * FROM ob ORDER BY a DESC LIMIT 100",
		"SELECT * FROM ob ORDER BY b LIMIT 100",
		"SELECT * FROM ob ORDER BY n DESC, id LIMIT 100",
		"SELECT * FROM ob ORDER BY s, id LIMIT 100",
		"SELECT id, s FROM ob WHERE g = 3 ORDER BY a LIMIT 10 OFFSET 1000",
	}
	trees := os.Getenv("SIDECAR_TOPN_TREES") != "0"
	pgCPU := pgClusterCPU(t, conns["pg"])
	load, _ := os.ReadFile("/proc/loadavg")
	lines := []string{fmt.Sprintf("ob: %d rows; load average at start: %s", n, strings.TrimSpace(string(load))),
		"| statement | rows | sidecar HEAD ms | sidecar trees ms | PostgreSQL ms | HEAD / PG | trees / PG | HEAD CPU ms | PG CPU ms | HEAD CPU / PG CPU |",
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"}
	for _, sql := range stmts {
		times := map[string][]float64{}
		cpu := map[string][]float64{}
		answers := map[string][]string{}
		for i := 0; i < reps; i++ {
			order := []string{"head", "pg", "tree"}
			if i%2 == 1 {
				order = []string{"pg", "tree", "head"}
			}
			for _, key := range order {
				if key == "tree" && !trees {
					continue
				}
				measure := processCPU
				if key == "pg" {
					measure = pgCPU
				}
				c0, start := measure(), time.Now()
				res := conns[key].ExecParams(ctx, sql, nil, nil, nil, nil).Read()
				el, c := time.Since(start), measure()-c0
				if res.Err != nil {
					t.Fatalf("%s on %s: %v", sql, key, res.Err)
				}
				times[key] = append(times[key], float64(el.Microseconds())/1000)
				cpu[key] = append(cpu[key], float64(c.Microseconds())/1000)
				answers[key] = rowsText(res)
			}
		}
		if !trees {
			answers["tree"], times["tree"] = answers["pg"], []float64{0}
		}
		for _, key := range []string{"head", "tree"} {
			if !slices.Equal(answers[key], answers["pg"]) {
				t.Errorf("%s: sidecar (%s) answered unlike PostgreSQL (%d rows, %d)", sql, key, len(answers[key]), len(answers["pg"]))
			}
		}
		h, tr, p := median(times["head"]), median(times["tree"]), median(times["pg"])
		hc, pc := median(cpu["head"]), median(cpu["pg"])
		lines = append(lines, fmt.Sprintf("| `%s` | %d | %.1f | %.1f | %.1f | %.2f× | %.2f× | %.0f | %.0f | %.2f× |", sql, len(answers["pg"]), h, tr, p, h/p, tr/p, hc, pc, hc/pc))
		t.Log(lines[len(lines)-1])
	}
	load, _ = os.ReadFile("/proc/loadavg")
	lines = append(lines, "load average at end: "+strings.TrimSpace(string(load)))
	fmt.Println(strings.Join(lines, "\n"))
}

// obConns makes the rig of TestOrderRouteBench and TestTopNBench: table
// ob of n rows (a a permutation of 0..n-1, so ORDER BY a is a total
// order; g 10 values; s 1,000; n numeric) followed by the sidecar, and
// connections to its in-memory HEAD ("head"), its trees ("tree") and
// PostgreSQL ("pg"), the sidecar's with a 5-minute statement timeout.
func obConns(t *testing.T, n int) map[string]*pgconn.PgConn {
	r := newRig(t, []string{"public.ob"}, []string{
		"CREATE TABLE ob (id int PRIMARY KEY, a int NOT NULL, g int NOT NULL, s text NOT NULL, n numeric(12,2), b bigint)",
		fmt.Sprintf("INSERT INTO ob SELECT i, (i::bigint * 7919) %% %d, i %% 10, 'k' || (i %% 1000), (i %% 5000) * 0.25, ((i::bigint * 104729) %% %d) * 1000003 - 500000000000 FROM generate_series(1, %d) i", n, n, n),
		"VACUUM ANALYZE ob",
	})
	ctx := context.Background()
	conns := map[string]*pgconn.PgConn{}
	for name, url := range map[string]string{"head": r.sqlURL, "tree": r.treeURL(t), "pg": r.pgURL} {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		conns[name] = c
		if name != "pg" { // the evaluator took past the rig's 30 s
			if err := c.Exec(ctx, "SET statement_timeout = '5min'").Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return conns
}

// pgClusterCPU is a reader of the CPU time spent so far by the
// PostgreSQL cluster conn is served by: its postmaster's user+system
// time with that of its exited children (parallel workers, reaped:
// cutime, cstime), plus every live child's (the backends), from
// /proc (clock ticks of 10 ms).
func pgClusterCPU(t *testing.T, conn *pgconn.PgConn) func() time.Duration {
	res := conn.ExecParams(context.Background(), "SELECT pg_backend_pid()", nil, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 {
		t.Fatalf("pg_backend_pid: %v", res.Err)
	}
	backend := string(res.Rows[0][0])
	fields := func(pid string) []string {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return nil
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			return strings.Fields(s[i+1:]) // [0] is field 3 (state)
		}
		return nil
	}
	ticks := func(f []string, idx ...int) (n int64) {
		for _, i := range idx {
			var v int64
			fmt.Sscan(f[i-3], &v)
			n += v
		}
		return n
	}
	f := fields(backend)
	if f == nil {
		t.Fatalf("no /proc entry for backend %s", backend)
	}
	postmaster := f[1] // field 4: ppid
	return func() time.Duration {
		pm := fields(postmaster)
		if pm == nil {
			return 0
		}
		total := ticks(pm, 14, 15, 16, 17)
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			if c := fields(p.Name()); c != nil && len(c) > 12 && c[1] == postmaster {
				total += ticks(c, 14, 15)
			}
		}
		return time.Duration(total) * 10 * time.Millisecond
	}
}
