package config

import (
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/membudget"
)

// loadOn loads file as on a machine with m's memory.
func loadOn(t *testing.T, m membudget.Machine, file string, env ...string) (*Config, error) {
	t.Helper()
	return Load(LoadOptions{File: file, Environ: env, Machine: func() (membudget.Machine, error) { return m, nil }})
}

var (
	ram24  = membudget.Machine{Bytes: 24 << 30, From: "/proc/meminfo MemTotal"}
	cgroup = membudget.Machine{Bytes: 1 << 30, Cgroup: true, From: "cgroup v2 /sys/fs/cgroup/x/memory.max"}
)

// TestMemoryBudgetAuto: memory.limit auto is 1/4 of the RAM without a
// cgroup and 3/4 of a cgroup's limit; every part defaults to its share,
// and together they fit.
func TestMemoryBudgetAuto(t *testing.T) {
	for _, c := range []struct {
		m     membudget.Machine
		limit uint64
	}{{ram24, 6 << 30}, {cgroup, 768 << 20}} {
		cfg, err := loadOn(t, c.m, writeFile(t, good))
		if err != nil {
			t.Fatal(err)
		}
		b := cfg.Memory.Budget()
		if b.Limit != c.limit || !strings.Contains(b.LimitFrom, c.m.From) {
			t.Errorf("%s: limit %d (%s), want %d", c.m.From, b.Limit, b.LimitFrom, c.limit)
		}
		if b.Heap != b.Limit/100*35 || b.Query != b.Limit/100*25 || b.NodeCache != b.Limit/100*15 || b.Badger != b.Limit/100*10 || b.Ingest != b.Limit/100*10 {
			t.Errorf("%s: auto split %+v", c.m.From, b)
		}
		if cfg.Heap.MemoryBytes() != b.Heap {
			t.Errorf("heap.memory %d, budget's heap %d", cfg.Heap.MemoryBytes(), b.Heap)
		}
	}
}

// TestMemoryBudgetExplicitParts: explicit parts are kept, the auto ones
// share what they leave, and parts that do not fit fail naming the key
// and the file's line.
func TestMemoryBudgetExplicitParts(t *testing.T) {
	cfg, err := loadOn(t, ram24, writeFile(t, good+"memory:\n  limit: 1GiB\n  query: 512MiB\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := cfg.Memory.Budget()
	sum := b.Heap + b.NodeCache + b.Badger + b.Query + b.Ingest
	if b.Limit != 1<<30 || b.Query != 512<<20 || sum > b.Limit || b.Heap >= 1<<30/100*35 {
		t.Errorf("budget %+v (parts %d)", b, sum)
	}
	file := writeFile(t, good+"memory:\n  limit: 1GiB\n  query: 700MiB\nheap:\n  memory: 400MiB\n")
	_, err = loadOn(t, ram24, file)
	if err == nil || !strings.Contains(err.Error(), "memory.limit") || !strings.Contains(err.Error(), file) ||
		!strings.Contains(err.Error(), "heap.memory 400MiB + memory.node_cache auto") || !strings.Contains(err.Error(), "line ") {
		t.Errorf("parts past the limit: %v", err)
	}
	// With memory.limit auto, the error names the first explicit part.
	_, err = loadOn(t, cgroup, writeFile(t, good+"heap:\n  memory: 2GiB\n"))
	if err == nil || !strings.Contains(err.Error(), "heap.memory: the parts") {
		t.Errorf("heap.memory past an auto limit: %v", err)
	}
	// Explicit parts that leave too little for the auto ones.
	_, err = loadOn(t, ram24, writeFile(t, good+"memory:\n  limit: 256MiB\n  query: 250MiB\n"))
	if err == nil || !strings.Contains(err.Error(), "memory.limit: the parts") || !strings.Contains(err.Error(), "memory.badger auto 32MiB") {
		t.Errorf("nothing left for the auto parts: %v", err)
	}
	for _, bad := range []string{"memory:\n  limit: lots\n", "memory:\n  limit: 1MiB\n", "memory:\n  badger: 1MiB\n", "heap:\n  memory: 0\n", "memory:\n  ingest: x\n"} {
		key := strings.SplitN(bad, ":", 2)[0] + "." + strings.TrimSpace(strings.SplitN(strings.SplitN(bad, "\n", 3)[1], ":", 2)[0])
		if _, err := loadOn(t, ram24, writeFile(t, good+bad)); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: %v, want an error naming %s", bad, err, key)
		}
	}
	if cfg, err := loadOn(t, ram24, writeFile(t, good), "SIDECAR_MEMORY_LIMIT=2GiB"); err != nil || cfg.Memory.Budget().Limit != 2<<30 {
		t.Errorf("from the environment: %v", err)
	}
	if cfg, err := loadOn(t, cgroup, writeFile(t, good+"memory:\n  limit: 4GiB\n")); err != nil || len(cfg.Warnings) == 0 || !strings.Contains(strings.Join(cfg.Warnings, "\n"), "memory.limit") {
		t.Errorf("limit above the cgroup's: %v, warnings %q", err, cfg.Warnings)
	}
}
