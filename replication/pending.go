// Streamed transactions applied ahead: each streamed change goes to the
// spool and, when the sink has a pending state, into it as it arrives, so
// the stream commit only commits (issue 24 item 4).

package replication

import (
	"context"
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/wal"
)

// PendingSink is an optional extension of a wal.Sink that applies a
// streamed transaction's changes while it is still in progress, into a
// pending state per top-level xid that nothing can see, and commits that
// state at the stream commit instead of a replay of the spool.
//
// The spool stays the truth: the pending state may give up at any point
// (StreamAdopt then says no) and the transaction is replayed from the
// spool as without a PendingSink. Nothing of it is durable before its
// commit; a new connection starts from StreamReset.
type PendingSink interface {
	// StreamChange applies c, the next change of the in-progress
	// transaction xid, to its pending state. An error fails the stream
	// (the sink is broken), as from Change.
	StreamChange(ctx context.Context, xid uint32, c *wal.Change) error
	// StreamDiscard forgets xid's pending state.
	StreamDiscard(xid uint32)
	// StreamReset forgets every pending state.
	StreamReset()
	// StreamAdopt makes xid's pending state the open transaction for its
	// commit info if it still may be; then Begin(info) opens it and
	// Commit(info) commits it. false: it was dropped, replay the spool.
	StreamAdopt(ctx context.Context, info wal.TxnInfo) (bool, error)
}

// pendingSink finds a PendingSink in s or the sinks it wraps (Unwrap).
func pendingSink(s wal.Sink) PendingSink {
	for s != nil {
		if p, ok := s.(PendingSink); ok {
			return p
		}
		u, ok := s.(interface{ Unwrap() wal.Sink })
		if !ok {
			return nil
		}
		s = u.Unwrap()
	}
	return nil
}

// maxRebuilds bounds how often one transaction's pending state is rebuilt
// from its spool after subtransaction aborts; past it the commit replays
// the spool (a loop of aborting subtransactions would otherwise cost a
// replay each).
const maxRebuilds = 4

// streamState is what the applier keeps of one open streamed transaction
// applied ahead.
type streamState struct {
	// rels are the Relation messages streamed in the transaction: the
	// server sends each table's again in every streamed transaction.
	rels map[uint32]*wal.Relation
	// schema are its Relation and Type messages in order: the commit
	// hands them to the sink as a replay would.
	schema    []wireMsg
	tables    map[string]bool // tables it changed, for CopiedAt at the commit
	subs      map[uint32]bool // (sub)transactions that sent a change
	delivered bool            // some change reached the pending state
	broken    bool            // not applied ahead: the commit replays the spool
	rebuilds  int
	// appended counts the records spooled; applied is the spool position
	// up to which they are in the pending state. The pending state lags
	// when changes arrive faster than they are applied: the applier
	// drains the queue first (the walsender never waits for the apply),
	// and catches up from the spool whenever the queue is empty.
	appended int64
	applied  SpoolPos
}

func newStreamState() *streamState {
	return &streamState{rels: map[uint32]*wal.Relation{}, tables: map[string]bool{}, subs: map[uint32]bool{}}
}

func (a *applier) stream(xid uint32) *streamState {
	if a.streams == nil {
		a.streams = map[uint32]*streamState{}
	}
	st := a.streams[xid]
	if st == nil {
		st = newStreamState()
		a.streams[xid] = st
	}
	return st
}

// giveUp stops applying xid ahead: its commit replays the spool.
func (a *applier) giveUp(xid uint32, st *streamState, why error) {
	st.broken = true
	a.pending.StreamDiscard(xid)
	a.s.log.Debug("streamed transaction not applied ahead; it is replayed at its commit", "xid", xid, "why", why)
}

// applyAhead follows the in-stream message raw of (sub)transaction sub of
// xid, just spooled: applied now when the pending state is not behind and
// nothing else waits in the queue, else later from the spool (catchUp).
func (a *applier) applyAhead(ctx context.Context, q *queue, xid, sub uint32, raw []byte) error {
	if a.pending == nil {
		return nil
	}
	st := a.stream(xid)
	st.appended++
	if st.broken || st.applied.Records != st.appended-1 || len(q.ch) > 0 {
		return nil
	}
	st.applied.Records++
	st.applied.Offset += int64(8 + len(raw))
	return a.applyMsg(ctx, st, xid, sub, raw)
}

// catchUpBatch is how many spooled records one catch-up step applies
// before the applier looks at its queue again.
const catchUpBatch = 2000

// errStopScan ends a spool scan early.
var errStopScan = errors.New("stop scan")

// catchUp applies spooled records of xid to its pending state, at most
// max (all when max < 0). worked reports whether there was any.
func (a *applier) catchUp(ctx context.Context, xid uint32, st *streamState, max int) (worked bool, err error) {
	for !st.broken && st.applied.Records < st.appended {
		sc, ok := a.spool.(Scanner)
		if !ok {
			a.giveUp(xid, st, errors.New("the spool cannot be read ahead"))
			return true, nil
		}
		pos, err := sc.ScanFrom(xid, st.applied, max, func(sub uint32, raw []byte) error {
			if err := a.applyMsg(ctx, st, xid, sub, append([]byte(nil), raw...)); err != nil {
				return err
			}
			if st.broken {
				return errStopScan
			}
			return nil
		})
		if pos == st.applied && err == nil {
			// The spool has fewer records than were appended: never
			// expected, but never loop on it.
			a.giveUp(xid, st, errors.New("spool shorter than appended"))
			return true, nil
		}
		st.applied = pos
		worked = true
		if err != nil && !errors.Is(err, errStopScan) {
			var f fatalError
			if !errors.As(err, &f) {
				err = fatal(fmt.Errorf("spool scan of xid %d: %w", xid, err))
			}
			return true, err
		}
		if max >= 0 {
			return true, nil
		}
	}
	return worked, nil
}

// catchUpSome runs one catch-up step of some transaction that is behind.
func (a *applier) catchUpSome(ctx context.Context) (worked bool, err error) {
	for xid, st := range a.streams {
		if !st.broken && st.applied.Records < st.appended {
			return a.catchUp(ctx, xid, st, catchUpBatch)
		}
	}
	return false, nil
}

// applyMsg applies one in-stream message of xid to its pending state.
func (a *applier) applyMsg(ctx context.Context, st *streamState, xid, sub uint32, raw []byte) error {
	if st.broken {
		return nil
	}
	m, err := decodeMessage(raw, true)
	if err != nil {
		// The replay at the commit reports it, if the message is still
		// part of the transaction then.
		a.giveUp(xid, st, err)
		return nil
	}
	switch m.typ {
	case 'Y':
		a.typeNames[m.typOID] = m.typName
		st.schema = append(st.schema, m)
		return nil
	case 'R':
		rel := *m.rel
		rel.Columns = append([]wal.Column(nil), rel.Columns...)
		for i := range rel.Columns {
			rel.Columns[i].TypeName = a.typeName(rel.Columns[i].TypeOID)
		}
		st.rels[rel.OID] = &rel
		st.schema = append(st.schema, m)
		return nil
	case 'M':
		if m.flags&1 == 0 {
			return nil
		}
		st.delivered, st.subs[sub] = true, true
		return a.pendingChange(ctx, xid, &wal.Change{Kind: wal.Message, Prefix: m.prefix, Content: m.content})
	case 'I', 'U', 'D', 'T':
	default:
		return nil
	}
	// The commit LSN is not known yet: CopiedAt is checked at the commit.
	c, err := a.toChange(&m, func(id uint32) (*wal.Relation, error) {
		if r := st.rels[id]; r != nil {
			return r, nil
		}
		return a.rel(id)
	}, nil, 0)
	if err != nil {
		a.giveUp(xid, st, err)
		return nil
	}
	st.delivered, st.subs[sub] = true, true
	if c.Kind == wal.Truncate {
		for _, r := range c.Truncated {
			st.tables[r.QualifiedName()] = true
		}
	} else {
		st.tables[c.Relation.QualifiedName()] = true
	}
	return a.pendingChange(ctx, xid, c)
}

func (a *applier) pendingChange(ctx context.Context, xid uint32, c *wal.Change) error {
	if err := a.pending.StreamChange(ctx, xid, c); err != nil {
		return sinkErr("streamed change", err)
	}
	return nil
}

// abortAhead follows a Stream Abort: all of xid, or subtransaction sub,
// whose changes are then taken out of the pending state by building it
// again from the spool (which skips sub's from now on).
func (a *applier) abortAhead(ctx context.Context, xid, sub uint32) error {
	if a.pending == nil {
		return nil
	}
	st := a.streams[xid]
	if sub == xid {
		delete(a.streams, xid)
		a.pending.StreamDiscard(xid)
		return nil
	}
	if st == nil || st.broken || !st.subs[sub] {
		return nil
	}
	if _, ok := a.spool.(Scanner); !ok || st.rebuilds >= maxRebuilds {
		a.giveUp(xid, st, fmt.Errorf("subtransaction %d aborted", sub))
		return nil
	}
	// Built again from the spool's first record (which now skips sub's),
	// by catch-up steps or at the commit.
	a.pending.StreamDiscard(xid)
	fresh := newStreamState()
	fresh.rebuilds, fresh.appended = st.rebuilds+1, st.appended
	a.streams[xid] = fresh
	return nil
}

// commitAhead commits a streamed transaction from its pending state.
// done false means the caller replays the spool (there is no usable
// pending state); done true means the transaction was committed,
// settled, or the stream failed (err).
func (a *applier) commitAhead(ctx context.Context, info wal.TxnInfo, skip bool) (done bool, err error) {
	if a.pending == nil {
		return false, nil
	}
	st := a.streams[info.Xid]
	delete(a.streams, info.Xid)
	if st == nil || st.broken || skip {
		a.pending.StreamDiscard(info.Xid)
		return false, nil
	}
	if _, err := a.catchUp(ctx, info.Xid, st, -1); err != nil {
		return true, err
	}
	if st.broken {
		return false, nil
	}
	// The schema messages reach the sink as the replay would hand them.
	for i := range st.schema {
		if err := a.message(ctx, &st.schema[i], false); err != nil {
			return true, err
		}
	}
	for name := range st.tables {
		if a.s.cfg.CopiedAt.Skip(name, info.CommitLSN) {
			a.pending.StreamDiscard(info.Xid)
			return false, nil
		}
	}
	if !st.delivered {
		a.pending.StreamDiscard(info.Xid)
		if err := a.spool.Discard(info.Xid); err != nil {
			return true, fatal(fmt.Errorf("spool: %w", err))
		}
		a.s.settled.Store(max(a.s.settled.Load(), uint64(info.EndLSN)))
		return true, nil
	}
	ok, err := a.pending.StreamAdopt(ctx, info)
	if err != nil {
		return true, sinkErr("adopt streamed transaction", err)
	}
	if !ok {
		return false, nil
	}
	a.cur, a.begun = &info, true // from here the deferred Abort undoes it on a failure
	if err := a.s.cfg.Sink.Begin(ctx, info); err != nil {
		return true, sinkErr("begin", err)
	}
	if err := a.commit(ctx); err != nil {
		return true, err
	}
	if err := a.spool.Discard(info.Xid); err != nil {
		return true, fatal(fmt.Errorf("spool: %w", err))
	}
	return true, nil
}
