// The memory budget (memory.limit, issue 24 item 1): the Go runtime's
// memory limit, each part's bound handed to the component that holds it,
// and what status and /metrics show of them.

package daemon

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/membudget"
	smetrics "github.com/sidecar-dev/sidecar/metrics"
	"github.com/sidecar-dev/sidecar/store"
)

// memoryBudget is the daemon's share-out of memory.limit.
type memoryBudget struct {
	parts config.Parts
	pages *heap.PageBudget
	query *membudget.Pool
	// goLimit is the Go runtime's memory limit in effect, goLimitFrom
	// where it came from (memory.limit, or GOMEMLIMIT when set).
	goLimit     int64
	goLimitFrom string
}

// minMemTable is the least memtable: Badger refuses a write batch larger
// than 15 % of it, and the mirror's catalog batches must fit.
const minMemTable = 8 << 20

// setupMemory applies memory.limit: the Go runtime's memory limit (the GC
// works harder as the process nears it instead of letting the heap double)
// unless GOMEMLIMIT is set, and the bounds the parts are enforced by. The
// returned func puts the runtime's previous limit back.
func (d *daemon) setupMemory() func() {
	p := d.cfg.Memory.Budget()
	mb := &memoryBudget{parts: p, pages: heap.NewPageBudget(int64(p.Heap)), query: membudget.NewPool("memory.query", int64(p.Query))}
	d.mem = mb
	restore := func() {}
	if env := os.Getenv("GOMEMLIMIT"); env != "" {
		mb.goLimit, mb.goLimitFrom = debug.SetMemoryLimit(-1), "GOMEMLIMIT="+env
	} else {
		prev := debug.SetMemoryLimit(int64(p.Limit))
		mb.goLimit, mb.goLimitFrom = int64(p.Limit), "memory.limit"
		restore = func() { debug.SetMemoryLimit(prev) }
	}
	d.log.Info("memory budget", "limit", membudget.FormatBytes(int64(p.Limit)), "limit_from", p.LimitFrom,
		"go_memory_limit", membudget.FormatBytes(mb.goLimit), "go_memory_limit_from", mb.goLimitFrom,
		"heap.memory", membudget.FormatBytes(int64(p.Heap)), "memory.node_cache", membudget.FormatBytes(int64(p.NodeCache)),
		"memory.badger", membudget.FormatBytes(int64(p.Badger)), "memory.query", membudget.FormatBytes(int64(p.Query)),
		"memory.ingest", membudget.FormatBytes(int64(p.Ingest)))
	d.met.RegisterMemory(d.memoryParts)
	return restore
}

// storeOptions sets the store's memory from the budget: the node cache,
// Badger's memtables (three; each arena is about 1.3× its size) and the
// node store's write buffer (about twice PendingBytes of encoded nodes,
// and their decoded form beside them).
func (mb *memoryBudget) storeOptions(o *store.Options) {
	o.CacheBytes = int64(mb.parts.NodeCache)
	o.NumMemtables = 3
	o.MemTableSize = max(int64(mb.parts.Badger)/4, minMemTable)
	o.PendingBytes = max(int64(mb.parts.Ingest)/4, 1<<20)
}

// memoryParts is each part's budget and use now.
func (d *daemon) memoryParts() []smetrics.MemoryPart {
	mb := d.mem
	if mb == nil {
		return nil
	}
	p := mb.parts
	parts := []smetrics.MemoryPart{
		{Part: "limit", Key: "memory.limit", Budget: int64(p.Limit), Used: processRSS()},
		{Part: "go_runtime", Key: "", Budget: mb.goLimit, Used: goMemory()},
		{Part: "heap", Key: "heap.memory", Budget: int64(p.Heap), Used: mb.pages.Used()},
		{Part: "node_cache", Key: "memory.node_cache", Budget: int64(p.NodeCache), Used: -1},
		{Part: "badger", Key: "memory.badger", Budget: int64(p.Badger), Used: -1},
		{Part: "query", Key: "memory.query", Budget: int64(p.Query), Used: mb.query.Used()},
		{Part: "ingest", Key: "memory.ingest", Budget: int64(p.Ingest), Used: -1},
		// What the in-memory HEAD holds by the data's size and no part
		// bounds yet: compressed cold pages and the radix index (issue 24
		// item 2 moves them to disk pages).
		{Part: "head_cold_pages", Used: -1},
		{Part: "head_index", Used: -1},
	}
	if d.db != nil {
		m := d.db.Memory()
		parts[3].Used, parts[6].Used = m.CacheBytes, m.PendingBytes
	}
	if d.head != nil {
		var cold, index int64
		for _, name := range d.head.model.Tables() {
			t := d.head.model.Table(name)
			if t == nil {
				continue // dropped meanwhile
			}
			cold += t.Heap().Memory().ColdBytes
			ix, keys := t.IndexBytes()
			index += int64(ix + keys)
		}
		parts[7].Used, parts[8].Used = cold, index
	}
	return parts
}

// goMemory is the memory the Go runtime holds from the OS (mapped and not
// released): what its memory limit bounds.
func goMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return -1
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// processRSS is the process's resident set in bytes (-1: unknown).
func processRSS() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// MemoryStatus is the memory budget in GET /api/status.
type MemoryStatus struct {
	LimitBytes int64  `json:"limit_bytes"`
	LimitFrom  string `json:"limit_from"`
	// GoMemoryLimitBytes is the Go runtime's memory limit (GOMEMLIMIT).
	GoMemoryLimitBytes int64              `json:"go_memory_limit_bytes"`
	GoMemoryLimitFrom  string             `json:"go_memory_limit_from"`
	Parts              []MemoryPartStatus `json:"parts"`
}

// MemoryPartStatus is one part: its key, bound and use (absent: not
// measured, or no bound).
type MemoryPartStatus struct {
	Part        string `json:"part"`
	Key         string `json:"key,omitempty"`
	BudgetBytes int64  `json:"budget_bytes,omitempty"`
	UsedBytes   *int64 `json:"used_bytes,omitempty"`
}

// memoryStatus is the MemoryStatus now (nil before the budget is set up).
func (d *daemon) memoryStatus() *MemoryStatus {
	if d.mem == nil {
		return nil
	}
	st := &MemoryStatus{LimitBytes: int64(d.mem.parts.Limit), LimitFrom: d.mem.parts.LimitFrom,
		GoMemoryLimitBytes: d.mem.goLimit, GoMemoryLimitFrom: d.mem.goLimitFrom}
	for _, p := range d.memoryParts() {
		ps := MemoryPartStatus{Part: p.Part, Key: p.Key, BudgetBytes: p.Budget}
		if p.Used >= 0 {
			ps.UsedBytes = &p.Used
		}
		st.Parts = append(st.Parts, ps)
	}
	return st
}
