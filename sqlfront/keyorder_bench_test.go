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

var keyOrderBenchRows = flag.Int("sqlfront.keyorder-rows", 0, "run TestKeyOrderBench over an events table of this many rows (0: skip)")

// TestKeyOrderBench (go test ./sqlfront -run TestKeyOrderBench
// -sqlfront.keyorder-rows 300000 -v) times ORDER BY the primary key
// under LIMIT on events tables (issue 22's measurement: a bigint key, a
// composite key led by an equality, a timestamptz key, a text key under
// COLLATE "C") on sidecar — the in-memory HEAD, the trees, and AS OF an
// older version (the trees) — and PostgreSQL, alternating, median of 5,
// the answers compared with PostgreSQL's.
func TestKeyOrderBench(t *testing.T) {
	n := *keyOrderBenchRows
	if n == 0 {
		t.Skip("set -sqlfront.keyorder-rows N to run the key-order comparison")
	}
	r := newRig(t, []string{"public.events", "public.events_org", "public.events_at", "public.events_k"}, []string{
		"CREATE TABLE events (id bigint PRIMARY KEY, at timestamptz NOT NULL, org int NOT NULL, kind text NOT NULL, payload jsonb)",
		fmt.Sprintf("INSERT INTO events SELECT g, timestamptz '2024-01-01 00:00:00+00' + g * interval '17 seconds', g %% 50, 'kind' || (g %% 7), "+
			"jsonb_build_object('g', g, 'tag', 't' || (g %% 100), 'v', g * 1.5) FROM generate_series(1, %d) g", n),
		"CREATE TABLE events_org (org int, id bigint, kind text NOT NULL, PRIMARY KEY (org, id))",
		fmt.Sprintf("INSERT INTO events_org SELECT g %% 50, g, 'kind' || (g %% 7) FROM generate_series(1, %d) g", n),
		"CREATE TABLE events_at (at timestamptz PRIMARY KEY, id bigint NOT NULL, kind text NOT NULL)",
		fmt.Sprintf("INSERT INTO events_at SELECT timestamptz '2024-01-01 00:00:00+00' + g * interval '17 seconds', g, 'kind' || (g %% 7) FROM generate_series(1, %d) g", n),
		`CREATE TABLE events_k (k text COLLATE "C" PRIMARY KEY, id bigint NOT NULL)`,
		fmt.Sprintf("INSERT INTO events_k SELECT 'k' || lpad(g::text, 7, '0'), g FROM generate_series(1, %d) g", n),
		"VACUUM ANALYZE events", "VACUUM ANALYZE events_org", "VACUUM ANALYZE events_at", "VACUUM ANALYZE events_k",
	},
		// lsns[0]; then each table changes (rows as they were), so AS OF
		// lsns[0] reads the trees' older version and PostgreSQL's answer
		// is still the one to compare.
		[]string{"UPDATE marker SET n = n + 1"},
		[]string{"UPDATE events SET org = org WHERE id = 1", "UPDATE events_org SET kind = kind WHERE org = 1 AND id = 1",
			"UPDATE events_at SET kind = kind WHERE id = 1", "UPDATE events_k SET id = id WHERE id = 1"})
	ctx := context.Background()
	tree := r.treeURL(t)
	conns := map[string]*pgconn.PgConn{}
	for name, url := range map[string]string{"head": r.sqlURL, "tree": tree, "asof": r.sqlURL, "pg": r.pgURL} {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		conns[name] = c
	}
	cells := []string{
		"SELECT * FROM events ORDER BY id DESC LIMIT 10",
		"SELECT * FROM events ORDER BY id LIMIT 10",
		fmt.Sprintf("SELECT id, at, kind FROM events WHERE id > %d ORDER BY id LIMIT 50", n/2),
		fmt.Sprintf("SELECT id, kind FROM events WHERE id < %d ORDER BY id DESC LIMIT 50", n/3),
		"SELECT * FROM events ORDER BY id LIMIT 10 OFFSET 10000",
		fmt.Sprintf("SELECT id, at, org, kind FROM events WHERE id >= %d ORDER BY id LIMIT 1000", n/2),
		"SELECT id, org FROM events WHERE org = 7 ORDER BY id DESC LIMIT 20",
		"SELECT to_char(at, 'YYYY-MM-DD HH24:MI') FROM events ORDER BY id LIMIT 3",
		"SELECT timezone('Asia/Tokyo', at) FROM events ORDER BY id LIMIT 3",
		"SELECT id, to_char(at, 'YYYY-MM-DD HH24:MI'), id::text AS idt, kind FROM events WHERE id > 1000 ORDER BY id LIMIT 20",
		"SELECT id, -id FROM events WHERE id > 1000 ORDER BY id LIMIT 20", // bigint negation fails on its least value: sorted
		fmt.Sprintf("SELECT org, id, kind FROM events_org WHERE org = 7 AND id > %d ORDER BY id LIMIT 50", n/2),
		fmt.Sprintf("SELECT org, id, kind FROM events_org WHERE org = 7 AND id < %d ORDER BY id DESC LIMIT 50", n/2),
		"SELECT * FROM events_at ORDER BY at DESC LIMIT 10",
		"SELECT at, id FROM events_at WHERE at > '2024-02-01' ORDER BY at LIMIT 50",
		"SELECT * FROM events_k ORDER BY k DESC LIMIT 10",
		fmt.Sprintf("SELECT k, id FROM events_k WHERE k > 'k%07d' ORDER BY k LIMIT 50", n/2),
	}
	asOf := func(sql string) string {
		for _, tbl := range []string{"events_org", "events_at", "events_k", "events"} {
			if strings.Contains(sql, "FROM "+tbl+" ") {
				return strings.Replace(sql, "FROM "+tbl+" ", "FROM "+tbl+" AS OF '"+r.lsns[0]+"' ", 1)
			}
		}
		return sql
	}
	load, _ := os.ReadFile("/proc/loadavg")
	lines := []string{fmt.Sprintf("events: %d rows; load average at start: %s", n, strings.TrimSpace(string(load))),
		"| statement | sidecar HEAD ms | sidecar trees ms | sidecar AS OF ms | PostgreSQL ms | HEAD / PG |", "|---|---|---|---|---|---|"}
	for _, sql := range cells {
		times := map[string][]float64{}
		answers := map[string][]string{}
		for i := 0; i < 5; i++ {
			for _, key := range []string{"head", "pg", "tree", "asof"} {
				stmt := sql
				if key == "asof" {
					stmt = asOf(sql)
				}
				start := time.Now()
				res := conns[key].ExecParams(ctx, stmt, nil, nil, nil, nil).Read()
				el := time.Since(start)
				if res.Err != nil {
					t.Fatalf("%s on %s: %v", sql, key, res.Err)
				}
				times[key] = append(times[key], float64(el.Microseconds())/1000)
				answers[key] = rowsText(res)
			}
		}
		for _, key := range []string{"head", "tree", "asof"} {
			if !slices.Equal(answers[key], answers["pg"]) {
				t.Errorf("%s: sidecar (%s) answered %q, PostgreSQL %q", sql, key, answers[key], answers["pg"])
			}
		}
		h, tr, ao, p := median(times["head"]), median(times["tree"]), median(times["asof"]), median(times["pg"])
		lines = append(lines, fmt.Sprintf("| `%s` | %.1f | %.1f | %.1f | %.1f | %.2f× |", sql, h, tr, ao, p, h/p))
		t.Log(lines[len(lines)-1])
	}
	load, _ = os.ReadFile("/proc/loadavg")
	lines = append(lines, "load average at end: "+strings.TrimSpace(string(load)))
	fmt.Println(strings.Join(lines, "\n"))
}
