// The memory budget (memory.limit, issue 24 item 1): the Go runtime's
// memory limit, each part's bound handed to the component that holds it,
// and what status and /metrics show of them.

package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/membudget"
	smetrics "github.com/sidecar-dev/sidecar/metrics"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/server"
	"github.com/sidecar-dev/sidecar/store"
)

// memoryBudget is the daemon's share-out of memory.limit.
type memoryBudget struct {
	parts config.Parts
	pages *heap.PageBudget
	// pageFile holds the cold HEAD pages on disk, with the page cache
	// (opened by openPageFile; nil before).
	pageFile *heap.PageFile
	query    *membudget.Pool
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
	mb := &memoryBudget{parts: p, pages: heap.NewPageBudget(heapDecodedShare(int64(p.Heap))), query: membudget.NewPool("memory.query", int64(p.Query))}
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

// heapDecodedShare is the part of heap.memory the heaps' decoded pages
// may hold (the pages being written and those read most recently by the
// writer); the rest is the page cache of cold pages read back from the
// page file (heapCacheShare).
func heapDecodedShare(heapMemory int64) int64 { return heapMemory - heapCacheShare(heapMemory) }

// heapCacheShare is the page cache's part of heap.memory: a quarter.
func heapCacheShare(heapMemory int64) int64 { return heapMemory / 4 }

// pageFileDir is the directory of the page file under the data directory.
const pageFileDir = "heapcache"

// openPageFile opens the page file of cold HEAD pages in the data
// directory (a cache of HEAD, truncated at each start: see
// heap.PageFile) with its page cache sized from heap.memory, and adds its
// counters to /metrics.
func (d *daemon) openPageFile() error {
	dir := filepath.Join(d.cfg.DataDir, pageFileDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("heap page file: %w", err)
	}
	pf, err := heap.OpenPageFile(dir, heapCacheShare(int64(d.mem.parts.Heap)))
	if err != nil {
		return err
	}
	d.mem.pageFile = pf
	d.met.RegisterPageCache(func() smetrics.PageCache {
		c, f := pf.Cache().Stats(), pf.Stats()
		return smetrics.PageCache{Hits: c.Hits, Misses: c.Misses, Evictions: c.Evictions, Promotions: c.Promotions,
			CacheBytes: c.Bytes, CacheLimit: c.Limit, FileBytes: f.FileBytes, FileLiveBytes: f.LiveBytes,
			Reads: f.Reads, Writes: f.Writes, ReadAhead: f.ReadAhead, Corrupt: f.Corrupt, WriteErrors: f.WriteErrors}
	})
	return nil
}

// pageFileReadersWait bounds closePageFile's wait for reads still
// running at shutdown.
const pageFileReadersWait = 30 * time.Second

// closePageFile releases the heap page file once the model and the
// listeners are down: its name at once (heap.PageFile.Close), its open
// descriptor once every read is done (API handlers that outlived the HTTP
// server's shutdown grace, reads registered with the mirror), so a
// stopped daemon holds nothing open in data_dir (a process embedding it
// used to hold the descriptor until a garbage collection, and the file
// system could not be unmounted). A read still running after
// pageFileReadersWait keeps the descriptor, left to the runtime (closed
// once unreachable), with a warning. srv is nil when Run ended before
// the HTTP server was made.
func (d *daemon) closePageFile(srv *server.Server) {
	pf := d.mem.pageFile
	if pf == nil {
		return
	}
	if err := pf.Close(); err != nil {
		d.log.Warn("could not remove the heap page file", "err", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), pageFileReadersWait)
	defer cancel()
	if srv != nil {
		if err := srv.WaitHandlers(ctx); err != nil {
			d.log.Warn("API requests still running at shutdown; the heap page file's descriptor is left to the runtime", "err", err)
			return
		}
	}
	if err := d.m.WaitReaders(ctx); err != nil {
		d.log.Warn("reads still running at shutdown; the heap page file's descriptor is left to the runtime", "err", err)
		return
	}
	if err := pf.CloseFile(); err != nil {
		d.log.Warn("could not close the heap page file", "err", err)
	}
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

// mirrorOptions gives the initial copy its share of memory.ingest (the
// node store's write buffer has the other half): the ranges' buffers, the
// sorted runs kept in memory and the merge's read buffers
// (mirror.Options.CopyMemory).
func (mb *memoryBudget) mirrorOptions(o *mirror.Options) {
	o.CopyMemory = max(int64(mb.parts.Ingest)/2, 4<<20)
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
		{Part: "heap", Key: "heap.memory", Budget: int64(p.Heap), Used: mb.pages.Used() + mb.cacheBytes()},
		{Part: "node_cache", Key: "memory.node_cache", Budget: int64(p.NodeCache), Used: -1},
		{Part: "badger", Key: "memory.badger", Budget: int64(p.Badger), Used: -1},
		{Part: "query", Key: "memory.query", Budget: int64(p.Query), Used: mb.query.Used()},
		{Part: "ingest", Key: "memory.ingest", Budget: int64(p.Ingest), Used: -1},
		// What the in-memory HEAD holds by the data's size: cold pages'
		// headers and summaries (their images are in the page file), no
		// part bounds yet; the radix index and key store, charged to
		// heap.memory (part of heap's Used: the decoded pages get what
		// they leave): their own memory, and of a table restored from
		// mapped image files the mapped pages resident (head.Table.ChargeIndex).
		{Part: "head_cold_pages", Used: -1},
		{Part: "head_index", Key: "heap.memory", Used: -1},
	}
	if d.db != nil {
		m := d.db.Memory()
		parts[3].Used, parts[6].Used = m.CacheBytes, m.PendingBytes
		if d.m != nil {
			used, _, _ := d.m.CopyMemory()
			parts[6].Used += used
		}
	}
	if d.head != nil {
		var cold, index int64
		for _, name := range d.head.model.Tables() {
			t := d.head.model.Table(name)
			if t == nil {
				continue // dropped meanwhile
			}
			cold += t.Heap().Memory().ColdBytes
			// What is charged to heap.memory (recharged here: reads
			// fault a restored table's mapped pages in without a batch).
			index += t.ChargeIndex()
		}
		parts[7].Used, parts[8].Used = cold, index
	}
	return parts
}

// cacheBytes is what the page cache holds (0 before the page file).
func (mb *memoryBudget) cacheBytes() int64 {
	if mb.pageFile == nil {
		return 0
	}
	return mb.pageFile.Cache().Stats().Bytes
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
