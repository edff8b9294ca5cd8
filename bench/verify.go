package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/verify"
	"github.com/sidecar-dev/sidecar/wal"
)

// VerifyOptions configure RunVerify (issue #6's benchmark).
type VerifyOptions struct {
	// Rows in the table (default 10M).
	Rows int
	// Reps is how many times each cell runs (default 3).
	Reps int
	// Diffs are the numbers of differing rows measured (default 1, 100,
	// 1000).
	Diffs []int
	// Dir holds the mirror's data directory (default the system temp dir).
	Dir  string
	Logf func(format string, args ...any)
}

func (o VerifyOptions) withDefaults() VerifyOptions {
	if o.Rows <= 0 {
		o.Rows = 10_000_000
	}
	if o.Reps <= 0 {
		o.Reps = 3
	}
	if o.Diffs == nil {
		o.Diffs = []int{1, 100, 1000}
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// VerifyCell is one measured operation, once per repetition.
type VerifyCell struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Wall is the elapsed time; PGCPU the CPU time of the PostgreSQL
	// backend that ran the queries (/proc/<pid>/stat); GoCPU this
	// process's CPU time (the sidecar's side), where it matters.
	Wall  []time.Duration `json:"wall_ns"`
	PGCPU []time.Duration `json:"pg_cpu_ns"`
	GoCPU []time.Duration `json:"go_cpu_ns,omitempty"`
	// For sidecar verify: level-0 buckets, dirty buckets and differing
	// rows found (last repetition).
	// DirtyWall is the time verify spent on the dirty buckets (leaf step
	// and differing rows), measured inside the run.
	DirtyWall   []time.Duration `json:"dirty_wall_ns,omitempty"`
	Buckets     int             `json:"buckets,omitempty"`
	Dirty       int             `json:"dirty,omitempty"`
	Differences int             `json:"differences,omitempty"`
}

// VerifyReport is the outcome of RunVerify.
type VerifyReport struct {
	Started   time.Time     `json:"started"`
	Env       Env           `json:"env"`
	PGVersion string        `json:"pg_version"`
	Settings  string        `json:"pg_settings"`
	Rows      int           `json:"rows"`
	Reps      int           `json:"reps"`
	Load      time.Duration `json:"load_ns"`
	Copy      time.Duration `json:"copy_ns"`
	Cells     []*VerifyCell `json:"cells"`
}

// Cell returns the cell with id, or nil.
func (r *VerifyReport) Cell(id string) *VerifyCell {
	for _, c := range r.Cells {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (r *VerifyReport) cell(id, name string) *VerifyCell {
	if c := r.Cell(id); c != nil {
		return c
	}
	c := &VerifyCell{ID: id, Name: name}
	r.Cells = append(r.Cells, c)
	return c
}

// verifySettings are the cluster's settings: verify.md §3's (cached
// table, serial plans so backend CPU is the whole cost).
var verifySettings = map[string]string{
	"shared_buffers":                  "2GB",
	"work_mem":                        "64MB",
	"max_wal_size":                    "8GB",
	"max_parallel_workers_per_gather": "0",
}

// RunVerify measures, on a throwaway cluster and a table of o.Rows rows
// shaped like verify.md §3's (id bigint PK, k text, v text, score int),
// mirrored by the sidecar (initial copy, then a live stream):
// PostgreSQL's own level-0 bucketed-hash scan (the query verify sends,
// alone), `sidecar verify` end to end (pin, catch-up, both sides' level
// 0, leaf step), a data-diff-style md5 comparison of the PostgreSQL side,
// and `sidecar verify` with k rows changed behind the mirror's back.
func RunVerify(ctx context.Context, o VerifyOptions) (_ *VerifyReport, err error) {
	o = o.withDefaults()
	rep := &VerifyReport{Started: time.Now().UTC(), Env: CollectEnv(ctx), Rows: o.Rows, Reps: o.Reps}
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(verifySettings)) {
		keys = append(keys, k+"="+verifySettings[k])
	}
	rep.Settings = strings.Join(keys, ", ")
	cluster, err := pgtest.Start(ctx, pgtest.Options{Settings: verifySettings, Logf: o.Logf})
	if err != nil {
		return nil, err
	}
	defer func() {
		if serr := cluster.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	url, err := cluster.CreateDB(ctx, "verifybench")
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&rep.PGVersion); err != nil {
		return nil, err
	}
	start := time.Now()
	for _, sql := range []string{
		`CREATE TABLE t (id bigint, k text, v text, score int)`,
		fmt.Sprintf(`INSERT INTO t SELECT i, left(md5(i::text), 24), left(md5((i+1)::text)||'x', 27), (hashint8(i)&1023)::int FROM generate_series(1, %d) i`, o.Rows),
		`ALTER TABLE t ADD PRIMARY KEY (id)`,
		`VACUUM (ANALYZE, FREEZE) t`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return nil, fmt.Errorf("load: %s: %w", sql, err)
		}
	}
	rep.Load = time.Since(start)
	o.Logf("loaded %d rows in %v", o.Rows, rep.Load)

	sc, err := startVerifySidecar(ctx, url, o.Dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := sc.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	rep.Copy = sc.copy
	o.Logf("copied into the mirror in %v", sc.copy)

	b := &verifyBench{o: o, url: url, conn: conn, sc: sc, rep: rep}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	return rep, nil
}

// verifySidecar is the mirror, fed by a live stream.
type verifySidecar struct {
	db   *store.DB
	m    *mirror.Mirror
	run  *follow.Running
	copy time.Duration
}

func startVerifySidecar(ctx context.Context, url, dir string) (_ *verifySidecar, err error) {
	sc := &verifySidecar{}
	start := time.Now()
	dataDir, err := os.MkdirTemp(dir, "sidecar-verify-bench-")
	if err != nil {
		return nil, err
	}
	if sc.db, err = store.Open(store.Options{Dir: dataDir}); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			sc.close()
		}
	}()
	filter := wal.NewCopiedAt()
	if sc.m, err = mirror.Open(ctx, mirror.Options{DB: sc.db, CopiedAt: filter, TempDir: dataDir}); err != nil {
		return nil, err
	}
	sc.run, err = follow.Start(ctx, follow.Config{ConnString: url, Slot: "main", Publication: "pub",
		Tables: []wal.TableName{{Schema: "public", Name: "t"}}, Target: sc.m, CopiedAt: filter, DataDir: dataDir,
		Copy: replication.CopyOptions{Workers: 2}})
	if err != nil {
		return nil, fmt.Errorf("follow: %w", err)
	}
	sc.copy = time.Since(start)
	return sc, nil
}

func (sc *verifySidecar) close() error {
	var errs []error
	if sc.run != nil {
		errs = append(errs, sc.run.Stop())
		sc.run = nil
	}
	if sc.m != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		errs = append(errs, sc.m.Close(ctx))
		cancel()
		sc.m = nil
	}
	if sc.db != nil {
		errs = append(errs, sc.db.Close())
		sc.db = nil
	}
	return errors.Join(errs...)
}

type verifyBench struct {
	o    VerifyOptions
	url  string
	conn *pgx.Conn
	sc   *verifySidecar
	rep  *VerifyReport
}

func (b *verifyBench) runner(pids *backendSet) *verify.Runner {
	return &verify.Runner{ConnString: b.url, Mirror: b.sc.m, Publication: "pub", Slot: "main",
		Progress: verify.StreamProgress(b.sc.run.Streamer().Stats), CatchUpTimeout: 2 * time.Minute, MaxRowDiffs: 10_000,
		OnPin:     func(p *verify.Pinned) { pids.add(p.Conn().PID()) },
		OnWorkers: func(_ string, ps []uint32) { pids.add(ps...) }}
}

// backendSet is the PostgreSQL backends of one verification (the pinned
// connection and the parallel level-0 workers) and the last CPU time
// sampled for each: backends exit with the run, so they are sampled while
// it runs and the last samples summed.
type backendSet struct {
	mu  sync.Mutex
	cpu map[uint32]time.Duration
}

func (s *backendSet) add(pids ...uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cpu == nil {
		s.cpu = map[uint32]time.Duration{}
	}
	for _, p := range pids {
		if _, ok := s.cpu[p]; !ok {
			s.cpu[p] = 0
		}
	}
}

// sample reads every live backend's CPU time; an exited one keeps its last.
func (s *backendSet) sample() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.cpu {
		if d, err := backendCPU(p); err == nil {
			s.cpu[p] = d
		}
	}
}

func (s *backendSet) total() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t time.Duration
	for _, d := range s.cpu {
		t += d
	}
	return t
}

func (b *verifyBench) run(ctx context.Context) error {
	// A first verification warms both sides' caches and must be equal.
	if _, err := b.sidecarVerify(ctx, "", "", 0); err != nil {
		return err
	}
	for rep := range b.o.Reps {
		b.o.Logf("repetition %d", rep+1)
		if err := b.pgLevel0(ctx); err != nil {
			return err
		}
		if _, err := b.sidecarVerify(ctx, "verify", "sidecar verify, 0 differing rows", 0); err != nil {
			return err
		}
		if err := b.dataDiff(ctx); err != nil {
			return err
		}
		for _, k := range b.o.Diffs {
			if err := b.hiddenChange(ctx, k, 1_000_000); err != nil {
				return err
			}
			if _, err := b.sidecarVerify(ctx, fmt.Sprintf("verify-%d", k), fmt.Sprintf("sidecar verify, %d differing rows", k), k); err != nil {
				return err
			}
			if err := b.hiddenChange(ctx, k, -1_000_000); err != nil {
				return err
			}
		}
	}
	_, err := b.sidecarVerify(ctx, "", "", 0)
	return err
}

// canonicalConn opens an ordinary connection with verify's session
// settings.
func (b *verifyBench) canonicalConn(ctx context.Context) (*pgconn.PgConn, error) {
	cfg, err := pgconn.ParseConfig(b.url)
	if err != nil {
		return nil, err
	}
	maps.Copy(cfg.RuntimeParams, rowenc.SessionParams())
	return pgconn.ConnectConfig(ctx, cfg)
}

// pgLevel0 times the level-0 query verify would send for an integer key
// (fixed-width 512-key buckets, pghash64), alone on a fresh connection:
// PostgreSQL's own bucketed-hash scan.
func (b *verifyBench) pgLevel0(ctx context.Context) error {
	c, err := b.canonicalConn(ctx)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	t, err := verify.LoadTable(ctx, c, "public", "t")
	if err != nil {
		return err
	}
	q, err := verify.BucketDigestQuery(t, rowhash.PGHash64, 512)
	if err != nil {
		return err
	}
	cpu0, err := backendCPU(c.PID())
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := c.Exec(ctx, q).ReadAll()
	wall := time.Since(start)
	if err == nil && (len(res) != 1 || res[0].Err != nil) {
		err = fmt.Errorf("level 0: %d results", len(res))
	}
	if err != nil {
		return fmt.Errorf("level 0: %w", err)
	}
	cpu1, err := backendCPU(c.PID())
	if err != nil {
		return err
	}
	if want := b.o.Rows/512 + 1; len(res[0].Rows) < want-1 {
		return fmt.Errorf("level 0: %d buckets, want about %d", len(res[0].Rows), want)
	}
	cell := b.rep.cell("pg-level0", "PostgreSQL level 0 alone: (id/512, count, Σ pghash64) GROUP BY, serial")
	cell.Wall, cell.PGCPU = append(cell.Wall, wall), append(cell.PGCPU, cpu1-cpu0)
	cell.Buckets = len(res[0].Rows)
	b.o.Logf("pg level 0: %v (backend CPU %v)", wall, cpu1-cpu0)
	return nil
}

// sidecarVerify runs `sidecar verify`'s Runner once; with id "" nothing
// is recorded (warm-up, final check). It fails unless exactly want rows
// differ.
func (b *verifyBench) sidecarVerify(ctx context.Context, id, name string, want int) (*verify.Report, error) {
	var pids backendSet
	var pgCPU atomic.Int64
	sampleCtx, stop := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		// The backends exit when the run ends: sample their CPU time.
		defer close(sampled)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			pids.sample()
			pgCPU.Store(int64(pids.total()))
			select {
			case <-sampleCtx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	go0 := processCPU()
	start := time.Now()
	rep, err := b.runner(&pids).Run(ctx, []string{"public.t"})
	wall := time.Since(start)
	goCPU := processCPU() - go0
	stop()
	<-sampled
	if err != nil {
		return nil, fmt.Errorf("sidecar verify: %w", err)
	}
	tr := rep.Tables[0]
	if tr.Differences != want || (want == 0) != (rep.Result == verify.ResultEqual) {
		return nil, fmt.Errorf("sidecar verify %s: %s with %d differences (error %q), want %d", id, rep.Result, tr.Differences, tr.Error, want)
	}
	if id == "" {
		b.o.Logf("untimed verify: %v (pin %.3fs, catch-up %.3fs)", wall, rep.PinSeconds, rep.CatchUpSeconds)
		return rep, nil
	}
	cell := b.rep.cell(id, name)
	cell.Wall, cell.PGCPU, cell.GoCPU = append(cell.Wall, wall), append(cell.PGCPU, time.Duration(pgCPU.Load())), append(cell.GoCPU, goCPU)
	cell.Buckets, cell.Dirty, cell.Differences = tr.Buckets, tr.DirtyBuckets, tr.Differences
	if tr.DirtyBuckets > 0 {
		cell.DirtyWall = append(cell.DirtyWall, time.Duration(tr.DirtySeconds*float64(time.Second)))
	}
	b.o.Logf("%s: %v (dirty buckets %.3fs, pin %.3fs, catch-up %.3fs, pinned backend CPU ≥ %v, sidecar CPU %v, %d buckets, %d dirty)", id, wall, tr.DirtySeconds, rep.PinSeconds, rep.CatchUpSeconds, time.Duration(pgCPU.Load()), goCPU, tr.Buckets, tr.DirtyBuckets)
	return rep, nil
}

// dataDiff times a data-diff-style checksum of the PostgreSQL side: its
// md5 row checksum (48 low bits of md5 of the '|'-joined column texts,
// centred, summed) over 32 key-range segments, one query each, serially.
// data-diff runs the same on the other database too and then recurses
// into dirty segments; only this first level of one side is timed.
func (b *verifyBench) dataDiff(ctx context.Context) error {
	c, err := b.canonicalConn(ctx)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	cpu0, err := backendCPU(c.PID())
	if err != nil {
		return err
	}
	const segments = 32
	step := (b.o.Rows + segments - 1) / segments
	start := time.Now()
	var total int64
	for lo := 1; lo <= b.o.Rows; lo += step {
		q := fmt.Sprintf(`SELECT count(*), sum(('x' || substring(md5(concat(id::text, '|', coalesce(k, '<null>'), '|', coalesce(v, '<null>'), '|', coalesce(score::text, '<null>'))), 21))::bit(48)::bigint - 140737488355327) FROM t WHERE id >= %d AND id < %d`, lo, lo+step)
		res, err := c.Exec(ctx, q).ReadAll()
		if err == nil && (len(res) != 1 || len(res[0].Rows) != 1) {
			err = errors.New("unexpected result")
		}
		if err != nil {
			return fmt.Errorf("data-diff segment %d: %w", lo, err)
		}
		n, _ := strconv.ParseInt(string(res[0].Rows[0][0]), 10, 64)
		total += n
	}
	wall := time.Since(start)
	cpu1, err := backendCPU(c.PID())
	if err != nil {
		return err
	}
	if total != int64(b.o.Rows) {
		return fmt.Errorf("data-diff: %d rows in the segments, want %d", total, b.o.Rows)
	}
	cell := b.rep.cell("datadiff", "data-diff-style md5 checksum, 32 segments, PostgreSQL side only")
	cell.Wall, cell.PGCPU = append(cell.Wall, wall), append(cell.PGCPU, cpu1-cpu0)
	b.o.Logf("data-diff md5: %v (backend CPU %v)", wall, cpu1-cpu0)
	return nil
}

// hiddenChange adds delta to the score of k rows spread over the table
// while the table is out of the publication, so the stream never carries
// the change: the mirror keeps the old rows and verify must find them.
func (b *verifyBench) hiddenChange(ctx context.Context, k, delta int) error {
	ids := make([]string, k)
	for i := range k {
		ids[i] = strconv.Itoa(1 + i*(b.o.Rows/k))
	}
	for _, sql := range []string{
		`ALTER PUBLICATION pub DROP TABLE t`,
		fmt.Sprintf(`UPDATE t SET score = score + %d WHERE id IN (%s)`, delta, strings.Join(ids, ",")),
		`ALTER PUBLICATION pub ADD TABLE t`,
	} {
		if _, err := b.conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("hidden change: %s: %w", sql[:min(len(sql), 60)], err)
		}
	}
	return nil
}

// backendCPU returns the user+system CPU time of a process from
// /proc/<pid>/stat (USER_HZ assumed 100).
func backendCPU(pid uint32) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("backend CPU time: %w", err)
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 || i+2 > len(data) {
		return 0, fmt.Errorf("backend CPU time: bad /proc/%d/stat", pid)
	}
	f := strings.Fields(string(data[i+2:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("backend CPU time: short /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("backend CPU time: parse /proc/%d/stat", pid)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}
