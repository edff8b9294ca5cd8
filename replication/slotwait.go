package replication

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sidecar-dev/sidecar/wal"
)

// The walsender of a stream that has just stopped (a daemon shut down or
// killed a moment ago) keeps its slot active until it notices that its
// client is gone. Whoever needs the slot next (a first start recreating
// it, the shutdown advancing it, verify peeking at it) waits for that
// here, in one way.

// SlotInUse reports whether err is PostgreSQL's object_in_use (SQLSTATE
// 55006): "replication slot … is active for PID …".
func SlotInUse(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55006"
}

// errSlotActive stands for an active slot found by reading
// pg_replication_slots (SlotInUse reports it).
var errSlotActive = &pgconn.PgError{Code: "55006", Message: "replication slot is active"}

// WaitSlotFree calls op until it returns nil or an error other than a slot
// in use (SlotInUse), or until within has passed or ctx ended: then it
// returns op's last error, which SlotInUse reports. Retries back off from
// 10 ms to 200 ms.
func WaitSlotFree(ctx context.Context, within time.Duration, op func(context.Context) error) error {
	deadline := time.Now().Add(within)
	wait := 10 * time.Millisecond
	for {
		err := op(ctx)
		if !SlotInUse(err) || !time.Now().Before(deadline) {
			return err
		}
		t := time.NewTimer(min(wait, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (%v)", err, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// AwaitSlotReleased waits up to within for slot to be inactive or gone
// and returns its last state (Active still set when within passed).
func AwaitSlotReleased(ctx context.Context, conn *pgconn.PgConn, slot string, within time.Duration) (SlotInfo, error) {
	var info SlotInfo
	err := WaitSlotFree(ctx, within, func(ctx context.Context) error {
		var err error
		if info, err = SlotStatus(ctx, conn, slot); err != nil {
			return err
		}
		if info.Active {
			return errSlotActive
		}
		return nil
	})
	if SlotInUse(err) {
		return info, nil
	}
	return info, err
}

// AdvanceSlot moves slot's confirmed_flush_lsn forward to lsn (never
// back: a slot at or past lsn is left alone), waiting up to within for a
// walsender that still holds it. It reports whether it moved the slot.
func AdvanceSlot(ctx context.Context, conn *pgconn.PgConn, slot string, lsn wal.LSN, within time.Duration) (bool, error) {
	moved := false
	err := WaitSlotFree(ctx, within, func(ctx context.Context) error {
		info, err := SlotStatus(ctx, conn, slot)
		if err != nil {
			return err
		}
		if !info.Exists {
			return fmt.Errorf("slot %q does not exist", slot)
		}
		if info.ConfirmedFlush >= lsn {
			return nil
		}
		_, _, err = simpleQuery(ctx, conn, fmt.Sprintf("SELECT pg_catalog.pg_replication_slot_advance(%s, %s::pg_lsn)", quoteLiteral(slot), quoteLiteral(lsn.String())))
		if err == nil {
			moved = true
		}
		return err
	})
	if err != nil {
		if SlotInUse(err) {
			return false, fmt.Errorf("advance slot %q to %s: still in use after %v: %w", slot, lsn, within, err)
		}
		return false, fmt.Errorf("advance slot %q to %s: %w", slot, lsn, err)
	}
	return moved, nil
}

// CurrentWAL returns the server's current WAL write position
// (pg_current_wal_lsn), or on a standby (16+ decodes there) the position
// it has replayed.
func CurrentWAL(ctx context.Context, conn *pgconn.PgConn) (wal.LSN, error) {
	rows, _, err := simpleQuery(ctx, conn, `SELECT CASE WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_last_wal_replay_lsn()
		ELSE pg_catalog.pg_current_wal_lsn() END::text`)
	if err != nil {
		return 0, fmt.Errorf("read the server's WAL position: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, errors.New("read the server's WAL position: no row")
	}
	return wal.ParseLSN(rows[0][0])
}
