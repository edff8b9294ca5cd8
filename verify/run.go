package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// DefaultCatchUpTimeout bounds the wait for the mirror to apply every
// commit up to the pinned LSN when Runner.CatchUpTimeout is zero.
const DefaultCatchUpTimeout = 30 * time.Second

// DefaultMaxRowDiffs is how many differing rows per table a report
// shows with both sides' values when Runner.MaxRowDiffs is zero.
const DefaultMaxRowDiffs = 1000

// ErrMirrorBehind is wrapped by Run's error when the mirror has not
// applied everything up to the pinned LSN in time (or cannot, because no
// stream feeds it), so no version of the mirror can be compared with
// PostgreSQL's snapshot.
var ErrMirrorBehind = errors.New("the mirror has not reached the pinned LSN")

// Progress reports an LSN through which the mirror has applied every
// commit (every commit with end LSN ≤ it is in the mirror), as the stream
// that feeds it knows. StreamProgress builds one from a Streamer's
// statistics.
type Progress func() wal.LSN

// StreamProgress returns the Progress of a mirror fed by a stream whose
// positions stats reports (replication.Streamer.Stats): past the server's
// WAL end of the last keepalive once every commit received before that
// keepalive has been handed to the mirror, or the last commit handed to
// it. stats is read twice: the keepalive position first, so a commit
// received before it is counted in Received by the second read.
func StreamProgress(stats func() replication.StreamStats) Progress {
	return func() wal.LSN {
		walEnd := stats().ServerWALEnd
		s := stats()
		if s.Committed >= s.Received {
			return max(walEnd, s.Committed)
		}
		return s.Committed
	}
}

// Runner verifies a mirror's tables against PostgreSQL at one exact LSN:
// it pins PostgreSQL (Pin), waits until the mirror has applied every
// commit up to the pinned LSN C, and compares each table at the mirror's
// version "last commit with end LSN ≤ C" (VerifyTable).
type Runner struct {
	// ConnString reaches PostgreSQL with a role that has REPLICATION (it
	// holds a password: never log it).
	ConnString string
	// Mirror is the mirror to verify.
	Mirror *mirror.Mirror
	// Publication is the publication that feeds the mirror; a table it
	// publishes with a column list or row filter is refused.
	Publication string
	// Progress reports how far the stream feeding the mirror has applied
	// it; nil when no stream runs (the mirror is then only usable if it
	// already holds a commit at or past C, which a fresh pin never is).
	Progress Progress
	// CatchUpTimeout bounds the wait for the mirror to reach C (default
	// DefaultCatchUpTimeout).
	CatchUpTimeout time.Duration
	// BusyWait bounds the wait, before pinning, for the tables to verify
	// to finish their initial copy or resync (default DefaultBusyWait;
	// see WithBusyWait). Only a runner fed by a stream waits.
	BusyWait time.Duration
	// Pin configures the pin (timeout, slot prefix).
	Pin PinOptions
	// Options tune each table's comparison.
	Options Options
	// MaxRowDiffs bounds the differing rows per table reported with both
	// sides' values (default DefaultMaxRowDiffs); the rest are keys only.
	MaxRowDiffs int
	// Slot is the replication slot that feeds the mirror. With no stream
	// running (Progress nil), a mirror behind C is still comparable if no
	// transaction touching the publication committed between its last
	// commit and C; Run proves that by peeking at the slot (which does
	// not consume it). Empty: no such proof, a mirror behind C is an error.
	Slot   string
	Logger *slog.Logger
	// NoMarker turns off the catch-up marker (see emitMarker): the wait
	// for C then lasts until the server's next keepalive, which can take
	// seconds on an idle stream.
	NoMarker bool
	// Workers is the number of connections level 0 of a large table is
	// split over (VerifyTableParallel; Options.ParallelRows says how
	// large): 0 means DefaultWorkers, 1 keeps every scan on the pinned
	// connection. The workers import the pinned transaction's snapshot.
	Workers int
	// OnPin, if set, is called once PostgreSQL is pinned (benchmarks read
	// the pinned backend's CPU time through it). It must not use the
	// connection.
	OnPin func(p *Pinned)
	// OnWorkers, if set, is called with the backend pids of the
	// connections a parallel level 0 opens for a table, before they scan
	// (benchmarks add their CPU time: OnPin's backend no longer does all
	// of level 0). It must not block.
	OnWorkers func(table string, pids []uint32)

	// tree, if set, replaces each table's tree before the comparison
	// (tests corrupt the mirror's side through it).
	tree func(ctx context.Context, t *mirror.Tree) (*mirror.Tree, error)
}

// Run verifies the named tables (mirror keys, or names as config accepts
// them), or every table of the mirror when names is empty. It returns an error only when nothing could
// be compared (PostgreSQL unreachable, the pin timed out, the mirror did
// not reach C); a table that could not be verified is reported with
// ResultError in the report.
//
// A table being copied or resynced is waited for first (waitNotBusy). With
// a stream (the daemon), a table found, once pinned, to be in a resync or
// to have other columns in PostgreSQL than in the mirror (a schema change
// that no row change has carried to the mirror yet: it is then marked
// for a resync) is verified again once its resync is done, within the
// same wait.
func (r *Runner) Run(ctx context.Context, names []string) (*Report, error) {
	// GC waits for this run before deleting what its version reads.
	defer r.Mirror.Reading()()
	deadline := time.Now().Add(r.busyWait(ctx))
	for attempt := 1; ; attempt++ {
		if err := r.waitNotBusy(ctx, names, deadline); err != nil {
			return nil, err
		}
		rep, pending, err := r.runOnce(ctx, names)
		if err != nil || len(pending) == 0 || r.Progress == nil || attempt == maxAttempts {
			return rep, err
		}
		for _, name := range pending {
			if err := r.Mirror.MarkResync(ctx, name, "verify: PostgreSQL's columns differ from the mirror's (a schema change no row change has carried yet)"); err != nil {
				return nil, fmt.Errorf("verify: mark %s for a resync: %w", name, err)
			}
		}
		r.logger().Info("verify: a table's schema changed while verifying; verifying again once it is resynced", "tables", strings.Join(pending, ","), "attempt", attempt)
	}
}

// maxAttempts bounds Run's verifications of one request (see Run).
const maxAttempts = 3

// runOnce pins PostgreSQL and verifies the tables once. pending lists the
// tables that could not be compared because a schema change is waiting
// for (or needs) a resync.
func (r *Runner) runOnce(ctx context.Context, names []string) (_ *Report, pending []string, _ error) {
	start := time.Now()
	log := r.logger()
	infos := map[string]mirror.TableInfo{}
	var all []string
	for _, ti := range r.Mirror.Tables() {
		infos[ti.Name] = ti
		all = append(all, ti.Name)
	}
	if len(names) == 0 {
		names = all
	}
	names = slices.Clone(names)
	for i, n := range names {
		if _, ok := infos[n]; ok {
			continue
		}
		// A name as config accepts it (bare = public, unquoted folded).
		if tn, err := pgident.ParseTable(n); err == nil {
			if _, ok := infos[tn.String()]; ok {
				names[i] = tn.String()
				continue
			}
		}
		return nil, nil, fmt.Errorf("verify: table %q: %w (it has: %s)", n, mirror.ErrUnknownTable, strings.Join(all, ", "))
	}
	if len(names) == 0 {
		return nil, nil, errors.New("verify: the mirror follows no table yet")
	}
	cfg, err := pgconn.ParseConfig(r.ConnString)
	if err != nil {
		return nil, nil, fmt.Errorf("verify: postgres.url: %w", err)
	}
	p, err := Pin(ctx, cfg, r.Pin)
	if err != nil {
		return nil, nil, fmt.Errorf("verify: %w", err)
	}
	pinned := time.Now()
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := p.Close(closeCtx); err != nil {
			log.Warn("verify: unpin", "err", err)
		}
	}()
	if r.OnPin != nil {
		r.OnPin(p)
	}
	c := wal.LSN(p.LSN())
	rep := &Report{LSN: c.String(), Started: start.UTC()}
	if rep.CaughtUp, err = r.catchUp(ctx, c); err != nil {
		return nil, nil, err
	}
	rep.PinSeconds = pinned.Sub(start).Seconds()
	rep.CatchUpSeconds = time.Since(pinned).Seconds()
	v, err := r.Mirror.VersionAt(c)
	switch {
	case err == nil:
		rep.MirrorVersion = v.EndLSN.String()
	case errors.Is(err, mirror.ErrNoVersion):
		// Tables copied before any commit: their trees are at the copy.
	default:
		return nil, nil, fmt.Errorf("verify: mirror version at %s: %w", c, err)
	}
	conn := p.Conn()
	par := r.parallel(ctx, cfg, conn)
	for i, name := range names {
		tr, stale := r.verifyOne(ctx, conn, par, infos[name], c, i)
		if stale {
			pending = append(pending, name)
		}
		log.Info("verified", "table", name, "lsn", c, "result", tr.Result, "rows", tr.PostgresCount, "buckets", tr.Buckets, "dirty", tr.DirtyBuckets, "differences", tr.Differences, "err", tr.Error)
		rep.Tables = append(rep.Tables, tr)
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("verify: %w", ctx.Err())
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Result = rep.overall()
	return rep, pending, nil
}

// ErrBusy is wrapped by Run's error when a table to verify is being
// copied (the initial copy) or resynced and stayed so for the whole wait
// (Runner.BusyWait): its mirror cannot be compared yet. The error names
// the table and since when.
var ErrBusy = errors.New("a table to verify is being copied or resynced")

// DefaultBusyWait bounds how long Run waits for copies and resyncs to
// finish when Runner.BusyWait is zero.
const DefaultBusyWait = 30 * time.Second

type busyWaitKey struct{}

// WithBusyWait returns ctx carrying a bound for Run's wait for copies and
// resyncs that overrides Runner.BusyWait: the API passes the one a
// client asked for (`sidecar verify --wait`) to the daemon's runner.
func WithBusyWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, busyWaitKey{}, d)
}

// busy returns the tables among names (all when empty) that are being
// copied or resynced, and whether the mirror has no table yet.
func (r *Runner) busy(names []string) ([]mirror.Busy, bool) {
	var out []mirror.Busy
	for _, b := range r.Mirror.Busy() {
		if len(names) == 0 || slices.ContainsFunc(names, func(n string) bool { return sameTable(n, b.Table) }) {
			out = append(out, b)
		}
	}
	return out, len(r.Mirror.Tables()) == 0
}

// sameTable: name (a mirror key, or a name as config accepts it) names
// the mirror's table key.
func sameTable(name, key string) bool {
	if name == key {
		return true
	}
	tn, err := pgident.ParseTable(name)
	return err == nil && tn.String() == key
}

// DescribeBusy says what b is doing and since when, for messages.
func DescribeBusy(b mirror.Busy, now time.Time) string {
	since := ""
	if !b.CopyStarted.IsZero() {
		since = fmt.Sprintf("its copy started %s, %s ago", b.CopyStarted.UTC().Format(time.RFC3339), now.Sub(b.CopyStarted).Round(time.Second))
	}
	if !b.Resync {
		return fmt.Sprintf("%s is being copied (initial copy; %s)", b.Table, since)
	}
	if since == "" {
		since = "its copy has not started yet"
	}
	if b.HeldUntil != 0 {
		// Built, waiting for the stream to take every commit below it.
		since = fmt.Sprintf("its copy is built and held until the stream reaches LSN %s, the copy's snapshot, then lands; %s", b.HeldUntil, since)
	}
	return fmt.Sprintf("%s is being resynced (its changes are held from commit LSN %s; %s)", b.Table, b.HeldFrom, since)
}

// busyWait is the bound of Run's waits for copies and resyncs.
func (r *Runner) busyWait(ctx context.Context) time.Duration {
	wait := r.BusyWait
	if d, ok := ctx.Value(busyWaitKey{}).(time.Duration); ok {
		wait = d
	}
	if wait <= 0 {
		wait = DefaultBusyWait
	}
	return wait
}

// waitNotBusy returns once no table to verify is being copied or
// resynced, and the mirror has a table. With a stream (Progress set: the
// daemon) it waits for that, up to BusyWait (or the context's
// WithBusyWait), logging once what it waits for; with no stream nothing
// would change, so it fails at once. The error wraps ErrBusy and names
// each table and since when.
func (r *Runner) waitNotBusy(ctx context.Context, names []string, deadline time.Time) error {
	start := time.Now()
	wait := deadline.Sub(start).Round(time.Millisecond)
	for logged := false; ; {
		busy, empty := r.busy(names)
		if len(busy) == 0 && !empty {
			if logged {
				r.logger().Info("verify: copies and resyncs done; verifying", "waited", time.Since(start).Round(time.Millisecond))
			}
			return nil
		}
		var what []string
		for _, b := range busy {
			what = append(what, DescribeBusy(b, time.Now()))
		}
		if len(what) == 0 {
			what = append(what, "the mirror follows no table yet (its initial copy has not started)")
		}
		msg := strings.Join(what, "; ")
		switch {
		case r.Progress == nil:
			return fmt.Errorf("verify: %w: %s, and no daemon is running to finish it (start `sidecar run`; verify then runs inside the daemon)", ErrBusy, msg)
		case !time.Now().Before(deadline):
			return fmt.Errorf("verify: %w: still after waiting %s: %s", ErrBusy, r.busyWait(ctx), msg)
		case !logged:
			logged = true
			r.logger().Info("verify: waiting for copies and resyncs to finish", "max_wait", wait, "busy", msg)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("verify: waiting for %s: %w", msg, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// catchUp waits until the mirror has applied every commit with end LSN
// ≤ c, polling Progress and the mirror's head, and says how it knows.
// Without a stream it tries the slot proof (provenIdle).
func (r *Runner) catchUp(ctx context.Context, c wal.LSN) (string, error) {
	timeout := r.CatchUpTimeout
	if timeout <= 0 {
		timeout = DefaultCatchUpTimeout
	}
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	if r.Progress != nil && r.Mirror.Head().EndLSN < c && !r.NoMarker {
		if err := r.emitMarker(ctx, c); err != nil {
			// Not fatal: the stream passes C at its next keepalive.
			r.logger().Warn("verify: could not emit the catch-up marker; waiting for the stream's next keepalive", "err", err)
		}
	}
	for {
		head := r.Mirror.Head().EndLSN
		if head >= c {
			return fmt.Sprintf("the mirror has applied a commit ending at %s", head), nil
		}
		if r.Progress != nil {
			if p := r.Progress(); p >= c {
				return fmt.Sprintf("the stream has applied through %s", p), nil
			}
		} else {
			if r.Slot == "" {
				return "", fmt.Errorf("verify: %w: PostgreSQL is pinned at %s, the mirror's last commit ends at %s, and no daemon is streaming into it, so it cannot catch up (start `sidecar run`; verify then runs inside the daemon)",
					ErrMirrorBehind, c, head)
			}
			ok, how, err := r.provenIdle(ctx, head, c)
			switch {
			case slotInUse(err) && time.Now().Before(deadline):
				// The walsender of a stream that has just stopped (a
				// daemon shut down a moment ago) releases the slot only
				// once it notices its client is gone: wait for it,
				// within the catch-up timeout.
				r.logger().Debug("verify: the slot is still in use; waiting for it to be released", "slot", r.Slot, "err", err)
			case err != nil:
				hint := ""
				if slotInUse(err) {
					hint = fmt.Sprintf(" (still in use after %v: is a daemon streaming from it? verify then runs inside the daemon)", timeout)
				}
				return "", fmt.Errorf("verify: %w: PostgreSQL is pinned at %s, the mirror's last commit ends at %s and no daemon is streaming; checking slot %s for commits in between failed%s: %w",
					ErrMirrorBehind, c, head, r.Slot, hint, err)
			case ok:
				return how, nil
			default:
				return "", fmt.Errorf("verify: %w: PostgreSQL is pinned at %s, the mirror's last commit ends at %s, %s, and no daemon is streaming, so it cannot catch up (start `sidecar run`; verify then runs inside the daemon)",
					ErrMirrorBehind, c, head, how)
			}
		}
		if err := r.Mirror.Err(); err != nil {
			return "", fmt.Errorf("verify: the mirror stopped: %w", err)
		}
		if r.Progress != nil && time.Now().After(deadline) {
			return "", fmt.Errorf("verify: %w: PostgreSQL is pinned at %s, the mirror has applied through %s after waiting %v (is the stream connected? see `sidecar status`)",
				ErrMirrorBehind, c, max(head, r.Progress()), timeout)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("verify: waiting for the mirror to reach %s: %w", c, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// MarkerPrefix is the prefix of the transactional logical decoding
// message Runner emits after pinning.
const MarkerPrefix = "sidecar.verify"

// emitMarker commits a transaction holding only a logical decoding
// message (prefix MarkerPrefix, content the pinned LSN). Its commit ends
// after c, and the stream carries it (the streamer asks pgoutput for
// messages), so once the mirror has applied it, every commit ending at or
// before c is applied: the wait for C does not depend on when the server
// next sends a keepalive. It writes WAL only, no table; the mirror takes
// the commit as durable but records no version for it (it changed no
// row), so a verify leaves history as it was.
func (r *Runner) emitMarker(ctx context.Context, c wal.LSN) error {
	return replication.EmitMarker(ctx, r.ConnString, MarkerPrefix, c.String())
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}

// slotInUse reports whether err is PostgreSQL's "replication slot is
// active for PID …" (object_in_use).
func slotInUse(err error) bool { return replication.SlotInUse(err) }

// provenIdle reports whether no transaction that changed a published
// table committed with end LSN in (head, c]: then the mirror at head holds
// exactly what PostgreSQL's snapshot at c holds for the publication. It
// decodes the mirror's own slot up to c without consuming it
// (pg_logical_slot_peek_binary_changes with pgoutput, which sends nothing
// for transactions that touched no published table) and reads the end
// LSN of each COMMIT message.
func (r *Runner) provenIdle(ctx context.Context, head, c wal.LSN) (bool, string, error) {
	cfg, err := pgconn.ParseConfig(r.ConnString)
	if err != nil {
		return false, "", err
	}
	delete(cfg.RuntimeParams, "replication")
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	slot, err := QuoteLiteral(r.Slot)
	if err != nil {
		return false, "", err
	}
	pub, err := QuoteLiteral(r.Publication)
	if err != nil {
		return false, "", err
	}
	// A COMMIT message is 'C', flags (1 byte), commit LSN, end LSN (8
	// bytes each, big-endian), commit time. Only transactions with a
	// change ('I', 'U', 'D', 'T') count: before PostgreSQL 15 pgoutput
	// also sends BEGIN and COMMIT of transactions that touched no
	// published table. Messages arrive in order; each 'B' starts the next
	// transaction.
	rows, err := simpleQuery(ctx, conn, fmt.Sprintf(`SELECT count(*), max(e)::text FROM (
  SELECT max(CASE WHEN k = 67 THEN ('x' || encode(substring(data FROM 11 FOR 8), 'hex'))::bit(64)::bigint END) AS e,
         bool_or(k IN (73, 85, 68, 84)) AS changed
    FROM (SELECT data, pg_catalog.get_byte(data, 0) AS k,
                 sum(CASE WHEN pg_catalog.get_byte(data, 0) = 66 THEN 1 ELSE 0 END) OVER (ORDER BY n) AS tx
            FROM pg_catalog.pg_logical_slot_peek_binary_changes(%s, '%s'::pg_lsn, NULL,
                 'proto_version', '1', 'publication_names', %s) WITH ORDINALITY AS p(lsn, xid, data, n)) m
   GROUP BY tx) c
 WHERE changed AND e > %d AND e <= %d`, slot, c, pub, uint64(head), uint64(c)))
	if err != nil {
		return false, "", err
	}
	if len(rows) != 1 || len(rows[0]) != 2 {
		return false, "", errors.New("peek: unexpected result shape")
	}
	if n := string(rows[0][0]); n != "0" {
		return false, fmt.Sprintf("%s transactions of publication %s committed in between (slot %s)", n, r.Publication, r.Slot), nil
	}
	return true, fmt.Sprintf("no transaction of publication %s committed between the mirror's last commit %s and %s (slot %s, peeked)", r.Publication, head, c, r.Slot), nil
}

// verifyOne verifies one table inside a savepoint, so that a failed
// statement leaves the pinned transaction usable for the next table.
// verifyOne compares one table; stale reports that it could not because
// its schema change waits for (or needs) a resync (schemaPending).
func (r *Runner) verifyOne(ctx context.Context, conn *pgconn.PgConn, par *parallelPlan, info mirror.TableInfo, c wal.LSN, i int) (tr TableReport, stale bool) {
	start := time.Now()
	tr = TableReport{Table: info.Name}
	sp := fmt.Sprintf("verify_%d", i)
	if _, err := conn.Exec(ctx, "SAVEPOINT "+sp).ReadAll(); err != nil {
		tr.fail(fmt.Errorf("savepoint: %w", err))
		return tr, false
	}
	if err := r.compare(ctx, conn, par, info, c, &tr); err != nil {
		tr.fail(err)
		stale = errors.As(err, new(schemaPending))
		if _, rerr := conn.Exec(ctx, "ROLLBACK TO SAVEPOINT "+sp).ReadAll(); rerr != nil {
			tr.Error += fmt.Sprintf(" (and the pinned transaction could not recover: %v)", rerr)
		}
	} else if _, err := conn.Exec(ctx, "RELEASE SAVEPOINT "+sp).ReadAll(); err != nil {
		tr.fail(fmt.Errorf("release savepoint: %w", err))
	}
	tr.Seconds = time.Since(start).Seconds()
	return tr, stale
}

func (r *Runner) compare(ctx context.Context, conn *pgconn.PgConn, par *parallelPlan, info mirror.TableInfo, c wal.LSN, tr *TableReport) error {
	if info.State != mirror.StateReady {
		return schemaPending{fmt.Errorf("table is %s in the mirror, not ready (a copy or resync is pending)", info.State)}
	}
	rel := info.Relation
	if rel == nil {
		return errors.New("the mirror has no schema for it yet")
	}
	if r.Publication != "" {
		if err := CheckPublication(ctx, conn, r.Publication, rel.Schema, rel.Name); err != nil {
			return err
		}
	}
	t, err := LoadTable(ctx, conn, rel.Schema, rel.Name)
	if err != nil {
		return err
	}
	if err := sameSchema(t, rel); err != nil {
		if now := r.stateOf(info.Name); now != mirror.StateReady {
			// Marked for a resync since Run began: say that, not how
			// the columns differ.
			return schemaPending{fmt.Errorf("table is %s in the mirror since this verification began (a schema change is being resynced)", now)}
		}
		return schemaPending{err}
	}
	tree, err := r.Mirror.TreeAt(ctx, info.Name, c)
	if err != nil {
		return err
	}
	if r.tree != nil {
		if tree, err = r.tree(ctx, tree); err != nil {
			return err
		}
	}
	mt, err := MirrorAt(tree)
	if err != nil {
		return err
	}
	var workers []*pgconn.PgConn
	if par != nil {
		n, err := mt.Count(ctx)
		if err != nil {
			return fmt.Errorf("mirror row count: %w", err)
		}
		if n < r.Options.withDefaults().ParallelRows {
			par = nil
		}
	}
	if par != nil {
		if workers, err = OpenWorkers(ctx, par.cfg, par.snapshot, par.workers); err != nil {
			return fmt.Errorf("parallel level 0: %w", err)
		}
		if r.OnWorkers != nil {
			pids := make([]uint32, len(workers))
			for i, w := range workers {
				pids[i] = w.PID()
			}
			r.OnWorkers(info.Name, pids)
		}
		defer func() {
			if err := CloseWorkers(ctx, workers); err != nil {
				r.logger().Warn("verify: close level-0 workers", "table", info.Name, "err", err)
			}
		}()
	}
	verifyTable := VerifyTableParallel
	if tree.Codec == nil {
		// REPLICA IDENTITY FULL: a multiset of whole rows (multiset.go).
		verifyTable = VerifyMultiset
	}
	res, err := verifyTable(ctx, conn, workers, t, mt, r.Options)
	if err != nil {
		return err
	}
	if res.Workers > 1 {
		tr.Workers = res.Workers
	}
	tr.Hash = res.Hash.String()
	tr.Columns = make([]string, len(t.Columns))
	for i, col := range t.Columns {
		tr.Columns[i] = col.Name
	}
	tr.PostgresCount, tr.MirrorCount = res.PG.Count, res.Mirror.Count
	tr.Scheme, tr.Buckets, tr.DirtyBuckets = string(res.Scheme), res.Buckets, res.Dirty
	tr.Differences = len(res.Diffs)
	tr.Result = ResultEqual
	if !res.Equal() {
		tr.Result = ResultDifferences
	}
	maxRows := r.MaxRowDiffs
	if maxRows <= 0 {
		maxRows = DefaultMaxRowDiffs
	}
	rowsStart := time.Now()
	if tree.Codec == nil {
		err = describeMultiset(res.Diffs, maxRows, tr)
	} else {
		err = r.describe(ctx, conn, t, tree, res.Diffs, maxRows, tr)
	}
	if res.Dirty > 0 {
		tr.DirtySeconds = (res.LeafTime + time.Since(rowsStart)).Seconds()
	}
	return err
}

// schemaPending marks a table that could not be compared because the
// mirror has not applied a schema change yet (Run resyncs and retries).
type schemaPending struct{ err error }

func (e schemaPending) Error() string { return e.err.Error() }
func (e schemaPending) Unwrap() error { return e.err }

// stateOf returns the mirror's current state of table (StateCopying when
// it has no record).
func (r *Runner) stateOf(table string) mirror.TableState {
	for _, t := range r.Mirror.Tables() {
		if t.Name == table {
			return t.State
		}
	}
	return mirror.StateCopying
}

// sameSchema checks that PostgreSQL's table, as of the pinned snapshot,
// has the columns and key the mirror's relation has (the columns only
// under REPLICA IDENTITY FULL): otherwise the rows are not comparable (a
// schema change whose resync has not finished).
func sameSchema(t Table, rel *wal.Relation) error {
	var pgCols, mCols []string
	for _, c := range t.Columns {
		pgCols = append(pgCols, c.Name)
	}
	for _, c := range rel.Columns {
		mCols = append(mCols, c.Name)
	}
	if !slices.Equal(pgCols, mCols) {
		return fmt.Errorf("columns differ: PostgreSQL has (%s), the mirror (%s); a schema change is waiting for its resync",
			strings.Join(pgCols, ", "), strings.Join(mCols, ", "))
	}
	if rel.Identity == wal.IdentityFull {
		// A multiset of whole rows: PostgreSQL's key, if any, is not
		// the mirror's.
		return nil
	}
	var mKey []int
	for i, c := range rel.Columns {
		if c.Key {
			mKey = append(mKey, i)
		}
	}
	if !slices.Equal(t.Key, mKey) {
		return fmt.Errorf("primary key differs: PostgreSQL's key columns are %v, the mirror's %v", t.Key, mKey)
	}
	return nil
}

// describe fills tr.Rows with the first maxRows differences and both
// sides' rows for them.
func (r *Runner) describe(ctx context.Context, conn *pgconn.PgConn, t Table, tree *mirror.Tree, diffs []RowDiff, maxRows int, tr *TableReport) error {
	if len(diffs) == 0 {
		return nil
	}
	shown := diffs[:min(len(diffs), maxRows)]
	if len(shown) > jitOffRanges {
		restore, err := jitOff(ctx, conn)
		if err != nil {
			return err
		}
		defer restore()
	}
	keys := make([][]string, len(shown))
	for i, d := range shown {
		keys[i] = d.Texts
	}
	pgRows, err := FetchRows(ctx, conn, t, keys)
	if err != nil {
		return err
	}
	for _, d := range shown {
		rd := RowDifference{Kind: d.Kind.String(), Key: d.Texts}
		if row, ok := pgRows[string(d.Key)]; ok {
			rd.Postgres = row
		}
		v, ok, err := tree.Get(ctx, d.Texts...)
		if err != nil {
			return err
		}
		if ok {
			vals, err := rowenc.Decode(v)
			if err != nil {
				return fmt.Errorf("mirror row %v: %w", d.Texts, err)
			}
			rd.Mirror = textsOf(vals)
		}
		tr.Rows = append(tr.Rows, rd)
	}
	return nil
}

// parallelPlan is what a Run needs to open level-0 workers for a large
// table: the pinned transaction's exported snapshot.
type parallelPlan struct {
	cfg      *pgconn.Config
	snapshot string
	workers  int
}

// parallel exports the pinned transaction's snapshot when Workers allows
// a parallel level 0 and the server can split it; nil otherwise. Whether
// a table is large enough is decided per table from its tree at the
// pinned version, but the export must happen here, before the per-table
// savepoints (a snapshot cannot be exported from a subtransaction); it
// costs one round trip. If it fails, verify runs serially (logged),
// since the serial scan gives the same answer.
func (r *Runner) parallel(ctx context.Context, cfg *pgconn.Config, conn *pgconn.PgConn) *parallelPlan {
	n := r.Workers
	if n == 0 {
		n = DefaultWorkers
	}
	if n < 2 || !canSplit(conn) {
		return nil
	}
	snap, err := ExportSnapshot(ctx, conn)
	if err != nil {
		r.logger().Warn("verify: cannot share the pinned snapshot; level 0 runs on one connection", "err", err)
		return nil
	}
	return &parallelPlan{cfg: cfg, snapshot: snap, workers: n}
}
