package sqlfront_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
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
	ctx := context.Background()
	conns := obConns(t, n) // topn_bench_test.go
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
		times, answers := timeAlternating(t, conns, []string{"head", "pg", "tree"}, c.sql, c.asSet, 5) // joinroute_bench_test.go
		for _, key := range []string{"head", "tree"} {
			if !slices.Equal(answers[key], answers["pg"]) {
				t.Errorf("%s: sidecar (%s) answered %d rows unlike PostgreSQL's %d", c.sql, key, len(answers[key]), len(answers["pg"]))
			}
		}
		where := planWhere(ctx, conns["head"], c.sql)
		h, tr, p := median(times["head"]), median(times["tree"]), median(times["pg"])
		lines = append(lines, fmt.Sprintf("| `%s` | %d | %.1f | %.1f | %.1f | %.2f× | %s |", c.sql, len(answers["pg"]), h, tr, p, h/p, where))
		t.Log(lines[len(lines)-1])
	}
	load, _ = os.ReadFile("/proc/loadavg")
	lines = append(lines, "load average at end: "+strings.TrimSpace(string(load)))
	fmt.Println(strings.Join(lines, "\n"))
}
