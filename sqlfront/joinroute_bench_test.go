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

var joinRouteBenchScale = flag.Int("sqlfront.joinroute-scale", 0, "run TestJoinRouteBench over pgbench tables of this scale (0: skip)")

// TestJoinRouteBench (go test ./sqlfront -run TestJoinRouteBench
// -sqlfront.joinroute-scale 10 -v: 1M accounts) times rows of two-table
// joins without aggregates (issue 22, joinroute.go) on the sidecar's
// in-memory HEAD and on PostgreSQL, alternating, median of 3, each
// answer compared with PostgreSQL's (every statement orders its rows
// completely, or is compared as a set).
func TestJoinRouteBench(t *testing.T) {
	scale := *joinRouteBenchScale
	if scale == 0 {
		t.Skip("set -sqlfront.joinroute-scale N to run the join comparison")
	}
	r := newRig(t, pgbenchTables, append(pgbenchSetup(scale), "VACUUM ANALYZE"))
	ctx := context.Background()
	conns := map[string]*pgconn.PgConn{}
	for name, url := range map[string]string{"sidecar": r.sqlURL, "pg": r.pgURL} {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		conns[name] = c
		if err := c.Exec(ctx, "SET statement_timeout = '5min'").Close(); err != nil {
			t.Fatal(err)
		}
	}
	cells := []struct {
		sql   string
		asSet bool // the statement leaves the order open
	}{
		{"SELECT a.aid, a.abalance, t.tid FROM pgbench_accounts a JOIN pgbench_tellers t ON a.bid = t.bid WHERE a.aid <= 2000 ORDER BY a.aid, t.tid", false},
		{"SELECT a.aid, b.bbalance FROM pgbench_accounts a JOIN pgbench_branches b ON a.bid = b.bid WHERE a.abalance = 7 ORDER BY a.aid", false},
		{"SELECT a.aid, b.abalance FROM pgbench_accounts a JOIN pgbench_accounts b ON a.aid = b.aid WHERE a.abalance = 5 AND b.bid = 3 ORDER BY a.aid", false},
		{"SELECT a.aid, t.tid, t.tbalance FROM pgbench_tellers t JOIN pgbench_accounts a ON a.bid = t.bid WHERE a.abalance = 999 AND t.tid % 10 = 1", true},
		{"SELECT b.bid, a.aid FROM pgbench_branches b LEFT JOIN pgbench_accounts a ON a.bid = b.bid AND a.abalance = 0 ORDER BY b.bid, a.aid", false},
	}
	load, _ := os.ReadFile("/proc/loadavg")
	lines := []string{fmt.Sprintf("pgbench scale %d; load average at start: %s", scale, strings.TrimSpace(string(load))),
		"| statement | rows | sidecar ms | PostgreSQL ms | sidecar / PG | plan |", "|---|---:|---:|---:|---:|---|"}
	for _, c := range cells {
		times, answers := timeAlternating(t, conns, []string{"sidecar", "pg"}, c.sql, c.asSet, 3)
		if !slices.Equal(answers["sidecar"], answers["pg"]) {
			t.Errorf("%s: sidecar answered %d rows unlike PostgreSQL's %d", c.sql, len(answers["sidecar"]), len(answers["pg"]))
		}
		where := planWhere(ctx, conns["sidecar"], c.sql)
		s, p := median(times["sidecar"]), median(times["pg"])
		lines = append(lines, fmt.Sprintf("| `%s` | %d | %.1f | %.1f | %.2f× | %s |", c.sql, len(answers["pg"]), s, p, s/p, where))
		t.Log(lines[len(lines)-1])
	}
	load, _ = os.ReadFile("/proc/loadavg")
	lines = append(lines, "load average at end: "+strings.TrimSpace(string(load)))
	fmt.Println(strings.Join(lines, "\n"))
}

// timeAlternating runs sql reps times on each of conns[keys] in turn
// (alternating, so that load changes fall on every server alike) and
// gives the times in ms and each key's last answer (sorted when asSet).
func timeAlternating(t *testing.T, conns map[string]*pgconn.PgConn, keys []string, sql string, asSet bool, reps int) (map[string][]float64, map[string][]string) {
	t.Helper()
	ctx := context.Background()
	times := map[string][]float64{}
	answers := map[string][]string{}
	for i := 0; i < reps; i++ {
		for _, key := range keys {
			start := time.Now()
			res := conns[key].ExecParams(ctx, sql, nil, nil, nil, nil).Read()
			el := time.Since(start)
			if res.Err != nil {
				t.Fatalf("%s on %s: %v", sql, key, res.Err)
			}
			times[key] = append(times[key], float64(el.Microseconds())/1000)
			answers[key] = rowsText(res)
			if asSet {
				slices.Sort(answers[key])
			}
		}
	}
	return times, answers
}

// planWhere says where the sidecar (conn) plans sql: "sql/exec", "flat",
// or EXPLAIN's error.
func planWhere(ctx context.Context, conn *pgconn.PgConn, sql string) string {
	res := conn.ExecParams(ctx, "EXPLAIN "+sql, nil, nil, nil, nil).Read()
	switch {
	case res.Err != nil:
		return res.Err.Error()
	case strings.Contains(strings.Join(rowsText(res), "\n"), "vectorized executor"):
		return "sql/exec"
	}
	return "flat"
}
