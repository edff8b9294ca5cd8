// The monitor: polls the server's WAL position and the slot for lag and
// status, and keeps the metrics current.

package daemon

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/replication"
)

// monitor polls the server's WAL position and the slot for lag and
// status, and keeps the metrics current.
func (d *daemon) monitor(ctx context.Context) error {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for {
		if conn == nil {
			c, err := replication.Connect(ctx, d.conn)
			if err == nil {
				conn = c
			}
		}
		if conn != nil {
			if err := d.pollServer(ctx, conn); err != nil {
				conn.Close(context.Background())
				conn = nil
			}
		}
		if d.sessionDefaults.due(time.Now()) {
			if err := d.readSessionDefaults(ctx); err != nil && ctx.Err() == nil {
				d.log.Debug("could not read the followed server's session defaults", "err", err)
			}
		}
		d.updateMetrics()
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

func (d *daemon) pollServer(ctx context.Context, conn *pgx.Conn) error {
	w, err := replication.CurrentWAL(ctx, conn.PgConn())
	if err != nil {
		return err
	}
	info, err := replication.SlotStatus(ctx, conn.PgConn(), d.cfg.Slot)
	if err != nil {
		return err
	}
	if err := d.pollDropped(ctx, conn); err != nil {
		return err
	}
	if err := d.pollFacts(ctx, conn); err != nil {
		return err
	}
	if err := d.pollColumns(ctx, conn); err != nil { // catfacts.go
		return err
	}
	if err := d.pollPartRoots(ctx, conn); err != nil { // partroots.go
		return err
	}
	if err := d.pollNewTables(ctx, conn); err != nil && time.Since(d.newTablesWarned) > time.Minute { // startables.go
		d.newTablesWarned = time.Now()
		d.log.Warn("could not look for new tables (tables [\"*\"]); tried again every poll", "err", err)
	}
	d.prevServerWAL.Store(d.serverWAL.Swap(uint64(w)))
	// Lag in bytes: the server's position minus the slot's confirmed
	// position (WAL the server keeps and must still decode for us), or
	// minus the durable LSN when the slot is not there.
	behind := d.m.Durable()
	d.mu.Lock()
	d.slotInfo.Exists = info.Exists
	if info.Exists {
		d.slotInfo.WALStatus = info.WALStatus
		d.slotInfo.Active = info.Active
		d.slotInfo.ConfirmedFlush = info.ConfirmedFlush
		behind = info.ConfirmedFlush
	}
	d.mu.Unlock()
	if w > behind && behind > 0 {
		d.lagBytes.Store(int64(w - behind))
	} else {
		d.lagBytes.Store(0)
	}
	return nil
}

func (d *daemon) updateMetrics() {
	d.met.LagBytes.Set(float64(d.lagBytes.Load()))
	d.met.LagSeconds.Set(d.lagSeconds())
	if d.m != nil {
		d.met.DurableLSN.Set(float64(d.m.Durable()))
	}
	d.mu.Lock()
	s := d.streamer()
	d.mu.Unlock()
	if s == nil {
		return
	}
	ss := s.Stats()
	d.met.ReceivedLSN.Set(float64(ss.Received))
	if ss.Connected {
		d.met.Connected.Set(1)
		if n := d.errCount.Swap(0); n > 0 {
			d.log.Info("replication recovered", "after_errors", n)
		}
	} else {
		d.met.Connected.Set(0)
	}
}
