// Package follow owns following PostgreSQL into a mirror, the one
// sequence every caller (the daemon, the demo, the benchmarks, the
// end-to-end tests) runs: check the cluster identity → first start only:
// publication (before the slot), record the identity, slot with an
// exported snapshot, initial copy under it, resume LSN → resync of tables
// a crash left half-copied or whose schema changed → stream, with a
// per-table resync whenever the mirror reports a table needing one.
//
// It refuses to follow a slot whose acknowledged changes the data
// directory lacks (ErrForeignSlot): an empty data directory next to an
// existing slot, or a mirror behind its slot's confirmed_flush_lsn. The
// stream's idle acknowledgements past the last commit are recorded in the
// data directory first (SettledFile), so the mirror's own slot never
// looks foreign.
//
// The package imports no mirror: it drives a Target (the mirror
// implements it), so the mirror's own tests can follow a server with it.
package follow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// Target is what follow drives: a mirror (mirror.Mirror implements it).
type Target interface {
	wal.Sink
	wal.CopySink
	// System is the cluster identity stored with the target (zero when
	// new); SetSystem stores it.
	System() wal.SystemIdentity
	SetSystem(ctx context.Context, sys wal.SystemIdentity) error
	// SetResumeLSN records where streaming starts after the initial copy.
	SetResumeLSN(ctx context.Context, lsn wal.LSN) error
	// MarkResync holds a ready table's changes until it is copied again.
	MarkResync(ctx context.Context, table, reason string) error
	// CopyStates returns every recorded table's copy LSN and the tables
	// that are not ready.
	CopyStates() (copiedAt map[string]wal.LSN, notReady []string)
	// NeedsResync lists the tables in state resync_needed; ResyncNeeded
	// signals when one was marked.
	NeedsResync() []string
	ResyncNeeded() <-chan struct{}
}

// ErrForeignSlot is wrapped by the refusal to follow a slot whose
// acknowledged changes this data directory does not have: an empty
// data_dir next to an existing slot, or a mirror behind its slot's
// confirmed_flush_lsn. `sidecar run --resync` starts over.
var ErrForeignSlot = errors.New("the slot is not this mirror's")

// Phases reported to Config.OnPhase.
const (
	PhaseCopying   = "copying"
	PhaseResyncing = "resyncing"
	PhaseStreaming = "streaming"
)

// Config configures Run.
type Config struct {
	ConnString  string
	Slot        string
	Publication string
	// Tables are the tables to follow; with AllTables, every table of the
	// publication (tables: ["*"]), resolved at the first start.
	Tables    []wal.TableName
	AllTables bool
	Target    Target
	// Sink receives the stream (default Target); a wrapper must pass
	// every call on to Target.
	Sink wal.Sink
	// CopiedAt is the filter shared with the target (mirror.Options.
	// CopiedAt), so the stream drops changes a copy already holds; nil
	// makes one.
	CopiedAt *wal.CopiedAt
	// DataDir holds the stream's spool of in-progress transactions and
	// SettledFile; "" puts the spool in the system's temporary directory
	// and records no settled LSN.
	DataDir string
	// Copy configures the initial copy and resyncs (ConnString is set
	// from Config).
	Copy replication.CopyOptions
	// Stream, if set, adjusts the stream's configuration before it starts
	// (tests shorten backoffs and status intervals).
	Stream func(*replication.StreamConfig)
	// HoldResyncs leaves tables that are not ready (or marked
	// resync_needed) to the caller: no resync at start or after a schema
	// change (tests of the resync path drive replication.Resync
	// themselves).
	HoldResyncs bool
	// SlotReleaseWait is how long a first start waits for an active slot
	// to be let go before calling it another consumer's (default 10 s).
	SlotReleaseWait time.Duration
	Logger          *slog.Logger
	// OnPhase, OnPublication (the publication as created or found, before
	// the copy), OnStreamer (once the stream is created) and OnError
	// (each retried stream error) are optional hooks; they must not block.
	OnPhase       func(phase string)
	OnPublication func(*replication.Publication)
	OnStreamer    func(*replication.Streamer)
	OnError       func(err error, retryIn time.Duration)
}

// Follower follows PostgreSQL into a Target; see the package doc.
type Follower struct {
	cfg      Config
	log      *slog.Logger
	prepared bool // Prepare done (Run's goroutine only)

	mu       sync.Mutex
	tables   []wal.TableName
	names    []string
	leaves   map[string][]string // followed partitioned tables read as their leaves (partitions.go)
	streamer *replication.Streamer
	slotLSN  wal.LSN
}

// New returns a Follower; Run it once.
func New(cfg Config) *Follower {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SlotReleaseWait <= 0 {
		cfg.SlotReleaseWait = 10 * time.Second
	}
	if cfg.Sink == nil {
		cfg.Sink = cfg.Target
	}
	if cfg.CopiedAt == nil {
		cfg.CopiedAt = wal.NewCopiedAt()
	}
	cfg.Copy.ConnString = cfg.ConnString
	if cfg.Copy.Logger == nil {
		cfg.Copy.Logger = cfg.Logger // the copy logs why it waits or starts over
	}
	f := &Follower{cfg: cfg, log: cfg.Logger, tables: slices.Clone(cfg.Tables)}
	for _, t := range f.tables {
		f.names = append(f.names, t.String())
	}
	return f
}

// Run follows until ctx ends (nil) or a fatal error.
func Run(ctx context.Context, cfg Config) error { return New(cfg).Run(ctx) }

// Tables returns the canonical names of the tables followed (for "*":
// once the publication or the mirror resolved them).
func (f *Follower) Tables() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.names)
}

// Streamer returns the stream once it is created (nil before).
func (f *Follower) Streamer() *replication.Streamer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.streamer
}

// SlotLSN returns the consistent point of the slot this run created (0
// when it resumed).
func (f *Follower) SlotLSN() wal.LSN {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.slotLSN
}

func (f *Follower) phase(p string) {
	if f.cfg.OnPhase != nil {
		f.cfg.OnPhase(p)
	}
}

// resumeTables lists again, on a restart, what the follower follows: with
// tables ["*"] the copies the mirror holds plus the partitioned roots of
// copied leaves, then every followed partitioned table's leaves. One
// catalog connection serves both listings.
func (f *Follower) resumeTables(ctx context.Context) error {
	t := f.cfg.Target
	var conn *pgx.Conn // one catalog connection for the roots and their leaves
	if !f.cfg.Copy.ViaPartitionRoot {
		c, err := f.catalogConn(ctx, "list partitions")
		if err != nil {
			return err
		}
		defer c.Close(context.WithoutCancel(ctx))
		conn = c
	}
	if f.cfg.AllTables && len(f.names) == 0 { // resolved at the first start
		copied, _ := t.CopyStates()
		var names []string
		for n := range copied {
			names = append(names, n)
		}
		// The mirror holds the leaves' copies, not their partitioned
		// roots: those "*" follows are listed again, so that FROM
		// root reads its leaves and a partition attached later is
		// followed, as after the first start.
		roots, err := f.starRootsOf(ctx, conn, copied)
		if err != nil {
			return err
		}
		names = append(names, roots...)
		slices.Sort(names)
		if err := f.setTables(names); err != nil {
			return err
		}
	}
	return f.resolvePartitions(ctx, conn)
}

// Run prepares the target (Prepare, unless done already) and streams
// until ctx ends.
func (f *Follower) Run(ctx context.Context) error {
	if !f.prepared {
		if err := f.Prepare(ctx); err != nil {
			return err
		}
	}
	return f.stream(ctx)
}

// Prepare does everything before streaming: it checks the cluster
// identity; for a new target creates the publication, the slot and the
// initial copy; for one that resumes checks the slot is its own; and
// copies again every table that is not ready. A target prepared and then
// closed resumes where the copy left it (tests copy, change the server,
// then stream).
func (f *Follower) Prepare(ctx context.Context) error {
	t := f.cfg.Target
	sys, err := f.checkSystem(ctx)
	if err != nil {
		return err
	}
	if t.Durable() == 0 {
		if err := f.initialCopy(ctx, sys); err != nil {
			return err
		}
	} else {
		if err := f.checkSlotBehind(ctx); err != nil {
			return err
		}
		if err := f.resumeTables(ctx); err != nil {
			return err
		}
	}
	// Tables copied after the slot's start (resyncs) drop their older
	// changes from the stream; the target records each table's copy LSN.
	copied, _ := t.CopyStates()
	for n, at := range copied {
		if at > 0 {
			f.cfg.CopiedAt.Set(n, at)
		}
	}
	if !f.cfg.HoldResyncs {
		if err := f.resyncMissing(ctx); err != nil {
			return err
		}
	}
	f.prepared = true
	return nil
}

// stream streams into the target, resyncing tables the target marks,
// until ctx ends.
func (f *Follower) stream(ctx context.Context) error {
	t := f.cfg.Target
	sink := f.cfg.Sink
	if f.cfg.DataDir != "" {
		ss := &settlingSink{Sink: sink, dir: f.cfg.DataDir, settled: ReadSettled(f.cfg.DataDir).LSN}
		if r, ok := t.(streamReacher); ok {
			// Settle runs on the stream's settler goroutine, which the
			// session waits for; the landing's work is bounded.
			ss.reach = func(lsn wal.LSN) error { return r.StreamReached(context.WithoutCancel(ctx), lsn) }
		}
		sink = ss
	}
	scfg := replication.StreamConfig{
		ConnString:  f.cfg.ConnString,
		Slot:        f.cfg.Slot,
		Publication: f.cfg.Publication,
		Sink:        sink,
		System:      t.System(),
		CopiedAt:    f.cfg.CopiedAt,
		SpoolDir:    f.cfg.DataDir,
		Logger:      f.log,
		OnError:     f.cfg.OnError,
	}
	if f.cfg.Stream != nil {
		f.cfg.Stream(&scfg)
	}
	s, err := replication.NewStreamer(scfg)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.streamer = s
	f.mu.Unlock()
	if f.cfg.OnStreamer != nil {
		f.cfg.OnStreamer(s)
	}
	f.phase(PhaseStreaming)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Run(sctx) }()
	var needed <-chan struct{}
	if !f.cfg.HoldResyncs {
		needed = t.ResyncNeeded()
	}
	var retry <-chan time.Time // a failed resync's next attempt
	failures := 0              // failed resync attempts in a row
	for {
		select {
		case err := <-errc:
			if err != nil {
				return fmt.Errorf("follow: %w", err)
			}
			return nil
		case <-needed:
			if retry != nil {
				continue // a new request while a retry waits: the retry runs it
			}
		case <-retry:
			retry = nil
		}
		// A schema change puts a table in resync_needed; the target
		// holds its changes until the copy lands. A copy can leave a
		// table needing another one: until none is left.
		for need := t.NeedsResync(); len(need) > 0; need = t.NeedsResync() {
			err := f.resync(ctx, need)
			if err == nil {
				failures = 0
				continue
			}
			if ctx.Err() == nil && retryableResync(err) {
				wait := resyncBackoff(failures)
				failures++
				retry = time.After(wait)
				f.log.Error("resync failed; its changes stay held and it is tried again", "err", err, "retry_in", wait, "attempts", failures)
				break
			}
			if ctx.Err() == nil && f.forgetVanished(ctx, need) { // startables.go
				continue
			}
			cancel()
			<-errc
			return err
		}
		f.phase(PhaseStreaming)
	}
}

func (f *Follower) setTables(names []string) error {
	var tables []wal.TableName
	for _, n := range names {
		tn, err := wal.ParseTableName(n)
		if err != nil {
			return err
		}
		tables = append(tables, tn)
	}
	f.mu.Lock()
	f.tables, f.names = tables, names
	f.mu.Unlock()
	return nil
}

func (f *Follower) copyTables() []wal.TableName {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.tables)
}

// checkSystem refuses another cluster or timeline than the target's, and
// returns the server's identity.
func (f *Follower) checkSystem(ctx context.Context) (wal.SystemIdentity, error) {
	rc, err := replication.ConnectReplication(ctx, f.cfg.ConnString)
	if err != nil {
		return wal.SystemIdentity{}, fmt.Errorf("connect for replication: %w", err)
	}
	defer rc.Close(context.Background())
	sys, err := replication.IdentifySystem(ctx, rc)
	if err != nil {
		return sys, err
	}
	stored := f.cfg.Target.System()
	if stored.SystemID == "" && stored.Timeline == 0 {
		return sys, nil // a new mirror: recorded before its slot is created
	}
	if err := sys.Check(stored); err != nil {
		return sys, fmt.Errorf("%w; if the server was replaced on purpose, start over with `sidecar run --resync`", err)
	}
	return sys, nil
}

// checkSlotBehind refuses a target whose durable LSN is behind what its
// slot confirmed: the changes between were acknowledged to another
// consumer of the slot (another data directory, a restored backup) and
// are no longer in the slot.
func (f *Follower) checkSlotBehind(ctx context.Context) error {
	rc, err := replication.ConnectReplication(ctx, f.cfg.ConnString)
	if err != nil {
		return fmt.Errorf("connect for replication: %w", err)
	}
	defer rc.Close(context.Background())
	info, err := replication.SlotStatus(ctx, rc, f.cfg.Slot)
	if err != nil || !info.Exists {
		return err // a lost slot is the stream's error to report
	}
	var st Settled
	if f.cfg.DataDir != "" {
		st = ReadSettled(f.cfg.DataDir)
	}
	return slotCovered(f.cfg.Slot, f.cfg.DataDir, info.ConfirmedFlush, f.cfg.Target.Durable(), st)
}

// initialCopy creates the publication, then the slot, and copies every
// table under the slot's exported snapshot.
func (f *Follower) initialCopy(ctx context.Context, sys wal.SystemIdentity) error {
	t := f.cfg.Target
	f.phase(PhaseCopying)
	// A data directory that recorded the server's identity may have
	// created the slot (a first start that died); an empty one did not.
	hadIdentity := t.System() != (wal.SystemIdentity{})
	conn, err := replication.Connect(ctx, f.cfg.ConnString)
	if err != nil {
		return err
	}
	spec := replication.PublicationSpec{Name: f.cfg.Publication, Tables: f.Tables()}
	if f.cfg.AllTables {
		spec.Tables = []string{"*"}
	}
	pub, err := replication.EnsurePublication(ctx, conn, spec)
	conn.Close(context.Background())
	if err != nil {
		return fmt.Errorf("publication %q: %w", f.cfg.Publication, err)
	}
	if f.cfg.AllTables {
		var names []string
		for _, tn := range pub.Tables {
			names = append(names, tn.String())
		}
		if err := f.setTables(names); err != nil {
			return err
		}
	}
	if f.cfg.OnPublication != nil {
		f.cfg.OnPublication(pub)
	}
	if err := f.dropOrphanSlot(ctx, hadIdentity); err != nil {
		return err
	}
	// Recorded before the slot exists, so that after a crash at any point
	// from here on the slot counts as this data directory's own.
	if err := t.SetSystem(ctx, sys); err != nil {
		return err
	}
	snap, err := replication.CreateSlot(ctx, f.cfg.ConnString, f.cfg.Slot)
	if err != nil {
		return err
	}
	defer snap.Close(context.Background())
	if err := t.SetSystem(ctx, snap.System); err != nil {
		return err
	}
	f.mu.Lock()
	f.slotLSN = snap.LSN
	f.mu.Unlock()
	// Tables a first start that died copied under the old slot's snapshot
	// miss the changes between it and this slot's start: copy them again
	// (the copy replaces only a table that is not ready).
	copied, notReady := t.CopyStates()
	for n := range copied {
		if !slices.Contains(notReady, n) {
			if err := t.MarkResync(ctx, n, "the initial copy was interrupted; copying again under the new slot's snapshot"); err != nil {
				return err
			}
		}
	}
	if err := f.resolvePartitions(ctx, nil); err != nil {
		return err
	}
	tables := f.copyTables()
	f.log.Info("slot created; copying", "slot", f.cfg.Slot, "consistent_point", snap.LSN, "tables", len(tables))
	if err := replication.Copy(ctx, f.cfg.Copy, snap.Snapshot(), tables, t); err != nil {
		err = fmt.Errorf("initial copy (the next start copies the unfinished tables again): %w", err)
		return errors.Join(err, f.dropFailedSlot(ctx, snap))
	}
	// Streaming starts at the consistent point; recorded only now, so a
	// mirror with a resume LSN has every table copied or being resynced.
	if err := t.SetResumeLSN(ctx, snap.LSN); err != nil {
		return err
	}
	f.log.Info("initial copy done", "consistent_point", snap.LSN)
	return nil
}

// dropOrphanSlot: a new mirror that recorded the server's identity, with
// an existing, idle slot, means a first start that died between creating
// the slot and recording the copy. Nothing in the data directory depends
// on that slot, so it is recreated. A slot still active may be held by the
// walsender of that start, which keeps it until it notices its client is
// gone: it is given SlotReleaseWait to let go before the slot counts as
// another consumer's. An empty data directory (no identity: no start ever
// got as far as creating a slot from it) next to an existing slot is an
// error: the slot is another data directory's, and recreating it would
// lose what that mirror has not applied yet.
func (f *Follower) dropOrphanSlot(ctx context.Context, hadIdentity bool) error {
	rc, err := replication.ConnectReplication(ctx, f.cfg.ConnString)
	if err != nil {
		return err
	}
	defer rc.Close(context.Background())
	info, err := replication.SlotStatus(ctx, rc, f.cfg.Slot)
	if err != nil || !info.Exists {
		return err
	}
	if info.Active {
		f.log.Info("the slot is still in use; waiting for its consumer (a start that died?) to let go", "slot", f.cfg.Slot, "within", f.cfg.SlotReleaseWait)
		if info, err = replication.AwaitSlotReleased(ctx, rc, f.cfg.Slot, f.cfg.SlotReleaseWait); err != nil || !info.Exists {
			return err
		}
	}
	if info.Active {
		return fmt.Errorf("slot %q exists and is in use by another process (another sidecar with the same slot name?); choose another `slot` or stop the other consumer", f.cfg.Slot)
	}
	if !hadIdentity {
		return fmt.Errorf("%w: data_dir %s holds no mirror, but slot %q exists (confirmed_flush_lsn %s): it belongs to the mirror in another data directory "+
			"(an unmounted volume or a mistyped data_dir?); point data_dir at that mirror, or start over with `sidecar run --resync` "+
			"(drops the slot and copies every table again)", ErrForeignSlot, f.cfg.DataDir, f.cfg.Slot, info.ConfirmedFlush)
	}
	f.log.Warn("the data directory has no mirror but the slot exists (an earlier first start did not finish); recreating the slot", "slot", f.cfg.Slot)
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return replication.DropSlot(dctx, rc, f.cfg.Slot)
}

// resyncMissing copies again, under a fresh snapshot, every followed table
// that is not ready: a copy a crash interrupted, or a schema change.
func (f *Follower) resyncMissing(ctx context.Context) error {
	copied, notReady := f.cfg.Target.CopyStates()
	var missing []string
	for _, t := range f.Tables() {
		for _, n := range f.copiedNames(t) {
			if _, ok := copied[n]; !ok || slices.Contains(notReady, n) {
				missing = append(missing, n)
			}
		}
	}
	missing = append(missing, f.cfg.Target.NeedsResync()...)
	slices.Sort(missing)
	missing = slices.Compact(missing)
	if len(missing) == 0 {
		return nil
	}
	return f.resync(ctx, missing)
}

func (f *Follower) resync(ctx context.Context, names []string) error {
	f.phase(PhaseResyncing)
	var tables []wal.TableName
	for _, n := range names {
		t, err := wal.ParseTableName(n)
		if err != nil {
			return err
		}
		tables = append(tables, t)
	}
	f.log.Info("copying tables again under a fresh snapshot", "tables", names)
	at, err := replication.Resync(ctx, f.cfg.Copy, tables, f.cfg.Target)
	if err != nil {
		return fmt.Errorf("resync %v: %w", names, err)
	}
	for _, n := range names {
		f.cfg.CopiedAt.Set(n, at)
	}
	// The copies land once the mirror has taken every commit below at
	// (mirror/landing.go): a commit after it, carried by the stream, lets
	// them land on an idle database at once. A standby cannot write it;
	// there they land with the next commit or once the stream's
	// keepalives pass at (settlingSink.reach).
	if err := replication.EmitMarker(ctx, f.cfg.ConnString, ResyncMarkerPrefix, at.String()); err != nil {
		f.log.Warn("could not emit the resync's marker; its copies land with the next commit the stream carries or once its keepalives pass the copy", "tables", names, "err", err)
	}
	f.log.Info("resync done", "tables", names, "at", at)
	return nil
}

// ResyncMarkerPrefix is the prefix of the logical decoding message a
// resync emits after its copy (replication.EmitMarker).
const ResyncMarkerPrefix = "sidecar.resync"
