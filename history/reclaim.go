package history

import (
	"context"
	"log/slog"
	"time"
)

// reclaim gives back the value-log space of values deleted without a node
// sweep — the in-memory HEAD's superseded checkpoint generations (heap
// page images, index and key-store images), rewritten at every
// checkpoint — when the value log grew enough since last, its size after
// the previous reclaim (store.DB.ReclaimDue). AutoGC calls it at every
// check, after a node collection too (whose online value-log GC does not
// see deletes still in the memtables), but not while busy reports true.
// It returns the next last; a failure is logged and retried at the next
// check.
func (s *Service) reclaim(ctx context.Context, last int64, busy func() bool, log *slog.Logger) int64 {
	if !s.db.ReclaimDue(last) {
		return min(last, s.db.ValueLogBytes())
	}
	if busy != nil && busy() {
		return last
	}
	start := time.Now()
	before := s.db.ValueLogBytes()
	n, after, err := s.db.ReclaimValueLog(ctx)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("value-log reclaim failed; retrying at the next check", "err", err)
		}
		return last
	}
	log.Info("value log reclaimed", "rewrites", n, "value_log_before", before, "value_log_after", after, "took", time.Since(start).Round(time.Millisecond))
	return after
}
