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
	// streamed counts the changes of streamed transactions applied ahead
	// (replication.PendingSink), per xid; adopted is the one StreamAdopt
	// just took, counted by its Begin.
	streamed map[uint32]*[wal.Message + 1]int64
	adopted  *[wal.Message + 1]int64
	adoptXid uint32
}

func (s *countingSink) Begin(ctx context.Context, txn wal.TxnInfo) error {
	s.pending = [len(s.pending)]int64{}
	if s.adopted != nil && s.adoptXid == txn.Xid {
		s.pending = *s.adopted
	}
	s.adopted = nil
	return s.Mirror.Begin(ctx, txn)
}

// StreamChange implements replication.PendingSink.
func (s *countingSink) StreamChange(ctx context.Context, xid uint32, c *wal.Change) error {
	if err := s.Mirror.StreamChange(ctx, xid, c); err != nil {
		return err
	}
	if s.streamed == nil {
		s.streamed = map[uint32]*[wal.Message + 1]int64{}
	}
	n := s.streamed[xid]
	if n == nil {
		n = new([wal.Message + 1]int64)
		s.streamed[xid] = n
	}
	if int(c.Kind) < len(n) {
		n[c.Kind]++
	}
	return nil
}

// StreamDiscard implements replication.PendingSink.
func (s *countingSink) StreamDiscard(xid uint32) {
	delete(s.streamed, xid)
	s.Mirror.StreamDiscard(xid)
}

// StreamReset implements replication.PendingSink.
func (s *countingSink) StreamReset() {
	clear(s.streamed)
	s.adopted = nil
	s.Mirror.StreamReset()
}

// StreamAdopt implements replication.PendingSink.
func (s *countingSink) StreamAdopt(ctx context.Context, txn wal.TxnInfo) (bool, error) {
	n := s.streamed[txn.Xid]
	delete(s.streamed, txn.Xid)
	ok, err := s.Mirror.StreamAdopt(ctx, txn)
	if ok && n != nil {
		s.adopted, s.adoptXid = n, txn.Xid
	}
	return ok, err
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
