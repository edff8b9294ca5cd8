// The shutdown acknowledgement: the slot is advanced to exactly the durable
// LSN once the stream has stopped.

package daemon

import (
	"context"
	"time"

	"github.com/sidecar-dev/sidecar/replication"
)

// acknowledge moves the slot's confirmed position to exactly the durable
// LSN after the stream stopped, so a clean shutdown leaves nothing
// acknowledged that is not durable and nothing durable unacknowledged.
func (d *daemon) acknowledge(ctx context.Context) error {
	durable := d.ackLimit(d.m.Durable())
	if durable == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := replication.Connect(ctx, d.conn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// The walsender of the stream that just closed may still hold the
	// slot for a moment.
	moved, err := replication.AdvanceSlot(ctx, conn.PgConn(), d.cfg.Slot, durable, 15*time.Second)
	if moved {
		d.log.Info("slot advanced to the durable LSN", "slot", d.cfg.Slot, "lsn", durable)
	}
	return err
}
