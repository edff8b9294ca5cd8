package daemon

import (
	"context"
	"strconv"

	"github.com/sidecar-dev/sidecar/metrics"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// countingSink passes the stream to the mirror and counts what was
// applied, by kind, once each transaction commits (an aborted or
// reconnect-interrupted transaction counts nothing).
type countingSink struct {
	*mirror.Mirror
	met     *metrics.Set
	pending [wal.Message + 1]int64
}

func (s *countingSink) Begin(ctx context.Context, txn wal.TxnInfo) error {
	s.pending = [len(s.pending)]int64{}
	return s.Mirror.Begin(ctx, txn)
}

func (s *countingSink) Change(ctx context.Context, c *wal.Change) error {
	if err := s.Mirror.Change(ctx, c); err != nil {
		return err
	}
	if int(c.Kind) < len(s.pending) {
		s.pending[c.Kind]++
	}
	return nil
}

func (s *countingSink) Commit(ctx context.Context, txn wal.TxnInfo) error {
	if err := s.Mirror.Commit(ctx, txn); err != nil {
		return err
	}
	for k, n := range s.pending {
		if n > 0 {
			s.met.RowsApplied.WithLabelValues(wal.ChangeKind(k).String()).Add(float64(n))
		}
	}
	s.met.TxnsApplied.WithLabelValues(strconv.FormatBool(txn.Streamed)).Inc()
	return nil
}
