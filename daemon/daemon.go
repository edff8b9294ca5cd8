// Package daemon is `sidecar run`: it wires preflight, the data directory,
// the mirror, the replication pipeline and the HTTP server into one process
// whose components share a context and an errgroup.
//
// Lifecycle: preflight → open the data directory → bind the HTTP listener
// (a port clash fails here, before anything is announced) → follow
// (package follow: check the cluster identity → first start only:
// publication, then slot, then the initial copy under the slot's snapshot
// → resync of tables a crash left half-copied or whose schema changed →
// stream). Derived consumers (Options.Consumers) are subscribed to the
// mirror once it is open. On the first SIGINT or
// SIGTERM the stream stops between transactions, the mirror flushes and
// syncs, the slot is advanced to exactly the durable LSN, and Run returns
// nil. Fatal errors (slot lost, another cluster, a bad configuration)
// return an error that says what to do.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/metrics"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/preflight"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/server"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/verify"
	"github.com/sidecar-dev/sidecar/wal"
)

// Options configure one daemon run.
type Options struct {
	Config *config.Config
	Logger *slog.Logger
	// Metrics is the daemon's metric set; nil makes one.
	Metrics *metrics.Set
	// Progress receives the copy's progress lines when it is a terminal;
	// otherwise progress goes to the log every ProgressEvery.
	Progress      io.Writer
	ProgressEvery time.Duration
	// Resync starts over: the mirror in the data directory is removed and
	// the slot dropped, then everything is copied again.
	Resync bool
	// OnReady, if set, is called once the HTTP listener is bound (with its
	// address) and the pipeline starts.
	OnReady func(addr string)
	// OnHead, if set, is given the in-memory HEAD at start, before it is
	// loaded and subscribed in the background (Status.Head says how far;
	// benchmarks time apply and reads on it in process).
	OnHead func(*head.Model)
	// BeforeHeadLoad, if set, runs in the background loader before the
	// in-memory HEAD is restored (tests hold the loading back).
	BeforeHeadLoad func()
	// Mirror, if set, adjusts the mirror's options before it opens (tests
	// use short commit groups so retention moves within seconds).
	Mirror func(*mirror.Options)
	// Store, if set, adjusts the store's options before it opens (the
	// power-cut tests give a store.Syncer that records durable images).
	Store func(*store.Options)
	// Consumers are derived structures fed by the mirror (see
	// mirror.Consumer): each is subscribed once the mirror is open, brought
	// forward from its durable position, and stopped when the mirror
	// closes. A consumer that fails is logged and stopped; following goes
	// on.
	Consumers []mirror.Consumer
	// SlotReleaseWait is how long a first start waits for an active slot
	// to be let go before calling it another consumer's: the walsender of a
	// start killed a moment ago holds it until it notices (default 10 s).
	SlotReleaseWait time.Duration
	// HeadReadWait bounds how long a read waits for a following
	// in-memory HEAD to reach its version before it goes to a tree
	// (snapshot.Store.Wait; default headReadWait). Tests that check where
	// reads go set it long: on a loaded machine the HEAD trails by more.
	HeadReadWait time.Duration
	// FromRemote restores an empty data directory from remote.url before
	// starting (sidecar run --from-remote).
	FromRemote bool
}

// Run runs the daemon until ctx ends (clean shutdown, nil) or a fatal
// error.
func Run(ctx context.Context, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Metrics == nil {
		opts.Metrics = metrics.New()
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 10 * time.Second
	}
	if opts.SlotReleaseWait <= 0 {
		opts.SlotReleaseWait = 10 * time.Second
	}
	if opts.HeadReadWait <= 0 {
		opts.HeadReadWait = headReadWait
	}
	d := &daemon{opts: opts, cfg: opts.Config, log: opts.Logger, met: opts.Metrics, conn: opts.Config.Postgres.ConnString()}
	d.setPhase("starting")
	return d.run(ctx)
}

type daemon struct {
	opts Options
	cfg  *config.Config
	log  *slog.Logger
	met  *metrics.Set
	conn string // connection string with password: never log it

	tables   []wal.TableName // configured (none for "*")
	cfgNames []string        // their canonical names, the mirror's keys
	f        *follow.Follower
	db       *store.DB
	m        *mirror.Mirror
	copied   *wal.CopiedAt

	mu        sync.Mutex
	phase     string
	progress  map[string]replication.CopyProgress
	eta       copyETAs          // per-table copy ETA (progresseta.go)
	notFollow map[string]string // configured tables not followed, and why
	// addBackoff spaces out failed additions to the publication
	// (startables.go).
	addBackoff addBackoff
	// newTablesWarned: when the monitor last logged a failed look for new
	// tables (monitor goroutine only; startables.go).
	newTablesWarned time.Time
	slotInfo        replication.SlotInfo
	lastErr         string
	lastErrLog      time.Time
	errCount        atomic.Int64
	verifier        *verify.Periodic
	hist            *history.Service
	lastGC          *GCStatus // guarded by mu
	head            *headLoad // the in-memory HEAD (nil before the mirror is open)
	dropped         droppedState

	// serverVersion is the followed server's server_version as preflight
	// read it at start (before any goroutine reads it).
	serverVersion string
	// sessionDefaults are the followed server's TimeZone, DateStyle and
	// IntervalStyle, new SQL sessions' defaults (sessiondefaults.go).
	sessionDefaults serverDefaults

	lagBytes atomic.Int64
	// serverWAL is the server's current WAL position at the last poll,
	// prevServerWAL the one before it (at least one poll interval old).
	serverWAL, prevServerWAL atomic.Uint64

	remote *remoteSide   // remote.upload; nil when off
	mem    *memoryBudget // memory.limit and its parts (memory.go)
}

func (d *daemon) run(ctx context.Context) (err error) {
	d.registerDropped()
	// A configured table missing from PostgreSQL may be one the mirror
	// followed before it was dropped: judged again once the mirror is
	// open (preflightAgain).
	started := time.Now()
	onlyAbsent, err := d.preflight(ctx)
	preflightTook := time.Since(started)
	recheck := err != nil && onlyAbsent && !d.opts.Resync && hasMirror(d.cfg.DataDir)
	if err != nil && !recheck {
		return err
	}
	if err := d.tablesFromConfig(); err != nil {
		return err
	}
	if d.opts.Resync {
		if err := d.startOver(ctx); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(d.cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("data_dir %s: %w", d.cfg.DataDir, err)
	}
	defer d.setupMemory()()
	if d.cfg.SQL.Listen != "" {
		go warmSQL()
	}
	sopts := store.Options{Dir: d.cfg.DataDir, Logger: d.log, MinFree: d.cfg.Storage.MinFreeBytes()}
	d.mem.storeOptions(&sopts)
	if d.opts.Store != nil {
		d.opts.Store(&sopts)
	}
	opened := time.Now()
	d.db, err = store.Open(sopts)
	if err != nil {
		return err
	}
	// What a restart spends before it can serve (issue 21 item 11).
	d.log.Info("data directory opened", "preflight", preflightTook, "store_open", time.Since(opened))
	defer func() {
		if cerr := d.db.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	d.remoteHooks()
	if err := d.takeLease(ctx); err != nil {
		return err
	}
	defer d.closeRemote()
	if err := d.restoreFromRemote(ctx); err != nil {
		return err
	}
	d.copied = wal.NewCopiedAt()
	mopts := mirror.Options{DB: d.db, Tables: d.cfgNames, CopiedAt: d.copied, Logger: d.log,
		OnGroupFlush: func(t time.Duration) { d.met.ApplyBatchSeconds.Observe(t.Seconds()) },
		OnSync:       func(t time.Duration) { d.met.CommitSyncSeconds.Observe(t.Seconds()) }}
	d.mem.mirrorOptions(&mopts)
	if d.opts.Mirror != nil {
		d.opts.Mirror(&mopts)
	}
	d.remoteFlushHook(&mopts)
	opened = time.Now()
	d.m, err = mirror.Open(ctx, mopts)
	if err != nil {
		return fmt.Errorf("open mirror in %s: %w", d.cfg.DataDir, err)
	}
	d.log.Info("mirror open", "took", time.Since(opened), "since_start", time.Since(started))
	if recheck {
		if err := d.preflightAgain(ctx); err != nil {
			d.m.Close(context.Background())
			return err
		}
	}
	// The in-memory HEAD (heap + radix index), restored from its checkpoint
	// and brought forward by the mirror, or rebuilt from the trees.
	every := d.cfg.Heap.CheckpointInterval
	if every == 0 {
		every = -1 // only at shutdown
	}
	// Loaded (loadHead) once the listeners are up: reads go to the trees
	// until then.
	if err := d.openPageFile(); err != nil {
		d.m.Close(context.Background())
		return err
	}
	// Deferred first, so it runs after the model and the listeners are
	// down (closeMirror's defer runs before it).
	var srv *server.Server
	defer func() { d.closePageFile(srv) }()
	model := head.New(head.Options{Heap: heap.Config{Budget: d.mem.pages, Pages: d.mem.pageFile},
		Persist: &head.Persist{DB: d.db, Logger: d.log, Mirror: d.m, Every: every}})
	model.SetFollowing(false) // until loaded and caught up (headload.go)
	d.head = newHeadLoad(model)
	if d.opts.OnHead != nil {
		d.opts.OnHead(model)
	}
	for _, c := range d.opts.Consumers {
		if _, err := d.m.Subscribe(c, mirror.SubscribeOptions{}); err != nil {
			d.m.Close(context.Background())
			return err
		}
	}
	if err := d.openRemote(ctx); err != nil {
		d.m.Close(context.Background())
		return err
	}
	d.f = d.newFollower()
	mirrorOpen := true
	closeMirror := func() error {
		if !mirrorOpen {
			return nil
		}
		mirrorOpen = false
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := d.m.Close(cctx)
		// A checkpoint started from apply ends before the store closes.
		model.Close()
		if err == nil && d.head.subscribed() { // the subscription has stopped: checkpoint the in-memory HEAD
			if st, cerr := model.Checkpoint(); cerr != nil {
				d.log.Warn("in-memory HEAD checkpoint at shutdown failed; it is rebuilt at the next start", "err", cerr)
			} else {
				d.log.Info("in-memory HEAD checkpointed", "lsn", st.LSN, "tables", st.Tables, "heap_pages", st.HeapPages, "took", st.Took)
			}
		}
		return err
	}
	defer func() {
		if cerr := closeMirror(); cerr != nil && err == nil {
			err = cerr
		}
	}()

	token, err := d.cfg.API.BearerToken()
	if err != nil {
		return err
	}
	srv, err = server.Listen(server.Options{Addr: d.cfg.Listen, Token: token, Logger: d.log, Gatherer: d.met.Registry, Ready: d.ready})
	if err != nil {
		return err
	}
	d.hist = history.New(d.db, d.m)
	// The in-memory HEAD serves get and bounded scans at the version it holds.
	d.hist.SetHead(model)
	d.hist.Snapshots().Wait = d.opts.HeadReadWait // waited for only once it follows (headload.go)
	d.head.set(func(h *headLoad) { h.reads = d.hist.Snapshots().Reads() })
	sqlSrv, err := d.listenSQL(model)
	if err != nil {
		return err
	}
	d.routes(srv)
	d.routeSQLBox(srv, sqlSrv)
	vr := d.verifyRunner()
	srv.HandleAPI("POST /api/verify", server.VerifyHandler(d.verifyLive(vr)))
	srv.HandleAPI("POST /api/compact", server.CompactHandler(model))
	verifyMet, err := verify.NewMetrics(d.met.Registry)
	if err != nil {
		return err
	}
	d.verifier = &verify.Periodic{Interval: d.cfg.Verify.Interval, Gauge: d.met.VerifyResult, Metrics: verifyMet, Logger: d.log,
		Verify: func(ctx context.Context) (*verify.Report, error) { return d.verifyLive(vr)(ctx, nil) },
		Tables: d.liveNames}
	d.log.Info("sidecar ready", "listen", srv.Addr(), "data_dir", d.cfg.DataDir, "tables", strings.Join(d.names(), ","),
		"postgres", d.cfg.Postgres.Redacted())
	if d.opts.OnReady != nil {
		d.opts.OnReady(srv.Addr())
	}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Serve(gctx) })
	g.Go(func() error { d.loadHead(gctx, d.head); return nil })
	if sqlSrv != nil {
		d.log.Info("SQL front end listening", "sql_listen", sqlSrv.Addr())
		g.Go(func() error { return sqlSrv.Serve(gctx) })
	}
	g.Go(func() error { return d.monitor(gctx) })
	g.Go(func() error { return d.verifier.Run(gctx) })
	g.Go(func() error { return d.watchDisk(gctx) })
	g.Go(func() error { return d.runRemote(gctx) })
	g.Go(func() error {
		return d.hist.AutoGC(gctx, history.AutoGCOptions{Interval: d.cfg.History.GCInterval, Retain: d.cfg.History.Retain,
			Dir: d.cfg.DataDir, Logger: d.log, OnRun: d.recordGC, Busy: model.Checkpointing})
	})
	g.Go(func() error {
		err := d.follow(gctx)
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	})
	err = g.Wait()
	d.setPhase("stopping")
	// Flush the pending group and sync, then report exactly the durable
	// position to the slot, so nothing acknowledged is lost and nothing
	// durable is re-sent.
	if cerr := closeMirror(); cerr != nil {
		return errors.Join(err, cerr)
	}
	d.closeRemote()
	if err != nil {
		return err
	}
	if aerr := d.acknowledge(context.Background()); aerr != nil {
		d.log.Warn("could not advance the slot at shutdown; the next start resumes from the durable LSN anyway", "err", aerr)
	}
	d.log.Info("sidecar stopped", "durable_lsn", d.m.Durable())
	return nil
}

// preflight runs the checks of `sidecar check` and refuses to start when
// any fails, naming each with its fix. onlyAbsent: every failure is a
// configured table that does not exist (see preflightAgain).
func (d *daemon) preflight(ctx context.Context) (onlyAbsent bool, err error) {
	rep, err := d.preflightReport(ctx, nil, false)
	if err == nil {
		return false, nil
	}
	for _, c := range rep.Checks {
		if c.Status == preflight.Fail && c.Absent == "" {
			return false, err
		}
	}
	return true, err
}

// preflightWith is preflight with the tables the mirror holds (known):
// it returns the configured tables that do not exist.
func (d *daemon) preflightWith(ctx context.Context, known []string) (absent []string, err error) {
	rep, err := d.preflightReport(ctx, known, true)
	for _, c := range rep.Checks {
		if c.Absent != "" {
			absent = append(absent, c.Absent)
		}
	}
	return absent, err
}

// preflightReport runs the checks, logs the warnings (not when it fails
// and is not final: a second run, preflightAgain, may judge the failures
// again and logs them then) and returns the failures as one error.
func (d *daemon) preflightReport(ctx context.Context, known []string, final bool) (preflight.Report, error) {
	rep := preflight.Run(ctx, preflight.Params{URL: d.conn, Tables: d.cfg.Tables, Publication: d.cfg.Publication, Slot: d.cfg.Slot, Known: known})
	if rep.ServerVersion != "" {
		d.serverVersion = rep.ServerVersion                // advertised by the SQL front end (sql.go)
		if err := d.readSessionDefaults(ctx); err != nil { // sessiondefaults.go; the monitor retries
			d.log.Warn("could not read the followed server's session defaults (TimeZone, DateStyle); read again every poll", "err", err)
		}
	}
	var fails []string
	for _, c := range rep.Checks {
		if c.Status == preflight.Fail {
			fails = append(fails, fmt.Sprintf("%s: %s (fix: %s)", c.Name, c.Detail, c.Fix))
		}
	}
	if len(fails) > 0 && !(d.opts.Resync && onlySlotProblems(rep)) {
		return rep, fmt.Errorf("preflight failed (run `sidecar check` for the full report):\n  %s", strings.Join(fails, "\n  "))
	}
	if final || len(fails) == 0 {
		for _, c := range rep.Checks {
			if c.Status == preflight.Warn {
				d.log.Warn("preflight", "check", c.Name, "detail", c.Detail, "fix", c.Fix)
			}
		}
	}
	return rep, nil
}

// onlySlotProblems: --resync drops the slot, so a lost slot must not stop it.
func onlySlotProblems(rep preflight.Report) bool {
	for _, c := range rep.Checks {
		if c.Status == preflight.Fail && c.Name != "slot" {
			return false
		}
	}
	return true
}

func (d *daemon) tablesFromConfig() error {
	if len(d.cfg.Tables) == 1 && d.cfg.Tables[0] == "*" {
		return nil // resolved by the publication
	}
	for _, s := range d.cfg.Tables {
		t, err := config.ParseTable(s)
		if err != nil {
			return err
		}
		tn := wal.TableName{Schema: t.Schema, Name: t.Name}
		d.tables = append(d.tables, tn)
		d.cfgNames = append(d.cfgNames, tn.String()) // the mirror's key: Relation.QualifiedName
	}
	return nil
}

// startOver removes the mirror and drops the slot (--resync).
func (d *daemon) startOver(ctx context.Context) error {
	d.log.Warn("--resync: removing the mirror and dropping the slot; every table is copied again", "data_dir", d.cfg.DataDir, "slot", d.cfg.Slot)
	rc, err := replication.ConnectReplication(ctx, d.conn)
	if err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = replication.DropSlot(dctx, rc, d.cfg.Slot)
	cancel()
	rc.Close(context.Background())
	if err != nil {
		return fmt.Errorf("--resync: drop slot %q: %w", d.cfg.Slot, err)
	}
	entries, err := os.ReadDir(d.cfg.DataDir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--resync: %w", err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(d.cfg.DataDir, e.Name())); err != nil {
			return fmt.Errorf("--resync: %w", err)
		}
	}
	return nil
}

func (d *daemon) setPhase(p string) {
	d.mu.Lock()
	d.phase = p
	d.mu.Unlock()
	d.met.SetPhase(p)
}

func (d *daemon) getPhase() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.phase
}

// verifyRunner verifies the mirror against PostgreSQL at one exact LSN,
// waiting for the stream to apply that far (sidecar verify, verify.interval).
func (d *daemon) verifyRunner() *verify.Runner {
	return &verify.Runner{ConnString: d.conn, Mirror: d.m, Publication: d.cfg.Publication, Slot: d.cfg.Slot, Logger: d.log,
		Progress: verify.StreamProgress(func() replication.StreamStats {
			s := d.streamer()
			if s == nil {
				return replication.StreamStats{}
			}
			return s.Stats()
		})}
}
