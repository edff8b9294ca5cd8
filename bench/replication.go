package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// ReplicationOptions configure RunReplication.
type ReplicationOptions struct {
	// Rows are the table sizes, each run on fresh clusters (default 1M).
	Rows []int
	// Reps repeats every timed cell but the sustained run (default 3).
	Reps int
	// UpdateRows is the size of the one big UPDATE (default 500,000; at
	// most half the table). Every (Rows/UpdateRows)-th row is updated.
	UpdateRows int
	// Txns is the number of single-row transactions of the catch-up cell
	// (default 10,000).
	Txns int
	// Clients are the pgbench sessions of the catch-up and sustained
	// cells (default 8).
	Clients int
	// Sustain is the length of the sustained pgbench run (default 60 s).
	Sustain time.Duration
	// Dir holds the sidecar data directories, logs and scripts (default
	// a fresh directory under the system temp dir, removed afterwards).
	Dir string
	// Keep keeps Dir after the run.
	Keep bool
	// ProfileDir, if set, receives a CPU profile of each timed sidecar
	// interval (<rows>-<cell>-<rep>.prof), so that a missed target can be
	// explained from what the sidecar did in exactly that interval. The
	// caller must not run another CPU profile meanwhile.
	ProfileDir string
	// Out receives one progress line per step (nil: none).
	Out io.Writer
}

func (o ReplicationOptions) withDefaults() ReplicationOptions {
	if len(o.Rows) == 0 {
		o.Rows = []int{1_000_000}
	}
	if o.Reps <= 0 {
		o.Reps = 3
	}
	if o.UpdateRows <= 0 {
		o.UpdateRows = 500_000
	}
	if o.Txns <= 0 {
		o.Txns = 10_000
	}
	if o.Clients <= 0 {
		o.Clients = 8
	}
	if o.Sustain <= 0 {
		o.Sustain = 60 * time.Second
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return o
}

// Validate rejects options that cannot run.
func (o ReplicationOptions) Validate() error {
	for _, n := range o.Rows {
		if n < 100 {
			return fmt.Errorf("rows %d: want at least 100", n)
		}
	}
	if o.Sustain > 0 && o.Sustain < time.Second {
		return fmt.Errorf("sustain %s: want at least 1s (pgbench -T counts whole seconds)", o.Sustain)
	}
	if o.Clients > 0 && o.Txns > 0 && o.Txns%o.Clients != 0 {
		return fmt.Errorf("txns %d is not a multiple of clients %d", o.Txns, o.Clients)
	}
	return nil
}

// ReplicationReport is the outcome of RunReplication.
type ReplicationReport struct {
	Started   time.Time          `json:"started"`
	Finished  time.Time          `json:"finished"`
	Env       Env                `json:"env"`
	PGVersion string             `json:"pg_version"`
	Reps      int                `json:"reps"`
	LoadStart string             `json:"load_start"`
	LoadEnd   string             `json:"load_end"`
	Sizes     []*ReplSizeResult  `json:"sizes"`
	Options   ReplicationOptions `json:"-"`
}

// ReplSizeResult holds every cell of one table size. Cells timed on
// PostgreSQL carry wall time only; sidecar cells also carry the process's
// CPU time (the sidecar is the only busy part of this process) and disk
// writes.
type ReplSizeResult struct {
	Rows int           `json:"rows"`
	Load time.Duration `json:"load_ns"`

	// Phase 1: initial copy.
	CopyOut     Cell `json:"copy_out"`     // COPY t TO STDOUT alone
	SubSync     Cell `json:"sub_sync"`     // CREATE SUBSCRIPTION → all r
	SidecarCopy Cell `json:"sidecar_copy"` // daemon.Run on empty dir → all ready

	// Phase 2: one big UPDATE (UpdateRows rows + marker).
	UpdateRows    int64 `json:"update_rows"`
	UpdateStmt    Cell  `json:"update_stmt"`    // statement to COMMIT returned
	SidecarUpdate Cell  `json:"sidecar_update"` // commit → marker visible, sidecar live
	SidecarDur    Cell  `json:"sidecar_update_durable"`
	SubUpdate     Cell  `json:"sub_update"` // commit → marker visible, subscriber live
	RawDecode     Cell  `json:"raw_decode"` // pg_recvlogical over the sidecar's update
	// After downtime: consumer started after the commit.
	SidecarUpdateDown Cell `json:"sidecar_update_down"`
	SubUpdateDown     Cell `json:"sub_update_down"`

	// Phase 3: catch-up of Txns single-row transactions after downtime.
	CatchTxns    int64         `json:"catch_txns"`
	CatchPgbench time.Duration `json:"catch_pgbench_ns"`
	SidecarCatch Cell          `json:"sidecar_catch"` // daemon.Run → marker
	SidecarStart Cell          `json:"sidecar_start"` // daemon.Run → listener bound
	SubCatch     Cell          `json:"sub_catch"`     // ENABLE → marker
	RawCatch     Cell          `json:"raw_catch"`     // pg_recvlogical over the range

	// Phases 4 and 5.
	Sustained *Sustained `json:"sustained"`

	// DecoderCPU is, per sidecar cell ID, the CPU time of the sidecar's
	// walsender (PostgreSQL decoding and sending) over each repetition.
	DecoderCPU map[string][]time.Duration `json:"decoder_cpu_ns"`

	Checks []Check `json:"checks"`
}

func (s *ReplSizeResult) lastDecoder(cell string) time.Duration {
	if d := s.DecoderCPU[cell]; len(d) > 0 {
		return d[len(d)-1]
	}
	return 0
}

// decoder records one repetition's walsender CPU for cell.
func (s *ReplSizeResult) decoder(cell string, d time.Duration) {
	if s.DecoderCPU == nil {
		s.DecoderCPU = map[string][]time.Duration{}
	}
	s.DecoderCPU[cell] = append(s.DecoderCPU[cell], d)
}

// Sustained is the sustained-load cell: lag under pgbench at the
// publisher's maximum rate, and what the sidecar wrote.
type Sustained struct {
	Duration time.Duration `json:"duration_ns"`
	Clients  int           `json:"clients"`
	Txns     int64         `json:"txns"`
	TPS      float64       `json:"tps"`
	// Lag is, per 100 ms sample of the server's WAL position, the time
	// until the sidecar's durable LSN reached it.
	Lag []time.Duration `json:"lag_ns"`
	// Unresolved counts samples the durable LSN had not reached by the end.
	Unresolved int `json:"unresolved"`
	// StatusLag are the daemon's own lag_seconds, sampled every 100 ms.
	StatusLag []float64 `json:"status_lag_seconds"`
	// Bytes written, over the run (sidecar started before, stopped after).
	DiskBefore int64          `json:"disk_before"`
	DiskAfter  int64          `json:"disk_after"`
	DiskGrowth int64          `json:"disk_growth"`
	Badger     badgerCounters `json:"badger"`
	ProcWrite  int64          `json:"proc_write_bytes"`
	CPU        time.Duration  `json:"cpu_ns"`
	Commits    int64          `json:"commits_applied"`
}

// Check is one correctness comparison after a phase.
type Check struct {
	Phase      string   `json:"phase"`
	Publisher  Checksum `json:"publisher"`
	Sidecar    Checksum `json:"sidecar"`
	Subscriber Checksum `json:"subscriber"`
	// MarkerOK: the mirror's marker row holds the last tag committed.
	MarkerOK bool `json:"marker_ok"`
	OK       bool `json:"ok"`
}

// ErrCheckFailed is returned (with the report) when the mirror or the
// subscriber differed from the publisher after a phase.
var ErrCheckFailed = errors.New("a replica differed from the publisher")

// RunReplication runs the replication benchmark of issue #4 for every size
// in o.Rows: a publisher and a subscriber cluster (internal/pgtest), the
// sidecar in-process (daemon.Run), and PostgreSQL's own subscriber and
// pg_recvlogical on the same data in the same run. After each phase the
// mirror and the subscriber are compared row by row with the publisher;
// a difference is recorded in Checks and makes RunReplication return
// ErrCheckFailed together with the report.
func RunReplication(ctx context.Context, o ReplicationOptions) (*ReplicationReport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	rep := &ReplicationReport{Started: time.Now().UTC(), Env: CollectEnv(ctx), Reps: o.Reps, LoadStart: loadAvg(), Options: o}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "sidecar-bench-repl-")
		if err != nil {
			return nil, fmt.Errorf("bench dir: %w", err)
		}
		dir = d
		if !o.Keep {
			defer os.RemoveAll(dir)
		}
	}
	if o.ProfileDir != "" {
		if err := os.MkdirAll(o.ProfileDir, 0o755); err != nil {
			return nil, fmt.Errorf("profile dir: %w", err)
		}
	}
	failed := false
	for _, n := range o.Rows {
		sdir := filepath.Join(dir, strconv.Itoa(n))
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			return nil, fmt.Errorf("bench dir: %w", err)
		}
		r := &replRun{o: o, dir: sdir, res: &ReplSizeResult{Rows: n}}
		err := r.run(ctx, rep)
		if !o.Keep && o.Dir != "" {
			os.RemoveAll(sdir)
		}
		if err != nil {
			return nil, fmt.Errorf("%s rows: %w", fmtRecords(n), err)
		}
		rep.Sizes = append(rep.Sizes, r.res)
		for _, c := range r.res.Checks {
			failed = failed || !c.OK
		}
	}
	rep.LoadEnd = loadAvg()
	rep.Finished = time.Now().UTC()
	if failed {
		return rep, ErrCheckFailed
	}
	return rep, nil
}

// replRun is the state of one size's run.
type replRun struct {
	o    ReplicationOptions
	dir  string
	res  *ReplSizeResult
	pg   *pgSide
	sc   *sidecarRun
	cfgs int // sidecar configurations made (one slot each)
	cfg  *sidecarSlot
}

// sidecarSlot is one sidecar's identity: its slot and data directory.
type sidecarSlot struct {
	slot, dataDir string
}

// profile starts a CPU profile of one timed interval when ProfileDir is
// set; the returned function stops it. A profile that cannot be started
// is skipped with a progress line, never an error: it is a diagnostic.
func (r *replRun) profile(cell string, rep int) func() {
	if r.o.ProfileDir == "" {
		return func() {}
	}
	path := filepath.Join(r.o.ProfileDir, fmt.Sprintf("%s-%s-%d.prof", fmtRecords(r.res.Rows), cell, rep))
	f, err := os.Create(path)
	if err != nil {
		r.logf("no profile %s: %v", path, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		r.logf("no profile %s: %v", path, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func (r *replRun) logf(format string, args ...any) {
	fmt.Fprintf(r.o.Out, "%s %s rows: %s\n", time.Now().UTC().Format("15:04:05"), fmtRecords(r.res.Rows), fmt.Sprintf(format, args...))
}

func (r *replRun) run(ctx context.Context, rep *ReplicationReport) (err error) {
	r.pg, err = startPG(ctx, r.dir, nil)
	if err != nil {
		return err
	}
	defer func() {
		if r.sc != nil {
			if serr := r.sc.stop(); serr != nil && err == nil {
				err = serr
			}
		}
		r.pg.close()
	}()
	rep.PGVersion = r.pg.serverVersion(ctx)
	r.logf("loading")
	if r.res.Load, err = r.pg.load(ctx, r.res.Rows); err != nil {
		return err
	}
	r.logf("loaded in %s", fmtDur(r.res.Load))
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"initial copy", r.initialCopy},
		{"big update", r.bigUpdate},
		{"catch-up", r.catchUp},
		{"sustained", r.sustained},
	}
	for _, s := range steps {
		if err := s.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if err := r.check(ctx, s.name); err != nil {
			return fmt.Errorf("check after %s: %w", s.name, err)
		}
	}
	return nil
}

// newSidecar makes a fresh sidecar identity: new slot, empty data dir.
func (r *replRun) newSidecar() {
	r.cfgs++
	r.cfg = &sidecarSlot{slot: fmt.Sprintf("sidecar_%d", r.cfgs), dataDir: filepath.Join(r.dir, fmt.Sprintf("data%d", r.cfgs))}
}

// startSidecar starts the current configuration.
func (r *replRun) startSidecar(ctx context.Context) error {
	cfg, err := sidecarConfig(r.dir, r.pg.pubURL, r.cfg.slot, r.cfg.dataDir)
	if err != nil {
		return err
	}
	r.sc, err = startSidecar(ctx, cfg, filepath.Join(r.dir, r.cfg.slot+".log"))
	return err
}

// stopSidecar stops it and waits until its slot is released.
func (r *replRun) stopSidecar(ctx context.Context) error {
	if r.sc == nil {
		return nil
	}
	err := r.sc.stop()
	r.sc = nil
	if err != nil {
		return err
	}
	return r.pg.waitSlotsIdle(ctx, r.cfg.slot)
}

// timeout for waits proportional to the table (a floor for small runs).
func (r *replRun) timeout() time.Duration {
	return 2*time.Minute + time.Duration(r.res.Rows/1000)*30*time.Millisecond
}

func (r *replRun) initialCopy(ctx context.Context) error {
	res := r.res
	res.CopyOut.ID, res.SubSync.ID, res.SidecarCopy.ID = "copy_out", "sub_sync", "sidecar_copy"
	res.CopyOut.Ops, res.SubSync.Ops, res.SidecarCopy.Ops = res.Rows, res.Rows, res.Rows
	for i := 0; i < r.o.Reps; i++ {
		d, n, err := r.pg.copyOut(ctx)
		if err != nil {
			return err
		}
		if n != int64(res.Rows) {
			return fmt.Errorf("COPY returned %d rows, want %d", n, res.Rows)
		}
		res.CopyOut.Samples = append(res.CopyOut.Samples, d)
		r.logf("COPY TO STDOUT %s", fmtDur(d))
	}
	for i := 0; i < r.o.Reps; i++ {
		if i > 0 {
			if err := r.pg.unsubscribe(ctx); err != nil {
				return err
			}
		}
		d, err := r.pg.subscribe(ctx)
		if err != nil {
			return err
		}
		res.SubSync.Samples = append(res.SubSync.Samples, d)
		r.logf("subscriber sync %s", fmtDur(d))
	}
	// The subscriber stays off while the sidecar copies.
	if err := r.pg.enableSub(ctx, false); err != nil {
		return err
	}
	for i := 0; i < r.o.Reps; i++ {
		if i > 0 {
			old := r.cfg
			if err := r.stopSidecar(ctx); err != nil {
				return err
			}
			if err := r.pg.dropSlot(ctx, old.slot); err != nil {
				return err
			}
			if err := os.RemoveAll(old.dataDir); err != nil {
				return fmt.Errorf("remove %s: %w", old.dataDir, err)
			}
		}
		r.newSidecar()
		var tm timer
		stopProf := r.profile("sidecar_copy", i)
		tm.start()
		if err := r.startSidecar(ctx); err != nil {
			stopProf()
			return err
		}
		_, err := r.sc.waitCopied(ctx, r.timeout())
		tm.stop()
		stopProf()
		if err != nil {
			return err
		}
		tm.add(&res.SidecarCopy)
		r.logf("sidecar copy %s (CPU %s)", fmtDur(tm.wall), fmtDur(tm.cpu))
	}
	return r.pg.enableSub(ctx, true)
}

func (r *replRun) bigUpdate(ctx context.Context) error {
	res := r.res
	want := min(r.o.UpdateRows, res.Rows/2)
	stride := max(2, res.Rows/want)
	for _, c := range []*Cell{&res.UpdateStmt, &res.SidecarUpdate, &res.SidecarDur, &res.SubUpdate, &res.RawDecode, &res.SidecarUpdateDown, &res.SubUpdateDown} {
		c.Ops = res.Rows / stride
	}
	res.UpdateStmt.ID, res.SidecarUpdate.ID, res.SidecarDur.ID = "update_stmt", "sidecar_update", "sidecar_update_durable"
	res.SubUpdate.ID, res.RawDecode.ID = "sub_update", "raw_decode"
	res.SidecarUpdateDown.ID, res.SubUpdateDown.ID = "sidecar_update_down", "sub_update_down"
	// Both replicas caught up before the first rep.
	mk, err := r.pg.setMarker(ctx, "pre")
	if err != nil {
		return err
	}
	if _, err := r.pg.waitSubMarker(ctx, mk.tag, r.timeout()); err != nil {
		return err
	}
	if _, _, err := r.sc.waitMarker(ctx, mk.since, r.timeout()); err != nil {
		return err
	}
	for i := 0; i < r.o.Reps; i++ {
		// (a) sidecar live, subscriber off; a decode slot from here.
		if err := r.pg.enableSub(ctx, false); err != nil {
			return err
		}
		slot := fmt.Sprintf("rl_update_%d", i)
		if err := r.pg.createDecodeSlot(ctx, slot); err != nil {
			return err
		}
		var tm timer
		// The profile covers the statement too: the sidecar receives the
		// streamed transaction while it runs.
		stopProf := r.profile("sidecar_update", i)
		dm := r.pg.startDecoderMeter(ctx, r.cfg.slot)
		mk, stmt, committed, rows, err := r.pg.bigUpdate(ctx, stride)
		if err != nil {
			stopProf()
			return err
		}
		tm.start()
		tm.w0 = committed
		seen, lsn, err := r.sc.waitMarker(ctx, mk.since, r.timeout())
		stopProf()
		if err != nil {
			return err
		}
		tm.stop()
		res.decoder("sidecar_update", dm.stop(ctx, r.pg, r.cfg.slot))
		tm.wall = seen.Sub(committed)
		tm.add(&res.SidecarUpdate)
		durable, err := r.sc.waitDurable(ctx, lsn, r.timeout())
		if err != nil {
			return err
		}
		res.SidecarDur.Samples = append(res.SidecarDur.Samples, durable.Sub(committed))
		res.UpdateStmt.Samples = append(res.UpdateStmt.Samples, stmt)
		res.UpdateRows = rows
		r.logf("update %d rows: statement %s, sidecar live %s after commit (durable %s, CPU %s, walsender CPU %s)", rows, fmtDur(stmt), fmtDur(tm.wall), fmtDur(durable.Sub(committed)), fmtDur(tm.cpu), fmtDur(res.lastDecoder("sidecar_update")))
		// (b) raw decode of the same WAL.
		d, err := r.pg.recvlogical(ctx, slot, mk.wal)
		if err != nil {
			return err
		}
		res.RawDecode.Samples = append(res.RawDecode.Samples, d)
		if err := r.pg.dropSlot(ctx, slot); err != nil {
			return err
		}
		r.logf("pg_recvlogical proto 2 streaming %s", fmtDur(d))
		// (c) sidecar off; the subscriber catches up after downtime.
		if err := r.stopSidecar(ctx); err != nil {
			return err
		}
		t0, err := r.pg.switchSub(ctx, true)
		if err != nil {
			return err
		}
		seen, err = r.pg.waitSubMarker(ctx, mk.tag, r.timeout())
		if err != nil {
			return err
		}
		res.SubUpdateDown.Samples = append(res.SubUpdateDown.Samples, seen.Sub(t0))
		r.logf("subscriber catch-up after downtime %s", fmtDur(seen.Sub(t0)))
		// (d) subscriber live, sidecar off.
		mk, stmt, committed, _, err = r.pg.bigUpdate(ctx, stride)
		if err != nil {
			return err
		}
		seen, err = r.pg.waitSubMarker(ctx, mk.tag, r.timeout())
		if err != nil {
			return err
		}
		res.SubUpdate.Samples = append(res.SubUpdate.Samples, seen.Sub(committed))
		res.UpdateStmt.Samples = append(res.UpdateStmt.Samples, stmt)
		r.logf("update: statement %s, subscriber live %s after commit", fmtDur(stmt), fmtDur(seen.Sub(committed)))
		// (e) subscriber off; the sidecar catches up after downtime.
		if err := r.pg.enableSub(ctx, false); err != nil {
			return err
		}
		var tm2 timer
		stopProf = r.profile("sidecar_update_down", i)
		dm = r.pg.startDecoderMeter(ctx, r.cfg.slot)
		tm2.start()
		if err := r.startSidecar(ctx); err != nil {
			stopProf()
			return err
		}
		_, _, err = r.sc.waitMarker(ctx, mk.since, r.timeout())
		tm2.stop()
		stopProf()
		if err != nil {
			return err
		}
		res.decoder("sidecar_update_down", dm.stop(ctx, r.pg, r.cfg.slot))
		tm2.add(&res.SidecarUpdateDown)
		r.logf("sidecar catch-up after downtime %s (CPU %s, walsender CPU %s)", fmtDur(tm2.wall), fmtDur(tm2.cpu), fmtDur(res.lastDecoder("sidecar_update_down")))
		if err := r.pg.enableSub(ctx, true); err != nil {
			return err
		}
	}
	return nil
}

func (r *replRun) catchUp(ctx context.Context) error {
	res := r.res
	for _, c := range []*Cell{&res.SidecarCatch, &res.SidecarStart, &res.SubCatch, &res.RawCatch} {
		c.Ops = r.o.Txns
	}
	res.SidecarCatch.ID, res.SidecarStart.ID, res.SubCatch.ID, res.RawCatch.ID = "sidecar_catch", "sidecar_start", "sub_catch", "raw_catch"
	for i := 0; i < r.o.Reps; i++ {
		if err := r.stopSidecar(ctx); err != nil {
			return err
		}
		if err := r.pg.enableSub(ctx, false); err != nil {
			return err
		}
		slot := fmt.Sprintf("rl_catch_%d", i)
		if err := r.pg.createDecodeSlot(ctx, slot); err != nil {
			return err
		}
		pb, err := r.pg.pgbench(ctx, res.Rows, r.o.Clients, r.o.Txns, 0)
		if err != nil {
			return err
		}
		if pb.Txns != int64(r.o.Txns) {
			return fmt.Errorf("pgbench ran %d transactions, want %d", pb.Txns, r.o.Txns)
		}
		res.CatchTxns, res.CatchPgbench = pb.Txns, pb.Elapsed
		mk, err := r.pg.setMarker(ctx, "catch")
		if err != nil {
			return err
		}
		// Sidecar first, then the subscriber, then raw decode: each alone
		// over the same WAL.
		var tm timer
		stopProf := r.profile("sidecar_catch", i)
		dm := r.pg.startDecoderMeter(ctx, r.cfg.slot)
		tm.start()
		if err := r.startSidecar(ctx); err != nil {
			stopProf()
			return err
		}
		res.SidecarStart.Samples = append(res.SidecarStart.Samples, r.sc.ready.Sub(r.sc.started))
		_, _, err = r.sc.waitMarker(ctx, mk.since, r.timeout())
		tm.stop()
		stopProf()
		if err != nil {
			return err
		}
		res.decoder("sidecar_catch", dm.stop(ctx, r.pg, r.cfg.slot))
		tm.add(&res.SidecarCatch)
		t0, err := r.pg.switchSub(ctx, true)
		if err != nil {
			return err
		}
		seen, err := r.pg.waitSubMarker(ctx, mk.tag, r.timeout())
		if err != nil {
			return err
		}
		res.SubCatch.Samples = append(res.SubCatch.Samples, seen.Sub(t0))
		d, err := r.pg.recvlogical(ctx, slot, mk.wal)
		if err != nil {
			return err
		}
		res.RawCatch.Samples = append(res.RawCatch.Samples, d)
		if err := r.pg.dropSlot(ctx, slot); err != nil {
			return err
		}
		r.logf("catch-up of %d txns (pgbench %s): sidecar %s (start %s, CPU %s, walsender CPU %s), subscriber %s, pg_recvlogical %s",
			pb.Txns, fmtDur(pb.Elapsed), fmtDur(tm.wall), fmtDur(r.sc.ready.Sub(r.sc.started)), fmtDur(tm.cpu), fmtDur(res.lastDecoder("sidecar_catch")), fmtDur(seen.Sub(t0)), fmtDur(d))
	}
	return nil
}

// sustained runs pgbench at full rate for Sustain with the sidecar live
// (subscriber off), sampling lag, and measures what the sidecar wrote.
func (r *replRun) sustained(ctx context.Context) error {
	s := &Sustained{Clients: r.o.Clients}
	r.res.Sustained = s
	if err := r.pg.enableSub(ctx, false); err != nil {
		return err
	}
	if err := r.stopSidecar(ctx); err != nil {
		return err
	}
	var err error
	if s.DiskBefore, err = diskUsage(r.cfg.dataDir); err != nil {
		return err
	}
	b0, io0, cpu0 := readBadgerCounters(), readIOCounters(), processCPU()
	if err := r.startSidecar(ctx); err != nil {
		return err
	}
	st0, err := r.sc.status(ctx)
	if err != nil {
		return err
	}
	sampler, err := startLagSampler(ctx, r.pg.pubURL, r.sc)
	if err != nil {
		return err
	}
	stopProf := r.profile("sustained", 0)
	dm := r.pg.startDecoderMeter(ctx, r.cfg.slot)
	pb, err := r.pg.pgbench(ctx, r.res.Rows, r.o.Clients, 0, r.o.Sustain)
	stopProf()
	if err != nil {
		sampler.stop()
		return err
	}
	mk, err := r.pg.setMarker(ctx, "sustained")
	if err != nil {
		sampler.stop()
		return err
	}
	_, lsn, err := r.sc.waitMarker(ctx, mk.since, r.timeout())
	if err == nil {
		_, err = r.sc.waitDurable(ctx, lsn, r.timeout())
	}
	if err != nil {
		sampler.stop()
		return err
	}
	r.res.decoder("sustained", dm.stop(ctx, r.pg, r.cfg.slot))
	if err := sleepCtx(ctx, 150*time.Millisecond); err != nil { // one more durable sample past the marker
		sampler.stop()
		return err
	}
	s.Lag, s.StatusLag, s.Unresolved = sampler.stop()
	st1, err := r.sc.status(ctx)
	if err != nil {
		return err
	}
	if err := r.stopSidecar(ctx); err != nil {
		return err
	}
	b1, io1, cpu1 := readBadgerCounters(), readIOCounters(), processCPU()
	if s.DiskAfter, err = diskUsage(r.cfg.dataDir); err != nil {
		return err
	}
	s.Duration, s.Txns, s.TPS = pb.Elapsed, pb.Txns, pb.TPS
	s.DiskGrowth = s.DiskAfter - s.DiskBefore
	s.Badger = b1.sub(b0)
	s.ProcWrite = io1.Write - io0.Write
	s.CPU = cpu1 - cpu0
	s.Commits = st1.Commits - st0.Commits
	r.logf("sustained %d txns in %s (%.0f tps): lag p50 %s p99 %s max %s; %s/row user bytes, %s/row on disk",
		s.Txns, fmtDur(s.Duration), s.TPS, fmtDur(percentile(s.Lag, 50)), fmtDur(percentile(s.Lag, 99)), fmtDur(percentile(s.Lag, 100)),
		fmtBytes(s.Badger.User/max(1, s.Txns)), fmtBytes(s.DiskGrowth/max(1, s.Txns)))
	// Back to the usual state for the check: both replicas running.
	if err := r.startSidecar(ctx); err != nil {
		return err
	}
	return r.pg.enableSub(ctx, true)
}

// check waits for both replicas to reach a fresh marker, then compares
// the publisher, the mirror and the subscriber.
func (r *replRun) check(ctx context.Context, phase string) error {
	mk, err := r.pg.setMarker(ctx, "check")
	if err != nil {
		return err
	}
	_, lsn, err := r.sc.waitMarker(ctx, mk.since, r.timeout())
	if err != nil {
		return err
	}
	if _, err := r.sc.waitDurable(ctx, lsn, r.timeout()); err != nil {
		return err
	}
	if _, err := r.pg.waitSubMarker(ctx, mk.tag, r.timeout()); err != nil {
		return err
	}
	t0 := time.Now()
	c := Check{Phase: phase}
	if c.Publisher, err = tableChecksum(ctx, r.pg.pubConn); err != nil {
		return fmt.Errorf("publisher: %w", err)
	}
	if c.Subscriber, err = tableChecksum(ctx, r.pg.subConn); err != nil {
		return fmt.Errorf("subscriber: %w", err)
	}
	// The mirror is read offline: stop the daemon, open its data
	// directory, start it again.
	if err := r.stopSidecar(ctx); err != nil {
		return err
	}
	var tag string
	if c.Sidecar, tag, err = offlineChecksum(ctx, r.cfg.dataDir); err != nil {
		return err
	}
	if err := r.startSidecar(ctx); err != nil {
		return err
	}
	c.MarkerOK = tag == mk.tag
	c.OK = c.Publisher == c.Sidecar && c.Publisher == c.Subscriber && c.Publisher.Rows == int64(r.res.Rows) && c.MarkerOK
	r.res.Checks = append(r.res.Checks, c)
	verdict := "equal"
	if !c.OK {
		verdict = fmt.Sprintf("DIFFERENT: publisher %s; sidecar %s (marker %q, want %q); subscriber %s", c.Publisher, c.Sidecar, tag, mk.tag, c.Subscriber)
	}
	r.logf("check after %s (%s): %s", phase, fmtDur(time.Since(t0)), verdict)
	return nil
}

// lagSampler samples, every 100 ms, the publisher's WAL position and the
// daemon's lag_seconds, and every 10 ms the durable LSN, so that each WAL
// sample can be resolved to the time the sidecar had it durable.
type lagSampler struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	wal    []lsnAt
	dur    []lsnAt
	status []float64
	err    error
}

type lsnAt struct {
	t   time.Time
	lsn wal.LSN
}

func startLagSampler(ctx context.Context, pubURL string, sc *sidecarRun) (*lagSampler, error) {
	conn, err := pgx.Connect(ctx, pubURL)
	if err != nil {
		return nil, fmt.Errorf("lag sampler: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &lagSampler{cancel: cancel}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		defer conn.Close(context.Background())
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			var lsn string
			t := time.Now()
			if err := conn.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err == nil {
				l, _ := wal.ParseLSN(lsn)
				s.mu.Lock()
				s.wal = append(s.wal, lsnAt{t, l})
				s.mu.Unlock()
			}
			if st, err := sc.status(ctx); err == nil {
				s.mu.Lock()
				s.status = append(s.status, st.LagSeconds)
				s.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if st, err := sc.status(ctx); err == nil {
				if l, err := wal.ParseLSN(st.DurableLSN); err == nil {
					s.mu.Lock()
					s.dur = append(s.dur, lsnAt{time.Now(), l})
					s.mu.Unlock()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return s, nil
}

// stop ends the sampling and resolves each WAL sample to the first durable
// sample at or past it.
func (s *lagSampler) stop() (lag []time.Duration, status []float64, unresolved int) {
	s.cancel()
	s.wg.Wait()
	j := 0
	for _, w := range s.wal {
		for j < len(s.dur) && (s.dur[j].lsn < w.lsn || s.dur[j].t.Before(w.t)) {
			j++
		}
		if j == len(s.dur) {
			unresolved++
			continue
		}
		lag = append(lag, s.dur[j].t.Sub(w.t))
	}
	return lag, s.status, unresolved
}
