package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// markerKeyInt4 is the marker row's key (id 1).
func markerKeyInt4() ([]byte, error) {
	return rowenc.EncodeKey([]rowenc.KeyKind{rowenc.KindInt4}, "1")
}

// The scale benchmark of issue 24 item 3: one large table
// t(id bigint PRIMARY KEY, k, v, score, grp) followed by an in-process
// sidecar with memory.limit set, PostgreSQL (shared_buffers 4GB) in the
// same run on the same data. It measures the initial copy against
// `\copy t TO /dev/null`, the process's RSS against the limit all along
// (a curve sampled every second, with the rows the HEAD holds, so memory
// per row can be read off), point gets, 10k-row key ranges, count+sum and
// a group/having aggregate on both SQL ports (alternating, medians) warm
// and cold (after a restart with the data files dropped from the OS page
// cache), then the seed-003 UPDATE 50 % / DELETE 20 % apply and the
// compactions against VACUUM / VACUUM FULL.
//
// Memory safety: with Cgroup set, the process moves itself into that
// (v1 or v2) memory cgroup once PostgreSQL has started (so PostgreSQL's
// shared_buffers are charged outside it), and steps out of it only to
// restart PostgreSQL. An overrun then kills the benchmark with its
// in-process daemon and nothing else; the report is rendered to Out after
// every phase and the RSS curve is logged as it is sampled, so an OOM
// still leaves both behind.

// ScaleOptions configure RunScale.
type ScaleOptions struct {
	Rows          int
	MemoryLimit   string // the sidecar's memory.limit ("" = its default)
	SharedBuffers string // PostgreSQL's shared_buffers
	// MaxWalSize is PostgreSQL's max_wal_size ("" = 16GB). A smaller
	// one bounds the WAL on disk while 100M rows load (the load's WAL
	// stays until a checkpoint, and recycled segments stay after it).
	MaxWalSize   string
	Reps         int    // warm repetitions of every read cell
	Gets, Ranges int    // point gets and 10k ranges per repetition and side
	Cold         bool   // measure the cold level (restarts)
	Apply        bool   // the seed-003 UPDATE / DELETE and the compactions
	Join         bool   // the join cell (a hash join over every row: minutes, and memory.query, at 50M+)
	Cgroup       string // memory cgroup directory to run the daemon in ("" = none)
	// Grow follows t from empty while it grows to Rows in 1M-row
	// transactions (the sidecar applying them as they stream) instead of
	// loading it first and timing the initial copy; it stops early at
	// GrowUntil (zero: no deadline), keeping the rows reached.
	Grow       bool
	GrowUntil  time.Time
	Dir        string // scratch directory (PostgreSQL's cluster is in TMPDIR)
	ProfileDir string // heap profiles at each phase and RSS step ("" = none)
	// DaemonLog is where the daemon's log is written and kept (appended
	// to across its restarts): its phase timings (copy, table built,
	// HEAD ready, checkpoints) are what explains the lifecycle figures.
	// Empty: sidecar-bench-scale-<start>.daemon.log in Dir (or the
	// system temp dir), never inside the scratch directory removed at
	// the end.
	DaemonLog string
	// CheckpointInterval, if set, is the daemon's heap.checkpoint_interval
	// (default 5 min): a copy longer than it has its table's reset batch
	// take the first checkpoint, which a short one reproduces at a small
	// size.
	CheckpointInterval time.Duration
	// GCInterval, if set, is the daemon's history.gc_interval (default
	// 10 min): shorter, a run at 10M–30M rows sees the store's automatic
	// GC and value-log reclaim beside its checkpoints.
	GCInterval time.Duration
	// Render, if set, is called with the report after every phase.
	Render func(*ScaleReport)
	Logf   func(string, ...any)
}

// ScaleCell is one read cell at one cache level: per-operation times.
type ScaleCell struct {
	Name, Level string
	Sidecar     []time.Duration
	Postgres    []time.Duration
	Answer      string // "identical" or what differed
	Note        string
}

// RSSSample is one point of the RSS curve.
type RSSSample struct {
	At     time.Duration // since sampling started (PostgreSQL loaded, before the `\copy` runs)
	Phase  string
	RSS    int64 // VmRSS of the process
	Anon   int64 // its anonymous part (RssAnon): what a cgroup cannot reclaim without swap
	Cgroup int64 // the cgroup's memory usage (-1: none)
	GoHeap int64 // live + unswept heap objects
	Rows   int   // rows of t in the HEAD
}

// ScaleReport is what RunScale measured.
type ScaleReport struct {
	Env                    Env
	Started                time.Time
	Took                   time.Duration
	Rows, Reps             int
	Gets, Ranges           int
	PGVersion              string
	MemoryLimit            string
	SharedBuffers          string
	MaxWalSize             string
	Cgroup                 string
	CgroupMax              int64
	PGLoad                 time.Duration
	PGTotal, PGHeap, PGIdx int64
	CopyText               []time.Duration
	CopyLoads              []string
	CopyHead               time.Duration // daemon start → HEAD ready (serving reads)
	HeadHolds              time.Duration // daemon start → HEAD holds every row (not serving yet)
	CopyPeakRSS            int64
	AfterCopy              MemorySnapshot
	Parts                  []daemon.MemoryPartStatus
	Restart                time.Duration // cold restart → HEAD holds every row
	// RestartHolds is the cold restart's start → HEAD holds every row
	// (Restart waits for `ready` too); Stop the clean stop before it
	// (its shutdown checkpoint); PGRestart PostgreSQL's restart.
	RestartHolds, Stop, PGRestart time.Duration
	// CkptFirst is the footprint's checkpoint (the first after the cold
	// restart: the model restored from the mapped files, warmed, read);
	// CkptUnchanged the one right after it, nothing applied between;
	// CkptIndexFiles the index and key store bytes that one wrote (not
	// linked from the generation before); PGCheckpoint PostgreSQL's
	// CHECKPOINT after the same reads.
	CkptFirst, CkptUnchanged, PGCheckpoint time.Duration
	CkptFirstFiles, CkptUnchangedFiles     int64
	// HeldMapped is the bytes of unlinked HEAD image files the process
	// still mapped after the footprint's checkpoints (their disk space
	// held); CkptReleased the mappings those checkpoints gave back.
	HeldMapped, CkptReleased int64
	Cells                    []*ScaleCell
	ChecksumPG, ChecksumSC   string
	Apply                    []*ScaleCell
	DataDir                  int64
	Samples                  []RSSSample
	Loads                    []string
	Failure                  string
	Phase                    string
	HeadIndex, HeadKeys      int64 // checkpoint bytes
	HeadHeap                 int64
	ProfileFiles             []string
	DaemonLog                string // the daemon's log, kept
	EndLoad                  string
	PeakRSS, PeakCgroup      int64
	PeakAnon                 int64      // largest sampled RssAnon
	Grow                     []GrowStep // the grow mode\'s steps
	GrowMode                 bool
}

// MemorySnapshot is the process's memory after a GC, by part.
type MemorySnapshot struct {
	RSS, RSSAnon, RSSFile int64
	GoHeapObjects         int64 // live heap objects after the GC
	GoTotal               int64 // what the Go runtime holds from the OS
	RadixIndex, KeyStore  int64 // head.Table.IndexBytes
	HeapDecoded, HeapCold int64 // heap.MemoryStats of t
	DecodedPages          int
	ColdPages, DiskPages  int
}

const scaleLoadChunk = 5_000_000

// RunScale runs the benchmark. A failure after PostgreSQL is loaded is
// returned with the report so far (its Failure set).
func RunScale(ctx context.Context, o ScaleOptions) (*ScaleReport, error) {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Render == nil {
		o.Render = func(*ScaleReport) {}
	}
	rep := &ScaleReport{Env: CollectEnv(ctx), Started: time.Now().UTC(), Rows: o.Rows, Reps: o.Reps, Gets: o.Gets, Ranges: o.Ranges,
		MemoryLimit: o.MemoryLimit, SharedBuffers: o.SharedBuffers, MaxWalSize: o.MaxWalSize, Cgroup: o.Cgroup, GrowMode: o.Grow}
	maxWal := o.MaxWalSize
	if maxWal == "" {
		maxWal = "16GB"
	}
	settings := map[string]string{"shared_buffers": o.SharedBuffers, "maintenance_work_mem": "1GB", "work_mem": "64MB",
		"effective_cache_size": "8GB", "max_wal_size": maxWal, "checkpoint_timeout": "30min", "autovacuum": "off"}
	for k, v := range pubSettings {
		if _, ok := settings[k]; !ok {
			settings[k] = v
		}
	}
	scratch, err := os.MkdirTemp(o.Dir, "sidecar-bench-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	pg, err := pgtest.Start(ctx, pgtest.Options{Settings: settings, Logf: o.Logf})
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	defer pg.Stop()
	url, err := pg.CreateDB(ctx, replDB)
	if err != nil {
		return nil, err
	}
	if o.DaemonLog == "" {
		dir := o.Dir
		if dir == "" {
			dir = os.TempDir()
		}
		o.DaemonLog = filepath.Join(dir, "sidecar-bench-scale-"+rep.Started.Format("20060102-150405")+".daemon.log")
	}
	rep.DaemonLog = o.DaemonLog
	o.Logf("daemon log: %s", o.DaemonLog)
	s := &scaleRun{o: o, rep: rep, pg: pg, url: url, scratch: scratch, dataDir: filepath.Join(scratch, "data")}
	defer s.closeConn()
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	if o.Cgroup != "" {
		if err := s.enterCgroup(); err != nil {
			return nil, err
		}
	}
	stopSampler := s.startSampler()
	err = s.phases(ctx)
	stopSampler()
	if err != nil {
		rep.Failure = fmt.Sprintf("in phase %q: %v", rep.Phase, err)
		o.Logf("FAILED %s", rep.Failure)
	}
	if s.sc != nil {
		if serr := s.sc.stop(); serr != nil && err == nil {
			err = serr
		}
	}
	rep.EndLoad = loadAvg()
	rep.Took = time.Since(rep.Started)
	rep.PeakRSS, rep.PeakCgroup, rep.PeakAnon = s.peakRSS.Load(), s.peakCgroup.Load(), s.peakAnon.Load()
	o.Render(rep)
	return rep, err
}

type scaleRun struct {
	o                ScaleOptions
	rep              *ScaleReport
	pg               *pgtest.Cluster
	url              string
	conn, sconn      *pgx.Conn
	scratch, dataDir string
	sc               *sidecarRun
	model            atomic.Pointer[head.Model]
	sqlAddr          string
	cgroupProcs      string // the cgroup we moved into
	homeProcs        string // the cgroup we came from
	started          time.Time
	holds            time.Duration // the last startDaemon's start → HEAD holds every row
	phase            atomic.Value
	mu               sync.Mutex // guards rep.Samples
	peakRSS          atomic.Int64
	peakCgroup       atomic.Int64
	peakAnon         atomic.Int64
	seq              int
	rows             int // rows of t at PostgreSQL (and at HEAD once followed)
	closeOnce        sync.Once
	lastLoggedSample time.Time
}

func (s *scaleRun) setPhase(p string) {
	s.phase.Store(p)
	s.rep.Phase = p
	s.o.Logf("phase %s (load %s, RSS %s)", p, loadAvg(), fmtBytes(processRSSNow()))
}

func (s *scaleRun) closeConn() {
	s.closeOnce.Do(func() {
		if s.conn != nil {
			s.conn.Close(context.Background())
		}
		if s.sconn != nil {
			s.sconn.Close(context.Background())
		}
	})
}

// load creates t without its primary key, fills it in chunks, adds the
// key, vacuums, checkpoints and publishes it.
func (s *scaleRun) load(ctx context.Context) error {
	var err error
	s.conn, err = connectScratch(ctx, s.url, `CREATE TABLE t (id bigint NOT NULL, k text NOT NULL, v text NOT NULL, score int NOT NULL, grp int NOT NULL);
CREATE TABLE marker (id int PRIMARY KEY, tag text);
INSERT INTO marker VALUES (1, 'init');`, &s.rep.PGVersion)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if s.o.Grow {
		for _, q := range []string{"ALTER TABLE t ADD PRIMARY KEY (id)", "CREATE PUBLICATION " + replPub + " FOR TABLE t, marker"} {
			if _, err := s.conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	}
	s.rows = s.o.Rows
	for lo := 1; lo <= s.o.Rows; lo += scaleLoadChunk {
		hi := min(s.o.Rows, lo+scaleLoadChunk-1)
		s.o.Logf("loading rows %d..%d (load %s)", lo, hi, loadAvg())
		if _, err := s.conn.Exec(ctx, `INSERT INTO t SELECT g, 'key-' || lpad(g::text, 8, '0'), 'value-' || g || '-' || md5(g::text),
			((g * 7919) % 1000)::int, (g % 100)::int FROM generate_series($1::bigint, $2::bigint) g`, lo, hi); err != nil {
			return fmt.Errorf("load: %w", err)
		}
	}
	for _, q := range []string{"ALTER TABLE t ADD PRIMARY KEY (id)", "VACUUM (ANALYZE) t", "CHECKPOINT", "CREATE PUBLICATION " + replPub + " FOR TABLE t, marker"} {
		s.o.Logf("%s (load %s)", q, loadAvg())
		if _, err := s.conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	s.rep.PGLoad = time.Since(t0)
	return s.conn.QueryRow(ctx, "SELECT pg_total_relation_size('t'), pg_relation_size('t'), pg_indexes_size('t')").
		Scan(&s.rep.PGTotal, &s.rep.PGHeap, &s.rep.PGIdx)
}

func (s *scaleRun) phases(ctx context.Context) error {
	if s.o.Grow {
		s.setPhase("grow")
		if err := s.grow(ctx); err != nil {
			return err
		}
	} else {
		s.setPhase("copy")
		if err := s.copy(ctx); err != nil {
			return err
		}
	}
	s.o.Render(s.rep)
	s.setPhase("warm reads")
	if err := s.reads(ctx, "warm", s.o.Reps); err != nil {
		return err
	}
	s.o.Render(s.rep)
	if s.o.Cold {
		s.setPhase("cold reads")
		if err := s.cold(ctx); err != nil {
			return err
		}
		s.o.Render(s.rep)
	}
	if s.o.Apply {
		s.setPhase("seed-003 apply")
		if err := s.apply(ctx); err != nil {
			return err
		}
		s.o.Render(s.rep)
	}
	s.setPhase("footprint")
	st, err := s.model.Load().Checkpoint()
	if err != nil {
		return err
	}
	s.rep.CkptFirst, s.rep.CkptFirstFiles = st.Took, int64(st.FileBytes)
	s.o.Logf("checkpoint: %s (index/key bytes written %s, linked %s)", fmtDur(st.Took), fmtBytes(int64(st.FileBytes)), fmtBytes(int64(st.LinkedBytes)))
	st2, err := s.model.Load().Checkpoint()
	if err != nil {
		return err
	}
	s.rep.CkptUnchanged, s.rep.CkptUnchangedFiles = st2.Took, int64(st2.FileBytes)
	s.rep.CkptReleased = st.ReleasedBytes + st2.ReleasedBytes
	s.rep.HeldMapped = heldImageMappings()
	s.o.Logf("mapped image files released %s, unlinked ones still mapped %s", fmtBytes(s.rep.CkptReleased), fmtBytes(s.rep.HeldMapped))
	s.o.Logf("unchanged checkpoint: %s (index/key bytes written %s, linked %s)", fmtDur(st2.Took), fmtBytes(int64(st2.FileBytes)), fmtBytes(int64(st2.LinkedBytes)))
	t0 := time.Now()
	if _, err := s.conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("CHECKPOINT: %w", err)
	}
	s.rep.PGCheckpoint = time.Since(t0)
	s.rep.HeadHeap, s.rep.HeadIndex, s.rep.HeadKeys = int64(st.HeapBytes), int64(st.IndexBytes), int64(st.KeyBytes)
	s.rep.DataDir, err = diskUsage(s.dataDir)
	return err
}

// copy times psql's \copy to /dev/null, then the sidecar's initial copy
// to the HEAD holding every row, and snapshots memory after it.
func (s *scaleRun) copy(ctx context.Context) error {
	for range max(1, min(s.o.Reps, 3)) {
		s.rep.CopyLoads = append(s.rep.CopyLoads, loadAvg())
		d, _, err := psqlCopy(ctx, s.pg, s.url, `\copy t TO '/dev/null'`)
		if err != nil {
			return err
		}
		s.rep.CopyText = append(s.rep.CopyText, d)
		s.o.Logf("\\copy t TO /dev/null: %s", fmtDur(d))
	}
	if err := resetPeakRSS(); err != nil {
		s.o.Logf("%v", err)
	}
	t0 := time.Now()
	if err := s.startDaemon(ctx); err != nil {
		return err
	}
	s.rep.CopyHead = time.Since(t0)
	s.rep.HeadHolds = s.holds
	s.rep.CopyPeakRSS, _ = readPeakRSS()
	s.o.Logf("copy → HEAD holds %d rows: %s, peak RSS %s", s.rows, fmtDur(s.rep.CopyHead), fmtBytes(s.rep.CopyPeakRSS))
	s.rep.AfterCopy = s.snapshot()
	s.writeProfile("after-copy")
	if st, err := s.sc.status(ctx); err == nil && st.Memory != nil {
		s.rep.Parts = st.Memory.Parts
	}
	return nil
}

// startDaemon starts the in-process daemon on s.dataDir and waits until
// its HEAD holds every row and the marker.
func (s *scaleRun) startDaemon(ctx context.Context) error {
	if s.sqlAddr == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		s.sqlAddr = l.Addr().String()
		l.Close()
	}
	cfg, err := sidecarConfigSQL(s.scratch, s.url, "scale", s.dataDir, s.o.MemoryLimit, s.sqlAddr)
	if err != nil {
		return err
	}
	if s.o.CheckpointInterval > 0 {
		cfg.Heap.CheckpointInterval = s.o.CheckpointInterval
	}
	if s.o.GCInterval > 0 {
		cfg.History.GCInterval = s.o.GCInterval
	}
	models := make(chan *head.Model, 1)
	s.started = time.Now()
	sc, err := startSidecarWith(ctx, cfg, s.o.DaemonLog, func(do *daemon.Options) {
		do.OnHead = func(m *head.Model) {
			s.model.Store(m)
			models <- m
		}
	})
	if err != nil {
		return err
	}
	s.sc = sc
	var model *head.Model
	select {
	case model = <-models:
	case <-ctx.Done():
		return ctx.Err()
	}
	for model.Len("public.t") != s.rows {
		if err := sc.failed(); err != nil {
			return err
		}
		if err := sleepCtx(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
	if _, err := waitReadyEvery(ctx, sc, 50*time.Millisecond); err != nil {
		return err
	}
	s.holds = time.Since(s.started)
	// The HEAD serves reads once it is ready (its copied tables'
	// batches applied): until then the SQL port reads the trees.
	for {
		st, err := sc.status(ctx)
		if err == nil && st.Head != nil && st.Head.Phase == "ready" {
			break
		}
		if err := sc.failed(); err != nil {
			return err
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	if s.sconn != nil {
		s.sconn.Close(context.Background())
	}
	s.sconn, err = pgx.Connect(ctx, "postgres://bench@"+s.sqlAddr+"/bench?sslmode=disable")
	if err != nil {
		return fmt.Errorf("connect to the SQL port: %w", err)
	}
	return nil
}

// snapshot collects garbage and reads the memory by part.
func (s *scaleRun) snapshot() MemorySnapshot {
	runtime.GC()
	var ms MemorySnapshot
	ms.RSS = processRSSNow()
	ms.RSSAnon, ms.RSSFile = readRSSSplit()
	smp := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(smp)
	ms.GoHeapObjects = int64(smp[0].Value.Uint64())
	ms.GoTotal = int64(smp[1].Value.Uint64() - smp[2].Value.Uint64())
	if m := s.model.Load(); m != nil {
		if t := m.Table("public.t"); t != nil {
			ix, keys := t.IndexBytes()
			ms.RadixIndex, ms.KeyStore = int64(ix), int64(keys)
			hm := t.Heap().Memory()
			ms.HeapDecoded, ms.HeapCold = hm.DecodedBytes, hm.ColdBytes
			ms.DecodedPages, ms.ColdPages, ms.DiskPages = hm.DecodedPages, hm.ColdPages, hm.DiskPages
		}
	}
	s.o.Logf("memory after GC: RSS %s (anon %s, file %s), Go heap objects %s, Go total %s, radix index %s, key store %s, heap decoded %s (%d pages), cold %s (%d pages, %d on disk)",
		fmtBytes(ms.RSS), fmtBytes(ms.RSSAnon), fmtBytes(ms.RSSFile), fmtBytes(ms.GoHeapObjects), fmtBytes(ms.GoTotal), fmtBytes(ms.RadixIndex), fmtBytes(ms.KeyStore),
		fmtBytes(ms.HeapDecoded), ms.DecodedPages, fmtBytes(ms.HeapCold), ms.ColdPages, ms.DiskPages)
	return ms
}

// writeProfile writes a heap profile named name into ProfileDir.
func (s *scaleRun) writeProfile(name string) {
	if s.o.ProfileDir == "" {
		return
	}
	path := filepath.Join(s.o.ProfileDir, "heap-"+name+".pprof")
	f, err := os.Create(path)
	if err != nil {
		s.o.Logf("heap profile: %v", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		s.o.Logf("heap profile: %v", err)
		return
	}
	s.rep.ProfileFiles = append(s.rep.ProfileFiles, path)
	s.o.Logf("wrote %s", path)
}

// startSampler samples the RSS curve every second (logged every 10 s and
// at every new 256 MiB step, with a heap profile at every new 512 MiB
// step) until stop.
func (s *scaleRun) startSampler() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	t0 := time.Now()
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		var lastStep int64
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			anon, file := readRSSSplit()
			smp := RSSSample{At: time.Since(t0), RSS: anon + file, Anon: anon, Cgroup: s.cgroupUsage()}
			if anon > s.peakAnon.Load() {
				s.peakAnon.Store(anon)
			}
			if p, ok := s.phase.Load().(string); ok {
				smp.Phase = p
			}
			ms := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			metrics.Read(ms)
			smp.GoHeap = int64(ms[0].Value.Uint64())
			if m := s.model.Load(); m != nil {
				smp.Rows = m.Len("public.t")
			}
			if smp.RSS > s.peakRSS.Load() {
				s.peakRSS.Store(smp.RSS)
			}
			if smp.Cgroup > s.peakCgroup.Load() {
				s.peakCgroup.Store(smp.Cgroup)
			}
			s.mu.Lock()
			s.rep.Samples = append(s.rep.Samples, smp)
			s.mu.Unlock()
			step := smp.RSS >> 28
			if time.Since(s.lastLoggedSample) >= 10*time.Second || step > lastStep {
				s.lastLoggedSample = time.Now()
				s.o.Logf("rss t=%s phase=%q rss=%s anon=%s cgroup=%s goheap=%s rows=%d load=%s", fmtDur(smp.At), smp.Phase, fmtBytes(smp.RSS), fmtBytes(smp.Anon), fmtBytes(smp.Cgroup), fmtBytes(smp.GoHeap), smp.Rows, loadAvg())
			}
			if step > lastStep && step%2 == 0 && step >= 4 {
				s.writeProfile(fmt.Sprintf("rss-%dMiB", step<<8))
			}
			lastStep = max(lastStep, step)
		}
	}()
	return func() { close(done); wg.Wait() }
}

// processRSSNow is the process's resident set (RssAnon + RssFile).
func processRSSNow() int64 {
	anon, file := readRSSSplit()
	return anon + file
}

// enterCgroup moves this process into the memory cgroup o.Cgroup,
// remembering the one it left (for PostgreSQL's restarts).
func (s *scaleRun) enterCgroup() error {
	home, err := ownMemoryCgroup()
	if err != nil {
		return err
	}
	s.homeProcs = filepath.Join(home, "cgroup.procs")
	s.cgroupProcs = filepath.Join(s.o.Cgroup, "cgroup.procs")
	for _, f := range []string{"memory.max", "memory.limit_in_bytes"} {
		if b, err := os.ReadFile(filepath.Join(s.o.Cgroup, f)); err == nil {
			s.rep.CgroupMax, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		}
	}
	if err := os.WriteFile(s.cgroupProcs, []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
		return fmt.Errorf("enter cgroup %s: %w", s.o.Cgroup, err)
	}
	s.o.Logf("moved into cgroup %s (limit %s), from %s", s.o.Cgroup, fmtBytes(s.rep.CgroupMax), home)
	return nil
}

// ownMemoryCgroup is the directory of this process's memory cgroup (v1's
// memory controller, else v2's unified hierarchy).
func ownMemoryCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var v2 string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "memory" {
				return filepath.Join("/sys/fs/cgroup/memory", f[2]), nil
			}
		}
		if f[0] == "0" && f[1] == "" {
			v2 = filepath.Join("/sys/fs/cgroup", f[2])
		}
	}
	if v2 == "" {
		return "", errors.New("no memory cgroup in /proc/self/cgroup")
	}
	return v2, nil
}

// cgroupUsage is the cap cgroup's memory use (-1: none).
func (s *scaleRun) cgroupUsage() int64 {
	if s.o.Cgroup == "" {
		return -1
	}
	for _, f := range []string{"memory.current", "memory.usage_in_bytes"} {
		if b, err := os.ReadFile(filepath.Join(s.o.Cgroup, f)); err == nil {
			n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			return n
		}
	}
	return -1
}

// restartPostgres restarts PostgreSQL outside the cap cgroup (its
// postmaster must not be charged to it) and drops its files from the OS
// page cache.
func (s *scaleRun) restartPostgres(ctx context.Context) error {
	s.closeConn()
	if s.cgroupProcs != "" {
		if err := os.WriteFile(s.homeProcs, []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			return fmt.Errorf("leave cgroup: %w", err)
		}
	}
	err := s.pg.Restart(ctx)
	if s.cgroupProcs != "" {
		if werr := os.WriteFile(s.cgroupProcs, []byte(strconv.Itoa(os.Getpid())), 0); werr != nil && err == nil {
			err = fmt.Errorf("re-enter cgroup: %w", werr)
		}
	}
	if err != nil {
		return err
	}
	dropFileCache(s.pg.Dir())
	s.closeOnce = sync.Once{}
	c, err := pgx.Connect(ctx, s.url)
	if err != nil {
		return err
	}
	s.conn = c
	sc, err := pgx.Connect(ctx, "postgres://bench@"+s.sqlAddr+"/bench?sslmode=disable")
	if err != nil {
		return err
	}
	s.sconn = sc
	return nil
}

// dropFileCache asks the kernel to drop dir's files from its page cache
// (posix_fadvise DONTNEED per file: only the benchmark's files, not the
// machine's whole cache).
func dropFileCache(dir string) {
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		f.Close()
		return nil
	})
}

// scaleQuery is one read cell's work on one side: run does the cell's
// operations on conn and returns the time per operation and the answer.
type scaleQuery struct {
	name, note string
	run        func(ctx context.Context, conn *pgx.Conn, keys []int) (time.Duration, string, error)
}

func (s *scaleRun) queries() []scaleQuery {
	qs := s.allQueries()
	if !s.o.Join {
		qs = slices.DeleteFunc(qs, func(q scaleQuery) bool { return strings.HasPrefix(q.name, "join.") })
	}
	return qs
}

func (s *scaleRun) allQueries() []scaleQuery {
	n := s.rows
	return []scaleQuery{
		{"select.pk (point get)", "`SELECT id, k, v, score, grp FROM t WHERE id = $1`, random keys, per get", func(ctx context.Context, c *pgx.Conn, keys []int) (time.Duration, string, error) {
			var sum int64
			t0 := time.Now()
			for _, k := range keys[:s.o.Gets] {
				var id int64
				var kk, v string
				var score, grp int32
				if err := c.QueryRow(ctx, "SELECT id, k, v, score, grp FROM t WHERE id = $1", k).Scan(&id, &kk, &v, &score, &grp); err != nil {
					return 0, "", fmt.Errorf("get %d: %w", k, err)
				}
				sum += id + int64(score) + int64(len(v))
			}
			return time.Since(t0) / time.Duration(s.o.Gets), strconv.FormatInt(sum, 10), nil
		}},
		{"select.range (10k keys)", "`SELECT id, k, v, score, grp FROM t WHERE id BETWEEN $1 AND $1 + 9999 ORDER BY id`, every value read, per range", func(ctx context.Context, c *pgx.Conn, keys []int) (time.Duration, string, error) {
			var sum int64
			t0 := time.Now()
			for _, k := range keys[:s.o.Ranges] {
				from := 1 + k%(n-10_000)
				rows, err := c.Query(ctx, "SELECT id, k, v, score, grp FROM t WHERE id BETWEEN $1 AND $1 + 9999 ORDER BY id", from)
				if err != nil {
					return 0, "", err
				}
				cnt := 0
				for rows.Next() {
					var id int64
					var kk, v string
					var score, grp int32
					if err := rows.Scan(&id, &kk, &v, &score, &grp); err != nil {
						rows.Close()
						return 0, "", err
					}
					sum += id + int64(score)
					cnt++
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return 0, "", err
				}
				if cnt != 10_000 {
					return 0, "", fmt.Errorf("range from %d: %d rows", from, cnt)
				}
			}
			return time.Since(t0) / time.Duration(s.o.Ranges), strconv.FormatInt(sum, 10), nil
		}},
		{"correctness.checksum (count + sum)", "`SELECT count(*), sum(score) FROM t` (the seed's count:sum checksum)", func(ctx context.Context, c *pgx.Conn, _ []int) (time.Duration, string, error) {
			var cnt int64
			var sum string
			t0 := time.Now()
			if err := c.QueryRow(ctx, "SELECT count(*), sum(score)::text FROM t").Scan(&cnt, &sum); err != nil {
				return 0, "", err
			}
			return time.Since(t0), fmt.Sprintf("%d:%s", cnt, sum), nil
		}},
		{"aggregate.group_having", "`SELECT grp, count(*), sum(score), min(id) FROM t GROUP BY grp HAVING sum(score) % 7 <> 0 ORDER BY grp` (100 groups)", func(ctx context.Context, c *pgx.Conn, _ []int) (time.Duration, string, error) {
			t0 := time.Now()
			rows, err := c.Query(ctx, "SELECT grp, count(*), sum(score)::text, min(id) FROM t GROUP BY grp HAVING sum(score) % 7 <> 0 ORDER BY grp")
			if err != nil {
				return 0, "", err
			}
			var b strings.Builder
			for rows.Next() {
				var g int32
				var cnt, mn int64
				var sum string
				if err := rows.Scan(&g, &cnt, &sum, &mn); err != nil {
					rows.Close()
					return 0, "", err
				}
				fmt.Fprintf(&b, "%d,%d,%s,%d;", g, cnt, sum, mn)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return 0, "", err
			}
			return time.Since(t0), b.String(), nil
		}},
		{"join.hash (10M probe, 1M build)", "`SELECT a.grp, count(*), sum(b.score) FROM t a JOIN t b ON b.id = a.id + 1 WHERE a.score < 100 GROUP BY a.grp ORDER BY a.grp`: a join over every row (the memory of a join's working set)", func(ctx context.Context, c *pgx.Conn, _ []int) (time.Duration, string, error) {
			t0 := time.Now()
			rows, err := c.Query(ctx, "SELECT a.grp, count(*), sum(b.score)::text FROM t a JOIN t b ON b.id = a.id + 1 WHERE a.score < 100 GROUP BY a.grp ORDER BY a.grp")
			if err != nil {
				return 0, "", err
			}
			var b strings.Builder
			for rows.Next() {
				var g int32
				var cnt int64
				var sum string
				if err := rows.Scan(&g, &cnt, &sum); err != nil {
					rows.Close()
					return 0, "", err
				}
				fmt.Fprintf(&b, "%d,%d,%s;", g, cnt, sum)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return 0, "", err
			}
			return time.Since(t0), b.String(), nil
		}},
	}
}

// cell finds or adds the cell name at level.
func (s *scaleRun) cell(q scaleQuery, level string) *ScaleCell {
	for _, c := range s.rep.Cells {
		if c.Name == q.name && c.Level == level {
			return c
		}
	}
	c := &ScaleCell{Name: q.name, Level: level, Note: q.note, Answer: "identical"}
	s.rep.Cells = append(s.rep.Cells, c)
	return c
}

// pair runs q on both sides, the sidecar first when scFirst, and records
// the times and whether the answers agree.
func (s *scaleRun) pair(ctx context.Context, q scaleQuery, level string, keys []int, scFirst bool) error {
	c := s.cell(q, level)
	var pgT, scT time.Duration
	var pgA, scA string
	var err error
	sides := []func() error{
		func() error { pgT, pgA, err = q.run(ctx, s.conn, keys); return wrap("PostgreSQL", err) },
		func() error { scT, scA, err = q.run(ctx, s.sconn, keys); return wrap("sidecar", err) },
	}
	if scFirst {
		sides[0], sides[1] = sides[1], sides[0]
	}
	sw := readSched()
	for _, f := range sides {
		if err := f(); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			// A refusal or failure of one statement (a join past
			// memory.query: 53200) is the cell's finding, not the run's end.
			c.Answer = fmt.Sprintf("error: %.120s", err)
			s.o.Logf("%s %s: %v (load %s, RSS %s)", level, q.name, err, loadAvg(), fmtBytes(processRSSNow()))
			return nil
		}
	}
	c.Postgres, c.Sidecar = append(c.Postgres, pgT), append(c.Sidecar, scT)
	if pgA != scA {
		c.Answer = fmt.Sprintf("differs: PostgreSQL %.60s, sidecar %.60s", pgA, scA)
	}
	if strings.HasPrefix(q.name, "correctness") {
		s.rep.ChecksumPG, s.rep.ChecksumSC = pgA, scA
	}
	s.o.Logf("%s %s: PostgreSQL %s, sidecar %s (%s; load %s, RSS %s; %s; %s)", level, q.name, fmtDur(pgT), fmtDur(scT), c.Answer, loadAvg(), fmtBytes(processRSSNow()), s.headReads(ctx), sw.since())
	return nil
}

// headReads says where the daemon's reads went so far (status.head's
// counters): a cell read from the trees while the HEAD is ready is a
// finding, not a HEAD figure.
func (s *scaleRun) headReads(ctx context.Context) string {
	st, err := s.sc.status(ctx)
	if err != nil || st.Head == nil {
		return fmt.Sprintf("head status: %v", err)
	}
	var served int64
	var ckpt bool
	if m := s.model.Load(); m != nil {
		served, ckpt = m.Served(), m.Checkpointing()
	}
	return fmt.Sprintf("head %s: reads_head %d, reads_tree %d, served %d, checkpoint running %v", st.Head.Phase, st.Head.ReadsHead, st.Head.ReadsTree, served, ckpt)
}

func wrap(side string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", side, err)
}

// keys are the random keys of one repetition.
func (s *scaleRun) keys(rep int) []int {
	rng := rand.New(rand.NewPCG(24, uint64(rep)))
	ks := make([]int, max(s.o.Gets, s.o.Ranges))
	for i := range ks {
		ks[i] = 1 + rng.IntN(s.rows)
	}
	return ks
}

// reads runs every read cell reps times, alternating which side goes
// first.
func (s *scaleRun) reads(ctx context.Context, level string, reps int) error {
	for i := range reps {
		s.rep.Loads = append(s.rep.Loads, level+" "+loadAvg())
		keys := s.keys(i)
		if i == 0 && s.o.ProfileDir != "" {
			// What else ran on the CPUs during the first repetition (after
			// the copy: its checkpoint) is the cells' competition.
			stop := s.cpuProfile(level + "-reads")
			defer stop()
		}
		for _, q := range s.queries() {
			if err := s.pair(ctx, q, level, keys, i%2 == 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// cold restarts the sidecar (its data directory dropped from the OS page
// cache) and PostgreSQL (its files dropped too, shared_buffers empty),
// then runs each read cell once per side: the first query after a restart.
func (s *scaleRun) cold(ctx context.Context) error {
	t0 := time.Now()
	if err := s.sc.stop(); err != nil {
		return err
	}
	s.rep.Stop = time.Since(t0)
	s.sc = nil
	s.model.Store(nil)
	runtime.GC()
	dropFileCache(s.dataDir)
	t0 = time.Now()
	if err := s.startDaemon(ctx); err != nil {
		return err
	}
	s.rep.Restart = time.Since(t0)
	s.rep.RestartHolds = s.holds
	s.o.Logf("sidecar stopped in %s, restarted: HEAD holds every row after %s, ready after %s", fmtDur(s.rep.Stop), fmtDur(s.holds), fmtDur(s.rep.Restart))
	t0 = time.Now()
	if err := s.restartPostgres(ctx); err != nil {
		return err
	}
	s.rep.PGRestart = time.Since(t0)
	keys := s.keys(99)
	for _, q := range s.queries() {
		if err := s.pair(ctx, q, "cold", keys, true); err != nil {
			return err
		}
	}
	return nil
}

// apply is the seed-003 workload once: UPDATE of the first half and
// DELETE of the first fifth (PostgreSQL's statement vs the sidecar's
// commit → applied at HEAD), then VACUUM vs the heap's incremental
// compaction and VACUUM FULL vs the full compaction.
func (s *scaleRun) apply(ctx context.Context) error {
	r := &readsRun{o: ReadsOptions{Rows: s.rows}, conn: s.conn, sc: s.sc, model: s.model.Load(), rep: &ReadsReport{}}
	var err error
	if r.markerKey, err = markerKeyInt4(); err != nil {
		return err
	}
	r.seq = 1000
	n := s.rows
	upd := &ScaleCell{Name: fmt.Sprintf("UPDATE t SET score = score + 10 WHERE id <= %s", fmtRecords(n/2)), Note: "PostgreSQL: statement + commit; sidecar: commit returned → applied at HEAD (tree, heap, index)"}
	del := &ScaleCell{Name: fmt.Sprintf("DELETE FROM t WHERE id <= %s", fmtRecords(n/5)), Note: "as above"}
	vac := &ScaleCell{Name: "VACUUM t vs incremental compaction (Heap.Vacuum)", Note: "after the DELETE"}
	full := &ScaleCell{Name: "VACUUM FULL t vs full compaction (Model.CompactTable)", Note: "heap rewrite + index repointed"}
	s.rep.Apply = []*ScaleCell{upd, del, vac, full}
	s.rep.Loads = append(s.rep.Loads, "apply "+loadAvg())
	for _, step := range []struct {
		c    *ScaleCell
		stmt string
	}{{upd, fmt.Sprintf("UPDATE t SET score = score + 10 WHERE id <= %d", n/2)}, {del, fmt.Sprintf("DELETE FROM t WHERE id <= %d", n/5)}} {
		pgT, tag, err := r.commit(ctx, step.stmt)
		if err != nil {
			return err
		}
		t0 := time.Now()
		if err := r.waitApplied(ctx, tag); err != nil {
			return err
		}
		step.c.Postgres, step.c.Sidecar = append(step.c.Postgres, pgT), append(step.c.Sidecar, time.Since(t0))
		s.o.Logf("%s: PostgreSQL %s, sidecar %s (load %s, RSS %s)", step.c.Name, fmtDur(pgT), fmtDur(step.c.Sidecar[0]), loadAvg(), fmtBytes(processRSSNow()))
	}
	d, err := r.exec(ctx, "VACUUM t")
	if err != nil {
		return err
	}
	t0 := time.Now()
	r.model.Table("public.t").Heap().Vacuum()
	vac.Postgres, vac.Sidecar = append(vac.Postgres, d), append(vac.Sidecar, time.Since(t0))
	if d, err = r.exec(ctx, "VACUUM FULL t"); err != nil {
		return err
	}
	st, err := r.model.CompactTable("public.t")
	if err != nil {
		return err
	}
	full.Postgres, full.Sidecar = append(full.Postgres, d), append(full.Sidecar, st.Took)
	s.o.Logf("VACUUM %s vs %s; VACUUM FULL %s vs %s", fmtDur(vac.Postgres[0]), fmtDur(vac.Sidecar[0]), fmtDur(d), fmtDur(st.Took))
	if got, want := r.model.Len("public.t"), n-n/5; got != want {
		return fmt.Errorf("after the DELETE the HEAD holds %d rows, want %d", got, want)
	}
	return nil
}

// GrowStep is one 1M-row transaction of the grow mode: when the HEAD held
// its rows and the process's RSS then.
type GrowStep struct {
	Rows    int
	At      time.Duration // since the daemon started
	RSS     int64
	Applied time.Duration // its COMMIT → applied at HEAD
}

// grow starts the daemon on the empty table, then inserts 1M-row
// transactions (the next one committed while the HEAD applies the one
// before) until Rows or GrowUntil, and snapshots memory at the end.
func (s *scaleRun) grow(ctx context.Context) error {
	if err := s.startDaemon(ctx); err != nil {
		return err
	}
	r := &readsRun{conn: s.conn, sc: s.sc, model: s.model.Load(), rep: &ReadsReport{}}
	var err error
	if r.markerKey, err = markerKeyInt4(); err != nil {
		return err
	}
	r.seq = 100_000
	const chunk = 1_000_000
	type pending struct {
		tag       string
		hi        int
		committed time.Time
	}
	var prev *pending
	wait := func(p *pending) error {
		if err := r.waitApplied(ctx, p.tag); err != nil {
			return err
		}
		s.rows = p.hi
		st := GrowStep{Rows: p.hi, At: time.Since(s.started), RSS: processRSSNow(), Applied: time.Since(p.committed)}
		s.rep.Grow = append(s.rep.Grow, st)
		s.o.Logf("grow: HEAD holds %d rows, RSS %s, %s after its COMMIT (load %s)", st.Rows, fmtBytes(st.RSS), fmtDur(st.Applied), loadAvg())
		if len(s.rep.Grow)%10 == 0 {
			s.o.Render(s.rep)
		}
		return nil
	}
	for lo := 1; lo <= s.o.Rows; lo += chunk {
		if !s.o.GrowUntil.IsZero() && time.Now().After(s.o.GrowUntil) {
			s.o.Logf("grow: stopping at %d rows (deadline)", s.rows)
			break
		}
		hi := min(s.o.Rows, lo+chunk-1)
		_, tag, err := r.commit(ctx, fmt.Sprintf(`INSERT INTO t SELECT g, 'key-' || lpad(g::text, 8, '0'), 'value-' || g || '-' || md5(g::text),
			((g * 7919) %% 1000)::int, (g %% 100)::int FROM generate_series(%d::bigint, %d) g`, lo, hi))
		if err != nil {
			return err
		}
		cur := &pending{tag: tag, hi: hi, committed: time.Now()}
		if prev != nil {
			if err := wait(prev); err != nil {
				return err
			}
		}
		prev = cur
	}
	if prev != nil {
		if err := wait(prev); err != nil {
			return err
		}
	}
	s.rep.Rows = s.rows
	s.rep.AfterCopy = s.snapshot()
	s.writeProfile("after-grow")
	if st, err := s.sc.status(ctx); err == nil && st.Memory != nil {
		s.rep.Parts = st.Memory.Parts
	}
	return s.conn.QueryRow(ctx, "SELECT pg_total_relation_size('t'), pg_relation_size('t'), pg_indexes_size('t')").
		Scan(&s.rep.PGTotal, &s.rep.PGHeap, &s.rep.PGIdx)
}

// heldImageMappings is the bytes of the process's mappings of HEAD image
// files whose inode no name in their directory has any more (their disk
// space held by the mapping alone). /proc/self/maps says "(deleted)" once
// the name mapped is unlinked, even when the inode lives on under another
// name (a part linked into a later generation): those are not counted.
func heldImageMappings() int64 {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return -1
	}
	live := map[string]map[uint64]bool{} // directory → inodes named in it
	inodes := func(dir string) map[uint64]bool {
		if m, ok := live[dir]; ok {
			return m
		}
		m := map[uint64]bool{}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					m[st.Ino] = true
				}
			}
		}
		live[dir] = m
		return m
	}
	var n int64
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 7 || !strings.Contains(l, "/headimages/") || !strings.HasSuffix(l, "(deleted)") {
			continue
		}
		ino, err := strconv.ParseUint(f[4], 10, 64)
		if err != nil || inodes(filepath.Dir(f[5]))[ino] {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		z, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil && z > a {
			n += int64(z - a)
		}
	}
	return n
}

// cpuProfile profiles the process's CPU to <ProfileDir>/<name>.cpu.pprof
// until stop is called (nothing when a profile is running already).
func (s *scaleRun) cpuProfile(name string) (stop func()) {
	f, err := os.Create(filepath.Join(s.o.ProfileDir, name+".cpu.pprof"))
	if err != nil {
		s.o.Logf("cpu profile: %v", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		s.o.Logf("cpu profile: %v", err)
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
