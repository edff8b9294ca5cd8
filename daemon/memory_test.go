package daemon

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// TestMemoryBudgetInStatusAndMetrics: the daemon sets the Go runtime's
// memory limit to memory.limit while it runs (and puts it back after),
// and status and /metrics show each part's budget and use.
func TestMemoryBudgetInStatusAndMetrics(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: the daemon keeps it")
	}
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE m (id int PRIMARY KEY, v text)",
		"INSERT INTO m SELECT g, repeat('v', 50) FROM generate_series(1, 20000) g")
	cfg := testConfig(t, url, "public.m")
	file := cfg.File
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "memory:\n  limit: 512MiB\n  query: 100MiB\n")
	f.Close()
	cfg, err = config.Load(config.LoadOptions{File: file, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	before := debug.SetMemoryLimit(-1)
	r := start(t, cfg, io.Discard)
	if got := debug.SetMemoryLimit(-1); got != 512<<20 {
		t.Errorf("Go memory limit while running: %d, want memory.limit %d", got, 512<<20)
	}
	r.waitDurable(t, marker(t, url, "UPDATE m SET v = 'x' WHERE id = 1"))
	var st Status
	daemontest.Eventually(t, "HEAD ready", 0, func() bool {
		st = r.status(t)
		return st.Head != nil && st.Head.Phase == headReady
	}, func() string { return fmt.Sprintf("last HEAD status: %+v", st.Head) })
	m := st.Memory
	if m == nil || m.LimitBytes != 512<<20 || m.LimitFrom != "memory.limit" || m.GoMemoryLimitBytes != 512<<20 {
		t.Fatalf("status memory: %+v", m)
	}
	got := map[string]MemoryPartStatus{}
	var sum int64
	for _, p := range m.Parts {
		got[p.Part] = p
		if p.Key != "" && p.Key != "memory.limit" {
			sum += p.BudgetBytes
		}
	}
	if sum > m.LimitBytes || got["query"].BudgetBytes != 100<<20 || got["heap"].Key != "heap.memory" {
		t.Errorf("parts %+v sum to %d of %d", m.Parts, sum, m.LimitBytes)
	}
	for _, part := range []string{"limit", "go_runtime", "heap", "node_cache", "query", "ingest", "head_cold_pages", "head_index"} {
		if got[part].UsedBytes == nil {
			t.Errorf("part %s: use not measured: %+v", part, got[part])
		}
	}
	if u := got["head_index"].UsedBytes; u == nil || *u == 0 {
		t.Errorf("head_index of 20000 rows: %v", u)
	}
	_, body := httpGet(t, r.addr+"/metrics")
	for _, want := range []string{`sidecar_memory_budget_bytes{key="heap.memory",part="heap"}`, `sidecar_memory_budget_bytes{key="memory.limit",part="limit"} 5.36870912e+08`,
		`sidecar_memory_used_bytes{part="node_cache"}`, `sidecar_memory_used_bytes{part="query"} 0`,
		`sidecar_head_page_cache_total{event="hit"}`, `sidecar_head_page_cache_total{event="miss"}`,
		`sidecar_head_page_cache_total{event="eviction"}`, `sidecar_head_page_cache_bytes{state="limit"}`,
		`sidecar_head_page_file_total{op="read"}`, `sidecar_head_page_file_bytes{state="file"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("Go memory limit after the run: %d, want %d back", got, before)
	}
}
