package replication

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sidecar-dev/sidecar/wal"
)

// ErrSlotLost is wrapped by [SlotLostError]: the slot is gone or can no
// longer supply the changes the mirror needs. Nothing but a full resync
// can repair that; never skip ahead.
var ErrSlotLost = errors.New("replication slot lost")

// SlotLostError says which slot was lost and why.
type SlotLostError struct {
	Slot   string
	Reason string // "missing", "wal_status=lost", or the server's error
}

func (e *SlotLostError) Error() string {
	return fmt.Sprintf("replication slot %q lost (%s): the changes the mirror still needs are gone; start over with `sidecar run --resync` (it drops the slot and copies every table again). To avoid it: keep sidecar running, watch `sidecar status` lag, and size max_slot_wal_keep_size for the longest downtime", e.Slot, e.Reason)
}

// Unwrap makes errors.Is(err, ErrSlotLost) work.
func (e *SlotLostError) Unwrap() error { return ErrSlotLost }

// SlotInfo is a replication slot's row in pg_replication_slots.
type SlotInfo struct {
	Name           string
	Exists         bool
	Plugin         string
	Database       string
	Temporary      bool
	Active         bool
	WALStatus      string // reserved, extended, unreserved, lost
	ConfirmedFlush wal.LSN
	RestartLSN     wal.LSN
}

// SlotStatus reads a slot's state. It works on ordinary and replication
// connections alike.
func SlotStatus(ctx context.Context, conn *pgconn.PgConn, slot string) (SlotInfo, error) {
	if err := ValidateSlotName(slot); err != nil {
		return SlotInfo{}, err
	}
	rows, null, err := simpleQuery(ctx, conn, `SELECT plugin, database, temporary::text, active::text,
		coalesce(wal_status, ''), coalesce(confirmed_flush_lsn::text, '0/0'), coalesce(restart_lsn::text, '0/0')
		FROM pg_catalog.pg_replication_slots WHERE slot_name = `+quoteLiteral(slot))
	if err != nil {
		return SlotInfo{}, fmt.Errorf("read slot %q: %w", slot, err)
	}
	info := SlotInfo{Name: slot}
	if len(rows) == 0 {
		return info, nil
	}
	r := rows[0]
	info.Exists = true
	info.Plugin, info.Database = r[0], r[1]
	if null[0][1] {
		info.Database = ""
	}
	info.Temporary, info.Active = r[2] == "true", r[3] == "true"
	info.WALStatus = r[4]
	if info.ConfirmedFlush, err = wal.ParseLSN(r[5]); err != nil {
		return info, fmt.Errorf("read slot %q: %w", slot, err)
	}
	if info.RestartLSN, err = wal.ParseLSN(r[6]); err != nil {
		return info, fmt.Errorf("read slot %q: %w", slot, err)
	}
	return info, nil
}

// checkSlotUsable turns a missing or lost slot into a [SlotLostError].
func checkSlotUsable(info SlotInfo) error {
	if !info.Exists {
		return &SlotLostError{Slot: info.Name, Reason: "missing"}
	}
	if info.WALStatus == "lost" {
		return &SlotLostError{Slot: info.Name, Reason: "wal_status=lost"}
	}
	if info.Plugin != "pgoutput" {
		return fmt.Errorf("replication slot %q uses plugin %q, not pgoutput: it belongs to something else; choose another slot name", info.Name, info.Plugin)
	}
	return nil
}

// ExportedSnapshot is a new replication slot whose creation exported a
// snapshot: the database exactly as of the slot's consistent point.
// The snapshot lives only while the creating connection stays open and
// idle, so Close it only after every copy worker has imported it.
type ExportedSnapshot struct {
	Slot string
	// LSN is the slot's consistent point: the copy shows every transaction
	// with CommitLSN < LSN, the stream starts there.
	LSN wal.LSN
	// Name is the snapshot to pass to SET TRANSACTION SNAPSHOT.
	Name string
	// System was read just before the slot was created, on the same
	// connection: persist it with the mirror.
	System wal.SystemIdentity

	conn *pgconn.PgConn
}

// Snapshot returns what [Copy] needs.
func (e *ExportedSnapshot) Snapshot() Snapshot { return Snapshot{Name: e.Name, LSN: e.LSN} }

// Close ends the exporting connection, and with it the snapshot.
func (e *ExportedSnapshot) Close(ctx context.Context) error {
	if e.conn == nil {
		return nil
	}
	err := e.conn.Close(ctx)
	e.conn = nil
	if err != nil {
		return fmt.Errorf("close slot %q export connection: %w", e.Slot, err)
	}
	return nil
}

// SnapshotAction is what CREATE_REPLICATION_SLOT does with the snapshot
// at the new slot's consistent point.
type SnapshotAction string

const (
	// SnapshotExport exports it for SET TRANSACTION SNAPSHOT; it lives
	// until the next command on the creating connection.
	SnapshotExport SnapshotAction = "export"
	// SnapshotUse makes it the snapshot of the creating connection's open
	// transaction, which must be REPEATABLE READ, with no query run yet,
	// and (PostgreSQL 16 and newer) READ ONLY: begin it with [BeginUseSnapshot].
	SnapshotUse SnapshotAction = "use"
	// SnapshotNothing only creates the slot.
	SnapshotNothing SnapshotAction = "nothing"
)

// BeginUseSnapshot is the statement that opens the transaction a slot is
// created in with [SnapshotUse]. READ ONLY is required from PostgreSQL 16
// on ("must be called in a read-only transaction") and accepted by every
// older version; what runs in it afterwards (copies, digests,
// pg_export_snapshot) only reads.
const BeginUseSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

// CreateSlotCommand returns the replication command that creates a
// pgoutput slot named slot (validated by the caller) in the syntax of a
// server of version serverVersion (server_version_num form, e.g. 140023;
// see [ServerVersionNum]): the parenthesised option list from PostgreSQL
// 15 on, the older keywords (EXPORT_SNAPSHOT, USE_SNAPSHOT,
// NOEXPORT_SNAPSHOT), which 14 alone understands, before it.
func CreateSlotCommand(serverVersion int, slot string, temporary bool, action SnapshotAction) string {
	kind := ""
	if temporary {
		kind = " TEMPORARY"
	}
	if serverVersion < 150000 {
		kw := map[SnapshotAction]string{
			SnapshotExport:  "EXPORT_SNAPSHOT",
			SnapshotUse:     "USE_SNAPSHOT",
			SnapshotNothing: "NOEXPORT_SNAPSHOT",
		}[action]
		return fmt.Sprintf("CREATE_REPLICATION_SLOT %s%s LOGICAL pgoutput %s", slot, kind, kw)
	}
	return fmt.Sprintf("CREATE_REPLICATION_SLOT %s%s LOGICAL pgoutput (SNAPSHOT '%s')", slot, kind, action)
}

// ServerVersionNum returns the server's version in server_version_num form
// (major·10000 + minor from 10 on, e.g. 170010 for "17.10"), parsed from
// the server_version the server reports at connection start (so it costs
// no query and works on replication connections, which have no extended
// protocol). Suffixes are ignored: "15.18 (Debian 15.18-0+deb12u1)",
// "17beta2", "18devel".
func ServerVersionNum(conn *pgconn.PgConn) (int, error) {
	v := conn.ParameterStatus("server_version")
	n, err := parseServerVersion(v)
	if err != nil {
		return 0, fmt.Errorf("server version %q: %w", v, err)
	}
	return n, nil
}

// parseServerVersion turns a server_version string into server_version_num.
func parseServerVersion(v string) (int, error) {
	var parts []int
	rest := v
	for len(parts) < 3 {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			break
		}
		n, err := strconv.Atoi(rest[:i])
		if err != nil {
			return 0, err
		}
		parts = append(parts, n)
		rest = rest[i:]
		if !strings.HasPrefix(rest, ".") {
			break
		}
		rest = rest[1:]
	}
	switch {
	case len(parts) == 0:
		return 0, errors.New("no version number")
	case parts[0] >= 10:
		minor := 0
		if len(parts) > 1 {
			minor = parts[1]
		}
		return parts[0]*10000 + minor, nil
	default: // 9.6.24
		parts = append(parts, 0, 0)
		return parts[0]*10000 + parts[1]*100 + parts[2], nil
	}
}

// CreateSlot creates the permanent logical slot (pgoutput) and exports its
// snapshot. Create the publication first ([EnsurePublication]).
//
// Slot creation waits until every transaction that held an xid when it
// started has finished; a long-running or idle-in-transaction session
// blocks it. When ctx ends first, the error names the sessions that held
// it up.
func CreateSlot(ctx context.Context, connString, slot string) (*ExportedSnapshot, error) {
	if err := ValidateSlotName(slot); err != nil {
		return nil, err
	}
	conn, err := ConnectReplication(ctx, connString)
	if err != nil {
		return nil, err
	}
	// IDENTIFY_SYSTEM must come before the slot: any command after
	// CREATE_REPLICATION_SLOT invalidates the exported snapshot.
	sys, err := IdentifySystem(ctx, conn)
	if err != nil {
		closeConn(conn)
		return nil, err
	}
	ver, err := ServerVersionNum(conn)
	if err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("create slot %q: %w", slot, err)
	}
	res, err := pglogrepl.ParseCreateReplicationSlot(conn.Exec(ctx, CreateSlotCommand(ver, slot, false, SnapshotExport)))
	if err != nil {
		err = slotCreateError(ctx, connString, slot, conn.PID(), err)
		closeConn(conn)
		return nil, err
	}
	lsn, err := wal.ParseLSN(res.ConsistentPoint)
	if err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("create slot %q: consistent point: %w", slot, err)
	}
	return &ExportedSnapshot{Slot: slot, LSN: lsn, Name: res.SnapshotName, System: sys, conn: conn}, nil
}

// slotCreateError explains a failed slot creation: an existing slot, or a
// wait cut short by ctx (with the sessions it waited for). In the latter
// case the walsender (backend pid) is still waiting and would create the
// slot once the blockers finish, leaving a slot nobody consumes: it is
// terminated, which drops the not yet persisted slot.
func slotCreateError(ctx context.Context, connString, slot string, pid uint32, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42710" {
		return fmt.Errorf("create slot %q: it already exists; if the mirror is new, another consumer may own it (choose another `slot`), or drop it with `sidecar run --resync`: %w", slot, err)
	}
	if errors.As(err, &pgErr) && pgErr.Code == "0A000" && strings.Contains(pgErr.Message, "recovery") {
		// 14 and 15: "logical decoding cannot be used while in recovery".
		return fmt.Errorf("create slot %q: the server is a standby, and logical decoding on a standby needs PostgreSQL 16 or newer: point postgres.url at the primary (or upgrade): %w", slot, err)
	}
	if ctx.Err() == nil {
		return fmt.Errorf("create slot %q: %w", slot, err)
	}
	bctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	blockers := runningTransactions(bctx, connString, pid)
	if terr := terminateBackend(bctx, connString, pid); terr != nil {
		blockers += fmt.Sprintf("; could not stop the waiting walsender (pid %d), check pg_replication_slots for a leftover %q: %v", pid, slot, terr)
	}
	return fmt.Errorf("create slot %q: gave up waiting for transactions that were running when it started (%s): %w", slot, blockers, err)
}

// terminateBackend ends a backend and waits (briefly) until it is gone.
func terminateBackend(ctx context.Context, connString string, pid uint32) error {
	conn, err := Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer closeConn(conn)
	if _, err := conn.Exec(ctx, "SELECT pg_catalog.pg_terminate_backend($1, 5000)", int32(pid)); err != nil {
		return fmt.Errorf("terminate backend %d: %w", pid, err)
	}
	return nil
}

// runningTransactions lists sessions holding a transaction id (other than
// the waiting walsender self), for error messages. It never fails:
// problems are described in the result.
func runningTransactions(ctx context.Context, connString string, self uint32) string {
	conn, err := Connect(ctx, connString)
	if err != nil {
		return "could not list them: " + err.Error()
	}
	defer closeConn(conn)
	rows, _, err := simpleQuery(ctx, conn.PgConn(), `SELECT pid::text, coalesce(usename, ''), coalesce(state, ''),
		coalesce(now() - xact_start, '0')::text, left(coalesce(query, ''), 80)
		FROM pg_catalog.pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()
		AND pid <> `+strconv.FormatUint(uint64(self), 10)+` ORDER BY xact_start LIMIT 5`)
	if err != nil {
		return "could not list them: " + err.Error()
	}
	if len(rows) == 0 {
		return "none running now"
	}
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("pid %s user %s %s for %s: %q", r[0], r[1], r[2], r[3], r[4]))
	}
	return "blocked by " + strings.Join(parts, "; ")
}

// DropSlot drops a replication slot if it exists, waiting up to the ctx
// deadline for a consumer that still holds it to go away: the walsender
// of a stream that has just stopped keeps the slot active until it
// notices its client left, and pg_drop_replication_slot does not wait
// (it fails with object_in_use).
func DropSlot(ctx context.Context, conn *pgconn.PgConn, slot string) error {
	if err := ValidateSlotName(slot); err != nil {
		return err
	}
	wait := 10 * time.Millisecond
	for {
		_, _, err := simpleQuery(ctx, conn, `SELECT pg_catalog.pg_drop_replication_slot(slot_name)
		FROM pg_catalog.pg_replication_slots WHERE slot_name = `+quoteLiteral(slot))
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "55006" {
			if err != nil {
				return fmt.Errorf("drop slot %q: %w", slot, err)
			}
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("drop slot %q: still in use (%v): %w", slot, ctx.Err(), err)
		case <-t.C:
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}
