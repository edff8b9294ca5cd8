package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/sidecar-dev/sidecar/store"
)

// diskCheckEvery is how often the daemon looks at the data directory's
// free space between writes.
const diskCheckEvery = time.Second

// watchDisk stops the daemon (by returning the error) once the data
// directory has less than storage.min_free available, or a write was
// refused for it: the mirror then writes nothing more, and without this
// an idle stream would keep running stopped until the next transaction,
// while Badger's own background writes went on toward a truly full disk
// (SIGBUS in a mapped file). The slot is not advanced at such a stop.
func (d *daemon) watchDisk(ctx context.Context) error {
	tick := time.NewTicker(diskCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if err := d.m.Err(); errors.Is(err, store.ErrDiskFull) {
			return err
		}
		if err := d.db.CheckSpace(); errors.Is(err, store.ErrDiskFull) {
			return err
		}
	}
}
