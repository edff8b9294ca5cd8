package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
)

// ProllyOptions configures RunProlly. Zero fields select the defaults noted.
type ProllyOptions struct {
	// Records are the base table sizes, one fresh store each. Default
	// 1,000,000 and 10,000,000 (the seed's).
	Records []int
	// Dir is where the per-size stores are created (a fresh subdirectory
	// each, removed afterwards unless Keep). Default os.TempDir().
	Dir string
	// Keep leaves the stores on disk.
	Keep bool
	// Reps is how many times each cell but build and full scan runs; the
	// report gives the median, min and max. Default 3.
	Reps int
	// Seed fixes every sampled key and value. Default 1.
	Seed int64
	// Batch is the size of batches, reads, scans and diffs, and half a
	// merge. Default 10,000 (the seed's); other values make the seed
	// columns incomparable.
	Batch int
	// CacheBytes is store.Options.CacheBytes (0 = store default).
	CacheBytes int64
	// Steps, if not empty, runs only these steps of the matrix after the
	// build (names in ProllySteps): for profiling and A/B comparison of a
	// few cells without the whole run. diff and merge need the trees batch
	// makes, so they bring batch along. A partial run's report leaves the
	// other cells empty.
	Steps []string
	// Out receives one progress line per cell; nil discards them.
	Out io.Writer
}

func (o ProllyOptions) withDefaults() ProllyOptions {
	if len(o.Records) == 0 {
		o.Records = []int{seedSmall, seedLarge}
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	if o.Reps <= 0 {
		o.Reps = 3
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Batch <= 0 {
		o.Batch = 10_000
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return o
}

// Validate reports options that cannot run: sizes too small to hold a
// batch, negative values.
func (o ProllyOptions) Validate() error {
	o = o.withDefaults()
	for _, n := range o.Records {
		if n < 2*o.Batch {
			return fmt.Errorf("records %d: need at least 2 × batch (%d) rows", n, 2*o.Batch)
		}
	}
	if o.CacheBytes < 0 && o.CacheBytes != -1 {
		return fmt.Errorf("cache bytes %d: want ≥ 0, or -1 to disable the cache", o.CacheBytes)
	}
	for _, s := range o.Steps {
		if !slices.Contains(ProllySteps, s) {
			return fmt.Errorf("step %q: want one of %s", s, strings.Join(ProllySteps, ", "))
		}
	}
	return nil
}

// ProllySteps are the steps of the matrix after the build, in the order
// they run; ProllyOptions.Steps selects among them.
var ProllySteps = []string{"scan", "get", "getmany", "range", "put", "batch", "diff", "merge", "digest"}

// runs reports whether step runs under o.Steps (all when empty; batch
// also when a step that reads its trees runs).
func (o ProllyOptions) runs(step string) bool {
	if len(o.Steps) == 0 || slices.Contains(o.Steps, step) {
		return true
	}
	return step == "batch" && (slices.Contains(o.Steps, "diff") || slices.Contains(o.Steps, "merge"))
}

// ProllyReport is the result of RunProlly: what ran where, and every cell.
type ProllyReport struct {
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	Env      Env           `json:"env"`
	Reps     int           `json:"reps"`
	Seed     int64         `json:"seed"`
	Batch    int           `json:"batch"`
	Store    StoreConfig   `json:"store"`
	Sizes    []SizeResult  `json:"sizes"`
}

// StoreConfig is the node-store configuration every size ran with.
type StoreConfig struct {
	Compression      string `json:"compression"`
	CacheBytes       int64  `json:"cache_bytes"`
	PendingBytes     int64  `json:"pending_bytes"`
	ValueThreshold   int64  `json:"value_threshold"`
	MemTableSize     int64  `json:"memtable_size"`
	NumMemtables     int    `json:"num_memtables"`
	BlockCacheBytes  int64  `json:"badger_block_cache_bytes"`
	ReadConcurrency  int    `json:"read_concurrency"`
	NodeChunkingSpec string `json:"spec"`
}

// SizeResult holds the measurements at one base size.
type SizeResult struct {
	Records int       `json:"records"`
	Cells   []Cell    `json:"cells"`
	Tree    TreeStats `json:"tree"`
	// LoadStart and LoadEnd are /proc/loadavg's 1-minute figure when the
	// size started and ended: how busy the shared machine was.
	LoadStart string `json:"load_start"`
	LoadEnd   string `json:"load_end"`
}

// Cell returns the cell with id, or nil.
func (s *SizeResult) Cell(id string) *Cell {
	for i := range s.Cells {
		if s.Cells[i].ID == id {
			return &s.Cells[i]
		}
	}
	return nil
}

// TreeStats describes the base tree and the store at one size.
type TreeStats struct {
	Nodes  int64 `json:"nodes"`  // nodes written by the build
	Height int   `json:"height"` // levels, leaves included
	// NodesPerLevel and BytesPerLevel describe the built tree, leaves
	// first (prolly.Engine.Stats).
	NodesPerLevel []int   `json:"nodes_per_level"`
	BytesPerLevel []int64 `json:"bytes_per_level"`
	// SerializedBytes is the node encodings' total; StoredBytes after
	// compression, as handed to Badger.
	SerializedBytes int64 `json:"serialized_bytes"`
	StoredBytes     int64 `json:"stored_bytes"`
	// DiskAfterBuild is the store directory's allocated size after the
	// build, with Badger closed; DiskAtEnd after every cell (all the
	// mutation, diff and merge trees the cells wrote are still there).
	DiskAfterBuild int64 `json:"disk_after_build_bytes"`
	DiskAtEnd      int64 `json:"disk_at_end_bytes"`
	// PeakRSSBuild is VmHWM right after the build (reset before it when
	// PeakRSSReset); PeakRSSRun at the end of the size.
	PeakRSSBuild int64 `json:"peak_rss_build_bytes"`
	PeakRSSReset bool  `json:"peak_rss_reset"`
	PeakRSSRun   int64 `json:"peak_rss_run_bytes"`
	// RSSAnonAfterBuild and RSSFileAfterBuild split the RSS right after
	// the build into anonymous memory (Go heap, Badger's memtables) and
	// file pages mapped by Badger (its value log and tables), which the
	// kernel may drop; GoHeapAfterBuild is the live-and-unswept Go heap.
	RSSAnonAfterBuild int64 `json:"rss_anon_after_build_bytes"`
	RSSFileAfterBuild int64 `json:"rss_file_after_build_bytes"`
	GoHeapAfterBuild  int64 `json:"go_heap_after_build_bytes"`
}

// RunProlly runs the seed's Prolly matrix at every size of o.Records on a
// fresh Badger store each and returns the report. Every timed cell checks
// its result (row counts, found keys and values, diff sizes, merged counts)
// and fails the run if it is wrong.
func RunProlly(ctx context.Context, o ProllyOptions) (*ProllyReport, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("bench prolly: %w", err)
	}
	o = o.withDefaults()
	rep := &ProllyReport{
		Started: time.Now().UTC(),
		Env:     CollectEnv(ctx),
		Reps:    o.Reps,
		Seed:    o.Seed,
		Batch:   o.Batch,
	}
	for _, n := range o.Records {
		res, sc, err := runProllySize(ctx, o, n)
		if err != nil {
			return nil, fmt.Errorf("bench prolly at %s records: %w", fmtRecords(n), err)
		}
		rep.Store = sc
		rep.Sizes = append(rep.Sizes, *res)
	}
	rep.Duration = time.Since(rep.Started)
	return rep, nil
}

// sizeRun is the state of one size: its store, engine, workload and base.
type sizeRun struct {
	o    ProllyOptions
	w    *workload
	dir  string
	db   *store.DB
	ns   *store.NodeStore[*prolly.Node]
	e    *prolly.Engine
	base prolly.Root
	res  *SizeResult
	// batchRoots[pattern][rep] is the tree a batch repetition produced,
	// with its edits; diff and merge reuse them as inputs.
	batchRoots map[string][]mutated
}

// mutated is a tree derived from the base by inserting rows.
type mutated struct {
	root  prolly.Root
	slots []slot
	ver   uint32
}

func (r *sizeRun) storeOptions() store.Options {
	return store.Options{Dir: r.dir, CacheBytes: r.o.CacheBytes}
}

func (r *sizeRun) open() error {
	db, err := store.Open(r.storeOptions())
	if err != nil {
		return err
	}
	r.db = db
	r.ns = store.NewNodeStore[*prolly.Node](db, prolly.NodeCodec{})
	r.e = prolly.NewDefaultEngine(r.ns)
	return nil
}

func (r *sizeRun) close(ctx context.Context) error {
	if r.db == nil {
		return nil
	}
	err := r.ns.Close(ctx)
	if cerr := r.db.Close(); err == nil {
		err = cerr
	}
	r.db, r.ns, r.e = nil, nil, nil
	return err
}

func runProllySize(ctx context.Context, o ProllyOptions, n int) (_ *SizeResult, _ StoreConfig, err error) {
	dir, err := os.MkdirTemp(o.Dir, fmt.Sprintf("sidecar-bench-prolly-%s-", fmtRecords(n)))
	if err != nil {
		return nil, StoreConfig{}, fmt.Errorf("create store dir: %w", err)
	}
	r := &sizeRun{
		o:          o,
		w:          &workload{n: n, seed: uint64(o.Seed)},
		dir:        dir,
		res:        &SizeResult{Records: n},
		batchRoots: map[string][]mutated{},
	}
	defer func() {
		if cerr := r.close(ctx); err == nil && cerr != nil {
			err = fmt.Errorf("close store: %w", cerr)
		}
		if !o.Keep {
			if rerr := os.RemoveAll(dir); err == nil && rerr != nil {
				err = fmt.Errorf("remove store dir: %w", rerr)
			}
		}
	}()
	if err := r.open(); err != nil {
		return nil, StoreConfig{}, err
	}
	sc := r.storeConfig()
	r.res.LoadStart = loadAvg()
	fmt.Fprintf(o.Out, "%s: store in %s\n", fmtRecords(n), dir)

	var err2 error
	pprof.Do(ctx, pprof.Labels("cell", "build"), func(ctx context.Context) { err2 = r.build(ctx) })
	if err2 != nil {
		return nil, sc, err2
	}
	steps := []struct {
		id, name string
		fn       func(context.Context) error
	}{
		{"scan", "full scan", func(ctx context.Context) (err error) {
			pprof.Do(ctx, pprof.Labels("cell", "scan"), func(ctx context.Context) { err = r.scan(ctx) })
			return err
		}},
		{"get", "point gets", r.pointGets},
		{"getmany", "GetMany", r.getMany},
		{"range", "range", r.rangeScan},
		{"put", "single puts", r.singlePuts},
		{"batch", "batches", r.batches},
		{"diff", "diffs", r.diffs},
		{"merge", "merges", r.merges},
		{"digest", "digests", r.digests},
	}
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return nil, sc, err
		}
		if !o.runs(s.id) {
			continue
		}
		if err := s.fn(ctx); err != nil {
			return nil, sc, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	if err := r.close(ctx); err != nil {
		return nil, sc, fmt.Errorf("close store: %w", err)
	}
	if r.res.Tree.DiskAtEnd, err = diskUsage(dir); err != nil {
		return nil, sc, err
	}
	if r.res.Tree.PeakRSSRun, err = readPeakRSS(); err != nil {
		return nil, sc, err
	}
	r.res.LoadEnd = loadAvg()
	return r.res, sc, nil
}

func (r *sizeRun) storeConfig() StoreConfig {
	o := r.storeOptions()
	cache := o.CacheBytes
	if cache == 0 {
		cache = store.DefaultCacheBytes
	}
	return StoreConfig{
		Compression:      "s2 (store default)",
		CacheBytes:       cache,
		PendingBytes:     store.DefaultPendingBytes,
		ValueThreshold:   store.DefaultValueThreshold,
		MemTableSize:     store.DefaultMemTableSize,
		NumMemtables:     store.DefaultNumMemtables,
		BlockCacheBytes:  0,
		ReadConcurrency:  2 * runtime.GOMAXPROCS(0),
		NodeChunkingSpec: r.e.SpecID().String(),
	}
}

// nodeCounters returns the store's cumulative Badger reads and Puts.
func (r *sizeRun) nodeCounters() (reads, puts int64) {
	st := r.ns.Stats()
	return st.Reads, st.Puts
}

// record appends a finished cell and prints its progress line.
func (r *sizeRun) record(c Cell) {
	r.res.Cells = append(r.res.Cells, c)
	line := fmt.Sprintf("%s %-16s median %s (min %s, max %s; cpu %s, sys %s, minor faults %d; runq wait %s; disk r/w %s/%s; nodes read/put %d/%d; %d× %d ops)",
		fmtRecords(r.w.n), c.ID, fmtDur(c.Median()), fmtDur(c.Min()), fmtDur(c.Max()), fmtDur(c.MedianCPU()),
		fmtDur(c.MedianSysCPU()), c.MedianMinorFaults(), fmtWait(c.MedianRunqWait()), fmtBytes(c.MedianDiskRead()), fmtBytes(c.MedianDiskWrite()),
		c.MedianNodeReads(), c.MedianNodePuts(), len(c.Samples), c.Ops)
	if spec, ok := specOf(c.ID); ok && spec.perOp {
		line += fmt.Sprintf(" = %s/op", fmtDur(c.PerOp()))
	}
	fmt.Fprintln(r.o.Out, line)
}

// repeat runs one timed cell o.Reps times, handing fn a context labelled
// cell=id for profiles; fn must use it. fn does its own untimed set-up
// and checks, and brackets the timed part with tm.start and tm.stop (once or
// many times). A GC runs before each repetition, so that garbage from set-up
// is not collected on the clock.
func (r *sizeRun) repeat(ctx context.Context, id string, ops int, fn func(ctx context.Context, rep int, tm *timer) error) error {
	c := Cell{ID: id, Ops: ops}
	for i := range r.o.Reps {
		if err := ctx.Err(); err != nil {
			return err
		}
		runtime.GC()
		tm := timer{nodes: r.nodeCounters}
		var err error
		// The label lets a CPU profile of the run (--cpuprofile) be cut
		// by cell: pprof -tagfocus cell=batch/random. Goroutines the
		// store starts inherit it; Badger's long-lived ones do not.
		pprof.Do(ctx, pprof.Labels("cell", id), func(ctx context.Context) { err = fn(ctx, i, &tm) })
		if err != nil {
			return fmt.Errorf("%s rep %d: %w", id, i+1, err)
		}
		tm.add(&c)
	}
	r.record(c)
	return nil
}

// build times the bulk build (with the final Flush into Badger), reads the
// build's peak RSS, records the tree's shape, and reopens the store to
// measure its size on disk.
func (r *sizeRun) build(ctx context.Context) error {
	runtime.GC()
	debug.FreeOSMemory()
	r.res.Tree.PeakRSSReset = resetPeakRSS() == nil
	before := r.ns.Stats()
	tm := timer{nodes: r.nodeCounters}
	tm.start()
	root, err := r.e.Build(ctx, r.w.rows())
	if err == nil {
		err = r.ns.Flush(ctx)
	}
	tm.stop()
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if r.res.Tree.PeakRSSBuild, err = readPeakRSS(); err != nil {
		return err
	}
	r.res.Tree.RSSAnonAfterBuild, r.res.Tree.RSSFileAfterBuild = readRSSSplit()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.res.Tree.GoHeapAfterBuild = int64(ms.HeapAlloc)
	r.base = root
	c := Cell{ID: "build", Ops: r.w.n}
	tm.add(&c)
	r.record(c)
	fmt.Fprintf(r.o.Out, "%s build peak RSS %s (after: anon %s, file %s; Go heap %s)\n", fmtRecords(r.w.n),
		fmtBytes(r.res.Tree.PeakRSSBuild), fmtBytes(r.res.Tree.RSSAnonAfterBuild), fmtBytes(r.res.Tree.RSSFileAfterBuild), fmtBytes(r.res.Tree.GoHeapAfterBuild))

	after := r.ns.Stats()
	t := &r.res.Tree
	t.Nodes = after.Puts - before.Puts
	t.SerializedBytes = after.BytesRaw - before.BytesRaw
	t.StoredBytes = after.BytesStored - before.BytesStored
	rootNode, err := r.ns.Get(ctx, root.Hash)
	if err != nil {
		return fmt.Errorf("read root: %w", err)
	}
	t.Height = rootNode.Level() + 1
	if got := rootNode.TreeCount(); got != uint64(r.w.n) {
		return fmt.Errorf("build: root counts %d rows, want %d", got, r.w.n)
	}
	var ts prolly.TreeStats
	untimed(ctx, func(ctx context.Context) { ts, err = r.e.Stats(ctx, root) })
	if err != nil {
		return fmt.Errorf("tree stats: %w", err)
	}
	t.NodesPerLevel, t.BytesPerLevel = ts.Nodes, ts.Bytes
	// The streaming build writes each node of the tree once and nothing
	// else: what the store received is the tree.
	if int64(ts.TotalNodes()) != t.Nodes || ts.TotalBytes() != t.SerializedBytes || ts.Height != t.Height {
		return fmt.Errorf("build wrote %d nodes (%d bytes) but the tree has %d (%d bytes), height %d vs %d",
			t.Nodes, t.SerializedBytes, ts.TotalNodes(), ts.TotalBytes(), t.Height, ts.Height)
	}
	if err := r.close(ctx); err != nil {
		return fmt.Errorf("close after build: %w", err)
	}
	if t.DiskAfterBuild, err = diskUsage(r.dir); err != nil {
		return err
	}
	return r.open()
}

// scan reads every row once through a cursor, from a freshly opened store
// (empty node cache), checking the count, the order and both ends.
func (r *sizeRun) scan(ctx context.Context) error {
	runtime.GC()
	tm := timer{nodes: r.nodeCounters}
	tm.start()
	c, err := r.e.Range(ctx, r.base, nil, nil)
	if err != nil {
		return err
	}
	var rows int
	var prev, first []byte
	for c.Next() {
		k := c.Key()
		if rows == 0 {
			first = k
		} else if bytes.Compare(prev, k) >= 0 {
			return fmt.Errorf("row %d: key %x not above %x", rows, k, prev)
		}
		prev = k
		rows++
	}
	tm.stop()
	if err := c.Err(); err != nil {
		return err
	}
	if rows != r.w.n {
		return fmt.Errorf("scanned %d rows, want %d", rows, r.w.n)
	}
	if !bytes.Equal(first, r.w.key(0, 0)) || !bytes.Equal(prev, r.w.key(uint64(r.w.n-1), 0)) {
		return fmt.Errorf("scan ends %x … %x are not the first and last base keys", first, prev)
	}
	c2 := Cell{ID: "scan", Ops: rows}
	tm.add(&c2)
	r.record(c2)
	return nil
}

// pointGets times 10k single Gets of random base rows, cold (node cache
// cleared before every call, off the clock) and warm (the same keys read
// once before the timed pass).
func (r *sizeRun) pointGets(ctx context.Context) error {
	k := r.o.Batch
	check := func(pos uint64, v []byte, found bool) error {
		if !found {
			return fmt.Errorf("key of row %d not found", pos)
		}
		if !bytes.Equal(v, r.w.value(pos, 0, 0)) {
			return fmt.Errorf("row %d: value %x, want %x", pos, v, r.w.value(pos, 0, 0))
		}
		return nil
	}
	err := r.repeat(ctx, "get/cold", k, func(ctx context.Context, rep int, tm *timer) error {
		tm.noWait = true
		ps := r.w.samplePositions(k, r.w.rng("get/cold", rep), false)
		key := make([]byte, KeySize)
		for _, p := range ps {
			r.w.putKey(key, p, 0)
			r.clearCaches()
			tm.start()
			v, found, err := r.e.Get(ctx, r.base, key)
			tm.stop()
			if err != nil {
				return err
			}
			if err := check(p, v, found); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.repeat(ctx, "get/warm", k, func(ctx context.Context, rep int, tm *timer) error {
		ps := r.w.samplePositions(k, r.w.rng("get/warm", rep), false)
		keys := make([][]byte, len(ps))
		var err error
		untimed(ctx, func(ctx context.Context) {
			for i, p := range ps {
				keys[i] = r.w.key(p, 0)
				if _, _, err = r.e.Get(ctx, r.base, keys[i]); err != nil {
					return
				}
			}
		})
		if err != nil {
			return err
		}
		vals := make([][]byte, len(ps))
		found := make([]bool, len(ps))
		tm.start()
		for i, key := range keys {
			v, ok, err := r.e.Get(ctx, r.base, key)
			if err != nil {
				return err
			}
			vals[i], found[i] = v, ok
		}
		tm.stop()
		for i, p := range ps {
			if err := check(p, vals[i], found[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// getMany times one GetMany of 10k consecutive base keys and one of 10k
// random base keys (sorted), each from a cleared node cache.
func (r *sizeRun) getMany(ctx context.Context) error {
	for _, ordered := range []bool{true, false} {
		id := "getmany/random"
		if ordered {
			id = "getmany/ordered"
		}
		err := r.repeat(ctx, id, r.o.Batch, func(ctx context.Context, rep int, tm *timer) error {
			ps := r.w.samplePositions(r.o.Batch, r.w.rng(id, rep), ordered)
			slices.Sort(ps)
			keys := make([][]byte, len(ps))
			want := make([][]byte, len(ps))
			for i, p := range ps {
				keys[i], want[i] = r.w.key(p, 0), r.w.value(p, 0, 0)
			}
			var bad error
			hits := 0
			r.clearCaches()
			tm.start()
			err := r.e.GetMany(ctx, r.base, keys, func(i int, v []byte, found bool) error {
				if !found || !bytes.Equal(v, want[i]) {
					if bad == nil {
						bad = fmt.Errorf("key %d (row %d): found %v, value %x, want %x", i, ps[i], found, v, want[i])
					}
					return nil
				}
				hits++
				return nil
			})
			tm.stop()
			switch {
			case err != nil:
				return err
			case bad != nil:
				return bad
			case hits != len(keys):
				return fmt.Errorf("GetMany answered %d of %d keys", hits, len(keys))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// rangeScan times a cursor over 10k consecutive base rows from a cleared
// node cache.
func (r *sizeRun) rangeScan(ctx context.Context) error {
	k := r.o.Batch
	return r.repeat(ctx, "range/ordered", k, func(ctx context.Context, rep int, tm *timer) error {
		ps := r.w.samplePositions(k, r.w.rng("range/ordered", rep), true)
		lo, hi := r.w.key(ps[0], 0), r.w.key(ps[0]+uint64(k), 0)
		r.clearCaches()
		tm.start()
		c, err := r.e.Range(ctx, r.base, lo, hi)
		if err != nil {
			return err
		}
		rows := 0
		var first []byte
		for c.Next() {
			if rows == 0 {
				first = c.Key()
			}
			rows++
		}
		tm.stop()
		if err := c.Err(); err != nil {
			return err
		}
		if rows != k || !bytes.Equal(first, lo) {
			return fmt.Errorf("range from row %d: %d rows starting at %x, want %d from %x", ps[0], rows, first, k, lo)
		}
		return nil
	})
}

// edits returns the sorted Mutate batch inserting slots at version ver.
func (r *sizeRun) edits(slots []slot, ver uint32) []prolly.Edit {
	eds := make([]prolly.Edit, len(slots))
	for i, s := range slots {
		eds[i] = prolly.Edit{Key: r.w.key(s.pos, s.sub), Value: r.w.value(s.pos, s.sub, ver)}
	}
	return eds
}

// mutate times Mutate plus the Flush that hands its nodes to Badger, from a
// cleared node cache, then checks the new tree's count and (off the clock)
// every inserted row.
func (r *sizeRun) mutate(ctx context.Context, tm *timer, base prolly.Root, baseRows int, slots []slot, ver uint32) (prolly.Root, error) {
	eds := r.edits(slots, ver)
	r.clearCaches()
	tm.start()
	root, err := r.e.Mutate(ctx, base, eds)
	if err == nil {
		err = r.ns.Flush(ctx)
	}
	tm.stop()
	if err != nil {
		return prolly.Root{}, err
	}
	if err := r.checkRows(ctx, root, baseRows+len(eds), eds); err != nil {
		return prolly.Root{}, err
	}
	return root, nil
}

// checkRows checks that root holds rows rows and every edit's value.
func (r *sizeRun) checkRows(ctx context.Context, root prolly.Root, rows int, eds []prolly.Edit) (err error) {
	untimed(ctx, func(ctx context.Context) { err = r.checkRowsNow(ctx, root, rows, eds) })
	return err
}

// untimed runs fn under the profile label cell=setup, so that a profile
// cut by cell (pprof -tagfocus) holds only timed work. pprof.Do restores
// the labels of ctx afterwards, so ctx must be the cell's labelled context
// (the one repeat hands to its fn), not an outer one.
func untimed(ctx context.Context, fn func(context.Context)) {
	pprof.Do(ctx, pprof.Labels("cell", "setup"), fn)
}

func (r *sizeRun) checkRowsNow(ctx context.Context, root prolly.Root, rows int, eds []prolly.Edit) error {
	n, err := r.e.Count(ctx, root)
	if err != nil {
		return err
	}
	if n != uint64(rows) {
		return fmt.Errorf("tree %s counts %d rows, want %d", root, n, rows)
	}
	keys := make([][]byte, len(eds))
	for i := range eds {
		keys[i] = eds[i].Key
	}
	return r.e.GetMany(ctx, root, keys, func(i int, v []byte, found bool) error {
		if !found || !bytes.Equal(v, eds[i].Value) {
			return fmt.Errorf("inserted key %x: found %v, value %x, want %x", keys[i], found, v, eds[i].Value)
		}
		return nil
	})
}

// singlePuts times Mutate of one inserted row per pattern.
func (r *sizeRun) singlePuts(ctx context.Context) error {
	for _, pat := range []string{patAppend, patRandom, patClustered} {
		id := "put/" + pat
		err := r.repeat(ctx, id, 1, func(ctx context.Context, rep int, tm *timer) error {
			slots := r.w.inserts(pat, 1, r.w.rng(id, rep), 0, 1)
			_, err := r.mutate(ctx, tm, r.base, r.w.n, slots, uint32(rep+1))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// batches times Mutate of 10k inserted rows per pattern; each repetition
// starts from the base tree with its own rows (random) or values (append,
// clustered), so no repetition finds its nodes already written.
func (r *sizeRun) batches(ctx context.Context) error {
	for _, pat := range []string{patAppend, patRandom, patClustered} {
		id := "batch/" + pat
		err := r.repeat(ctx, id, r.o.Batch, func(ctx context.Context, rep int, tm *timer) error {
			slots := r.w.inserts(pat, r.o.Batch, r.w.rng(id, rep), 0, 1)
			ver := uint32(100 + rep)
			root, err := r.mutate(ctx, tm, r.base, r.w.n, slots, ver)
			if err != nil {
				return err
			}
			r.batchRoots[pat] = append(r.batchRoots[pat], mutated{root: root, slots: slots, ver: ver})
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ParseRecords parses a comma-separated list of record counts, each a
// positive integer optionally suffixed k (×1,000) or M (×1,000,000):
// "1000000,10000000" or "1M,10M".
func ParseRecords(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mult, f = 1_000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "M"):
			mult, f = 1_000_000, strings.TrimSuffix(f, "M")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || n > math.MaxInt/mult {
			return nil, fmt.Errorf("record count %q: want a positive integer, optionally with k or M", f)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// clearCaches empties every cache of decoded nodes before a cold cell: the
// store's node cache and the root the engine keeps pinned (with the
// internal nodes it reaches).
func (r *sizeRun) clearCaches() {
	r.ns.ClearCache()
	r.e.Unpin()
}
