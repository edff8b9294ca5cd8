package deploy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// dashboardSeries returns every metric name the dashboard's queries use
// (a histogram's _bucket/_sum/_count as queried), by panel title.
func dashboardSeries(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile("grafana/sidecar.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	names := map[string][]string{}
	series := regexp.MustCompile(`\b(sidecar|go|process)_[a-z0-9_]+`)
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			for _, n := range series.FindAllString(tg.Expr, -1) {
				names[n] = append(names[n], p.Title)
			}
		}
	}
	return names
}

// TestDashboardAgainstLiveMetrics runs a daemon against a real
// PostgreSQL, makes it copy, verify, answer SQL (a statement, an error,
// a refused connection), and checks that every series the Grafana
// dashboard queries is on its /metrics: no panel stays empty for a
// renamed or never-exported metric. The memory-by-part panels also need
// each bounded part's used and budget series under the same part label.
func TestDashboardAgainstLiveMetrics(t *testing.T) {
	want := dashboardSeries(t)
	c, err := pgtest.Start(context.Background(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	url := c.NewDB(t)
	ctx := t.Context()
	daemontest.Exec(t, url, "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'x' FROM generate_series(1, 1000) g; ANALYZE t")
	sqlAddr := daemontest.FreeAddr(t)
	cfg := daemontest.Config(t, url, []string{"public.t"}, "sql:\n  listen: "+sqlAddr, "verify:\n  interval: 1s", "storage:\n  min_free: 64MiB")
	d := daemontest.Start(t, daemontest.Options{PG: url, Run: func(ctx context.Context, ready func(string)) error {
		return daemon.Run(ctx, daemon.Options{Config: cfg, OnReady: ready})
	}})
	defer func() {
		if err := d.Stop(); err != nil {
			t.Errorf("daemon: %v", err)
		}
	}()
	api := d.Addr

	// SQL: a statement, an error, a connection refused at startup.
	sqlURL := "postgres://reader@" + sqlAddr + "/app?sslmode=disable"
	deadline := time.Now().Add(120 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, sqlURL)
		if err == nil {
			var n int64
			err = conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n)
			conn.Exec(ctx, "SELECT no_such_column FROM t") // an error, by SQLSTATE class
			conn.Close(context.Background())
			if err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("SQL port: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if raw, err := net.Dial("tcp", sqlAddr); err == nil {
		raw.SetDeadline(time.Now().Add(30 * time.Second)) // the server closes at once; never hang on it
		raw.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		io.Copy(io.Discard, raw)
		raw.Close()
	}

	// Until every series is there (the verify and copy series appear
	// after their first run), with a generous ceiling.
	var missing []string
	deadline = time.Now().Add(180 * time.Second)
	for {
		lines := scrapeLines(t, "http://"+api+"/metrics")
		have := seriesNames(lines)
		missing = memoryPartsMissing(lines)
		for name, panels := range want {
			if !have[name] {
				missing = append(missing, fmt.Sprintf("%s (panel %q)", name, panels[0]))
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard queries series the daemon does not export:\n%s", strings.Join(missing, "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// scrapeLines returns the sample lines of a /metrics page (comments and
// blank lines dropped).
func scrapeLines(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && line[0] != '#' {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// seriesNames returns the metric names of sample lines.
func seriesNames(lines []string) map[string]bool {
	names := map[string]bool{}
	for _, line := range lines {
		if i := strings.IndexAny(line, "{ "); i > 0 {
			names[line[:i]] = true
		}
	}
	return names
}

// memoryPanelParts are the parts of the memory budget the dashboard's
// "Memory by part" panels must show both used and budget for: the whole
// process (limit), the Go runtime, the heap's pages and the SQL working
// memory (the parts the daemon measures and bounds).
var memoryPanelParts = []string{"limit", "go_runtime", "heap", "query"}

// memoryPartsMissing names the parts of memoryPanelParts lacking
// sidecar_memory_used_bytes{part} or sidecar_memory_budget_bytes{part}
// among lines: the "fraction of budget" panel divides one by the other
// on the part label, so either missing leaves its line empty.
func memoryPartsMissing(lines []string) []string {
	part := regexp.MustCompile(`[{,]part="([^"]*)"`)
	seen := map[string]bool{}
	for _, line := range lines {
		name, _, _ := strings.Cut(line, "{")
		if name != "sidecar_memory_used_bytes" && name != "sidecar_memory_budget_bytes" {
			continue
		}
		if m := part.FindStringSubmatch(line); m != nil {
			seen[name+"/"+m[1]] = true
		}
	}
	var missing []string
	for _, p := range memoryPanelParts {
		for _, name := range []string{"sidecar_memory_used_bytes", "sidecar_memory_budget_bytes"} {
			if !seen[name+"/"+p] {
				missing = append(missing, fmt.Sprintf(`%s{part=%q} (panel "Memory by part")`, name, p))
			}
		}
	}
	return missing
}
