package verify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// DefaultPinTimeout bounds slot creation when PinOptions.Timeout is zero.
const DefaultPinTimeout = 30 * time.Second

// ErrPinTimeout is wrapped by Pin's error when slot creation did not finish
// in time; the message names the transactions it was waiting for.
var ErrPinTimeout = errors.New("timed out pinning a snapshot")

// PinOptions configure Pin.
type PinOptions struct {
	// Timeout bounds the wait for slot creation, which lasts until every
	// transaction holding an xid when it started has ended. Zero means
	// DefaultPinTimeout.
	Timeout time.Duration
	// SlotPrefix starts the temporary slot's name (lowercase letters,
	// digits, '_'); a random suffix makes it unique in the cluster.
	// Empty means "sidecar_verify".
	SlotPrefix string
}

var slotPrefixRE = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

// Pinned is PostgreSQL held at one exact WAL position: an open REPEATABLE
// READ transaction, on a replication connection, whose snapshot sees
// exactly the transactions whose commit record starts before LSN, i.e.
// every commit with end LSN ≤ LSN (verify.md §2: measured exact under load,
// where pg_export_snapshot() + pg_current_wal_lsn() is not).
//
// The mirror side of the comparison is the version of the last commit whose
// end LSN is ≤ LSN. While a Pinned is open it holds back the cluster's xmin
// (vacuum) and a replication slot: keep it short. A failed statement
// aborts the pinned transaction, after which only Close is useful. The
// caller must Close it. It is not safe for concurrent use.
type Pinned struct {
	conn *pgconn.PgConn
	lsn  pglogrepl.LSN
	slot string
}

// LSN is the consistent point of the snapshot.
func (p *Pinned) LSN() pglogrepl.LSN { return p.lsn }

// Slot is the name of the temporary slot holding the snapshot.
func (p *Pinned) Slot() string { return p.slot }

// Conn is the connection inside the pinned transaction. It is a
// replication connection: simple query protocol only, so literals are
// inlined with QuoteLiteral. Its session runs with rowenc.SessionParams
// and search_path = pg_catalog: name tables with their schema.
func (p *Pinned) Conn() *pgconn.PgConn { return p.conn }

// Pin opens a replication=database connection configured by cfg (with the
// canonical session settings added), begins a REPEATABLE READ READ ONLY
// transaction and creates a temporary logical slot in it with SNAPSHOT 'use'. If that
// does not finish within the timeout, the wait is cancelled and the error
// (wrapping ErrPinTimeout) names the transactions that held it up, read
// from pg_stat_activity and pg_prepared_xacts. On any error the connection
// is closed, which drops the temporary slot.
func Pin(ctx context.Context, cfg *pgconn.Config, opts PinOptions) (*Pinned, error) {
	slot, timeout, err := pinSlotName(opts)
	if err != nil {
		return nil, err
	}
	conn, err := connectReplication(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pin: connect for replication: %w", err)
	}
	fail := func(err error) (*Pinned, error) {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
		return nil, err
	}
	// READ ONLY: PostgreSQL 16 and newer refuse SNAPSHOT 'use' in a
	// transaction that could write; verify only reads.
	if _, err := conn.Exec(ctx, replication.BeginUseSnapshot).ReadAll(); err != nil {
		return fail(fmt.Errorf("pin: begin: %w", err))
	}
	lsn, _, err := createSlot(ctx, cfg, conn, slot, replication.SnapshotUse, timeout)
	if err != nil {
		return fail(err)
	}
	// Only pg_catalog for unqualified functions and operators: a role's
	// search_path cannot substitute what the hash queries call. Tables are
	// always schema-qualified.
	if _, err := conn.Exec(ctx, "SET LOCAL search_path = pg_catalog").ReadAll(); err != nil {
		return fail(fmt.Errorf("pin: set search_path: %w", err))
	}
	if err := CheckSession(ctx, conn); err != nil {
		return fail(fmt.Errorf("pin: %w", err))
	}
	return &Pinned{conn: conn, lsn: lsn, slot: slot}, nil
}

// pinSlotName validates opts and returns a fresh slot name and the
// timeout.
func pinSlotName(opts PinOptions) (string, time.Duration, error) {
	prefix := opts.SlotPrefix
	if prefix == "" {
		prefix = "sidecar_verify"
	}
	if !slotPrefixRE.MatchString(prefix) {
		return "", 0, fmt.Errorf("pin: slot prefix %q: want 1-40 of [a-z0-9_]", prefix)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultPinTimeout
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", 0, fmt.Errorf("pin: slot name: %w", err)
	}
	return prefix + "_" + hex.EncodeToString(rnd[:]), timeout, nil
}

// connectReplication opens a replication=database connection from cfg
// with the canonical session settings.
func connectReplication(ctx context.Context, cfg *pgconn.Config) (*pgconn.PgConn, error) {
	rc := cfg.Copy()
	rc.RuntimeParams = maps.Clone(cfg.RuntimeParams)
	if rc.RuntimeParams == nil {
		rc.RuntimeParams = map[string]string{}
	}
	rowenc.PinSession(rc.RuntimeParams)
	rc.RuntimeParams["replication"] = "database"
	// On cancellation ask the server to cancel the statement, so a backend
	// waiting for old transactions stops waiting at once instead of
	// lingering until they end; fall back to a socket deadline.
	rc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
	}
	return pgconn.ConnectConfig(ctx, rc)
}

// createSlot creates the temporary slot with SNAPSHOT 'use' or 'export'
// within timeout and returns its consistent point and, for 'export', the
// snapshot's name; on timeout the error wraps ErrPinTimeout and names the
// transactions it waited for.
func createSlot(ctx context.Context, cfg *pgconn.Config, conn *pgconn.PgConn, slot string, snapshot replication.SnapshotAction, timeout time.Duration) (lsn pglogrepl.LSN, snapshotName string, err error) {
	ver, err := replication.ServerVersionNum(conn)
	if err != nil {
		return 0, "", fmt.Errorf("pin: slot %s: %w", slot, err)
	}
	createCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The syntax differs by version (14 takes the older keywords).
	res, err := pglogrepl.ParseCreateReplicationSlot(conn.Exec(createCtx, replication.CreateSlotCommand(ver, slot, true, snapshot)))
	if err == nil {
		if lsn, err = pglogrepl.ParseLSN(res.ConsistentPoint); err != nil {
			return 0, "", fmt.Errorf("pin: slot %s: consistent point %q: %w", slot, res.ConsistentPoint, err)
		}
		return lsn, res.SnapshotName, nil
	}
	if errors.Is(createCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		blockers, berr := describeBlockers(ctx, cfg, conn.PID())
		if berr != nil {
			blockers = "(could not list them: " + berr.Error() + ")"
		}
		return 0, "", fmt.Errorf("pin: %w: creating slot %s took longer than %v, waiting for transactions that were open when it started: %s",
			ErrPinTimeout, slot, timeout, blockers)
	}
	return 0, "", fmt.Errorf("pin: create slot %s: %w", slot, err)
}

// Close ends the transaction, drops the slot and closes the connection.
// The slot is temporary, so the server drops it when the session ends even
// if the explicit drop fails; Close always closes the connection.
func (p *Pinned) Close(ctx context.Context) error {
	if p.conn == nil {
		return nil
	}
	conn := p.conn
	p.conn = nil
	var errs []error
	if _, err := conn.Exec(ctx, "ROLLBACK").ReadAll(); err != nil {
		errs = append(errs, fmt.Errorf("end pinned transaction: %w", err))
	} else if _, err := conn.Exec(ctx, "DROP_REPLICATION_SLOT "+p.slot).ReadAll(); err != nil {
		errs = append(errs, fmt.Errorf("drop slot %s: %w", p.slot, err))
	}
	if err := conn.Close(ctx); err != nil {
		errs = append(errs, fmt.Errorf("close pinned connection: %w", err))
	}
	if len(errs) > 0 {
		return fmt.Errorf("unpin %s: %w", p.slot, errors.Join(errs...))
	}
	return nil
}

// describeBlockers lists, on a separate ordinary connection, the
// transactions that hold an xid (what slot creation waits for) and the
// prepared transactions.
func describeBlockers(ctx context.Context, cfg *pgconn.Config, self uint32) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	oc := cfg.Copy()
	oc.RuntimeParams = maps.Clone(cfg.RuntimeParams)
	delete(oc.RuntimeParams, "replication")
	conn, err := pgconn.ConnectConfig(ctx, oc)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	rows, err := simpleQuery(ctx, conn, fmt.Sprintf(`SELECT format('pid %%s (user %%s, application %%L, %%s, transaction started %%s, xid %%s): %%s',
       pid, usename, application_name, state, date_trunc('second', xact_start), backend_xid, left(query, 120))
  FROM pg_stat_activity
 WHERE backend_xid IS NOT NULL AND pid <> %d
UNION ALL
SELECT format('prepared transaction %%L (owner %%s, prepared %%s)', gid, owner, date_trunc('second', prepared))
  FROM pg_prepared_xacts`, self))
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		return "none still open", nil
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = string(r[0])
	}
	return strings.Join(lines, "; "), nil
}

// PinnedGroup is a snapshot at one exact LSN shared by several ordinary
// connections, for parallel verification: each worker connection is in a
// REPEATABLE READ transaction that imported the snapshot a temporary slot
// exported at its consistent point. The slot itself is gone by the time
// PinGroup returns (the imported snapshots keep what they need), so only
// the workers hold back xmin. The caller must Close it.
type PinnedGroup struct {
	lsn     pglogrepl.LSN
	workers []*pgconn.PgConn
}

// LSN is the consistent point of the shared snapshot.
func (g *PinnedGroup) LSN() pglogrepl.LSN { return g.lsn }

// Workers are the connections inside the snapshot: ordinary connections
// (extended protocol available), canonical session settings, search_path
// pg_catalog. Each is for one goroutine at a time.
func (g *PinnedGroup) Workers() []*pgconn.PgConn { return g.workers }

// Close ends every worker's transaction and closes the connections.
func (g *PinnedGroup) Close(ctx context.Context) error {
	var errs []error
	for _, w := range g.workers {
		if _, err := w.Exec(ctx, "ROLLBACK").ReadAll(); err != nil {
			errs = append(errs, err)
		}
		if err := w.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	g.workers = nil
	if len(errs) > 0 {
		return fmt.Errorf("unpin group: %w", errors.Join(errs...))
	}
	return nil
}

// PinGroup is Pin for n parallel workers: it creates a temporary slot with
// SNAPSHOT 'export' on a replication connection, has n ordinary
// connections import the snapshot (SET TRANSACTION SNAPSHOT) before
// anything else is sent on the replication connection (the export lives
// until its next command), then drops the slot. Timeout and blocker
// reporting are as for Pin.
func PinGroup(ctx context.Context, cfg *pgconn.Config, n int, opts PinOptions) (*PinnedGroup, error) {
	if n < 1 {
		return nil, fmt.Errorf("pin group: %d workers", n)
	}
	slot, timeout, err := pinSlotName(opts)
	if err != nil {
		return nil, err
	}
	// Connect the workers first, so the export waits on nothing.
	g := &PinnedGroup{}
	fail := func(err error) (*PinnedGroup, error) {
		closeConns(ctx, g.workers)
		return nil, err
	}
	if g.workers, err = connectWorkers(ctx, cfg, n); err != nil {
		return nil, fmt.Errorf("pin group: %w", err)
	}
	repl, err := connectReplication(ctx, cfg)
	if err != nil {
		return fail(fmt.Errorf("pin group: connect for replication: %w", err))
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		// Closing the session drops the temporary slot.
		_ = repl.Close(closeCtx)
	}()
	lsn, snapshot, err := createSlot(ctx, cfg, repl, slot, replication.SnapshotExport, timeout)
	if err != nil {
		return fail(err)
	}
	if err := importSnapshot(ctx, g.workers, snapshot); err != nil {
		return fail(fmt.Errorf("pin group: %w", err))
	}
	g.lsn = lsn
	return g, nil
}
