package mirror

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// Streamed in-progress transactions, applied as they arrive.
//
// PostgreSQL streams a large transaction in chunks before it commits
// (pgoutput streaming). The stream spools the chunks (crash safety, aborts)
// and also hands each change to StreamChange, which applies it right away
// into a pending state of its own per top-level xid: the same edit sets
// and scratch trees a transaction between Begin and Commit builds, spilled
// at the same bounds. At the stream commit StreamAdopt makes the pending
// state the open transaction, so Commit has only the last spill, the
// flush and the HEAD left; the spool is not replayed.
//
// A pending state is an optimisation that may give up ("broken"): the
// stream then replays its spool at the commit exactly as before. It gives
// up whenever its edits might not be the ones a replay at the commit would
// make: a change to a table that is not ready (held, copying, new), a
// change the replay would refuse or mark for resync (a missing row), a
// commit in between that touched one of its tables that is a multiset
// (REPLICA IDENTITY FULL: occurrence numbers depend on the others' rows) or
// already spilled (its scratch tree's base is then stale), a table re-copied
// in between, or the commit's checks (state, copy LSN) failing. A keyed
// table's edits are final row states and commute with the commits in
// between (PostgreSQL's row locks: no one else changed the rows the
// transaction changed), so interleaved commits to its unspilled tables are
// fine. Nothing of a pending state is durable: its scratch nodes are
// unreferenced garbage after a crash, and the stream sends the
// transaction again from its first chunk (StreamReset).

// streamTxn is the pending state of one streamed transaction.
type streamTxn struct {
	xid      uint32
	broken   string // why it gave up; "" while usable
	tables   map[string]*txnTable
	copiedAt map[string]wal.LSN // each table's CopiedAt at its first change
	rows     int
	bytes    int64
	spilled  bool
	changes  int64 // changes taken, for tests and metrics
}

// giveUp drops the pending state's work; the commit replays the spool.
func (p *streamTxn) giveUp(m *Mirror, reason string) {
	if p.broken != "" {
		return
	}
	p.broken = reason
	p.tables = nil
	m.log.Debug("streamed transaction: applying it at its commit instead", "xid", p.xid, "reason", reason)
}

// streams is the Mirror's pending states of streamed transactions.
type streams struct {
	txns    map[uint32]*streamTxn // under mu
	adopted atomic.Int64          // pending states committed without replay
}

func (m *Mirror) streamTxn(xid uint32) *streamTxn {
	if m.streams.txns == nil {
		m.streams.txns = map[uint32]*streamTxn{}
	}
	p := m.streams.txns[xid]
	if p == nil {
		p = &streamTxn{xid: xid, tables: map[string]*txnTable{}, copiedAt: map[string]wal.LSN{}}
		m.streams.txns[xid] = p
	}
	return p
}

// StreamsAdopted counts streamed transactions committed from their
// pending state, without a replay of their spool.
func (m *Mirror) StreamsAdopted() int64 { return m.streams.adopted.Load() }

// StreamChange applies c, a change of the streamed, still uncommitted
// transaction xid, into its pending state. Changes arrive in the
// transaction's order; a subtransaction's abort is the caller's to handle
// (StreamDiscard, then the changes that remain again). It only
// fails when the mirror has failed: anything else makes the pending state
// give up, and the commit replays the spool.
func (m *Mirror) StreamChange(ctx context.Context, xid uint32, c *wal.Change) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	p := m.streamTxn(xid)
	if p.broken != "" {
		return nil
	}
	p.changes++
	switch c.Kind {
	case wal.Message:
		return nil
	case wal.Truncate:
		for _, rel := range c.Truncated {
			t := m.followed(rel.QualifiedName())
			if t == nil {
				continue
			}
			tt := m.streamTable(p, t)
			if tt == nil {
				return nil
			}
			m.truncateTxnTable(tt)
		}
		return m.streamMaybeSpill(ctx, p)
	}
	t := m.followed(c.Relation.QualifiedName())
	if t == nil {
		return nil
	}
	tt := m.streamTable(p, t)
	if tt == nil {
		return nil
	}
	err := rowEdits(t, c.Kind, c.OldKind, c.New, c.Old, func(key []byte) ([]byte, bool, error) {
		if v, found, known := tt.edits.lookup(key); known {
			return v, found, nil
		}
		if tt.scratch != nil {
			// Its base is current: a commit touching a spilled table
			// makes the pending state give up (noteCommitted).
			return m.eng.Get(ctx, *tt.scratch, key)
		}
		return m.current(ctx, t, nil, key)
	}, func(key string, e edit) {
		before := tt.edits.bytes
		tt.edits.put(key, e)
		p.bytes += tt.edits.bytes - before
		p.rows++
	})
	if err != nil {
		p.giveUp(m, fmt.Sprintf("%s on %s: %v", c.Kind, t.rec.Name, err))
		return nil
	}
	tt.change.Rows++
	return m.streamMaybeSpill(ctx, p)
}

// streamTable returns p's state of t, or nil when p gave up because t's
// changes cannot be applied ahead (t is not ready, or being copied).
func (m *Mirror) streamTable(p *streamTxn, t *table) *txnTable {
	name := t.rec.Name
	if t.rec.State != StateReady || m.tables[name] != t {
		p.giveUp(m, fmt.Sprintf("table %s is %s", name, t.rec.State))
		return nil
	}
	tt := p.tables[name]
	if tt == nil {
		tt = &txnTable{edits: newEditSet(), change: TableChange{Table: name}}
		p.tables[name] = tt
		p.copiedAt[name] = t.rec.CopiedAt
	}
	return tt
}

// streamMaybeSpill moves p's edits into scratch trees past the spill
// bounds. Every spill first applies the group, so each scratch tree
// starts from its table with every earlier commit applied.
func (m *Mirror) streamMaybeSpill(ctx context.Context, p *streamTxn) error {
	if p.rows < m.opts.SpillRows && p.bytes < m.opts.SpillBytes {
		return nil
	}
	if err := m.flushGroup(ctx); err != nil {
		return fmt.Errorf("spill streamed xid %d: %w", p.xid, err)
	}
	if !p.spilled {
		p.spilled = true
		m.stats.spills.Add(1)
	}
	if err := m.spillTables(ctx, p.tables); err != nil {
		p.giveUp(m, fmt.Sprintf("spill: %v", err))
		return nil
	}
	p.rows, p.bytes = 0, 0
	return nil
}

// StreamDiscard forgets xid's pending state (the stream replays its spool
// instead, or the transaction is gone).
func (m *Mirror) StreamDiscard(xid uint32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.streams.txns, xid)
}

// StreamReset forgets every pending state: a new replication connection
// sends in-progress transactions again from their first chunk.
func (m *Mirror) StreamReset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.streams.txns)
}

// StreamPending reports how many changes xid's pending state took and
// whether it is usable (for tests and metrics).
func (m *Mirror) StreamPending(xid uint32) (changes int64, usable bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.streams.txns[xid]
	if p == nil {
		return 0, false
	}
	return p.changes, p.broken == ""
}

// errNoPending: StreamAdopt found nothing to adopt.
var errNoPending = errors.New("no usable pending state")

// StreamAdopt takes xid's pending state as the open transaction for its
// commit info, if it is still right to: then the next Begin(info) is a
// no-op and Commit(info) commits it. ok false (the pending state is
// dropped) means the caller replays the spool through Begin, Change and
// Commit as for any transaction.
func (m *Mirror) StreamAdopt(ctx context.Context, info wal.TxnInfo) (ok bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return false, m.err
	}
	p := m.streams.txns[info.Xid]
	delete(m.streams.txns, info.Xid)
	if reason := m.adoptable(p, info); reason != nil {
		if p != nil {
			m.log.Debug("streamed transaction: replaying its spool", "xid", info.Xid, "reason", reason)
		}
		return false, nil
	}
	if p.spilled {
		// Commit's group record must hold every earlier commit: the
		// commits since the last spill are still in the group.
		if err := m.flushGroup(ctx); err != nil {
			m.failLocked(fmt.Errorf("adopt streamed xid %d: %w", info.Xid, err))
			return false, m.err
		}
	}
	m.txn = &txnState{info: info, tables: p.tables, rows: p.rows, bytes: p.bytes, spilled: p.spilled,
		held: map[string][]*heldChange{}, heldSeq: map[string]uint32{}, heldFlushd: map[string]bool{}, adopted: true}
	m.streams.adopted.Add(1)
	return true, nil
}

// adoptable says why p cannot become the transaction committing as info,
// or nil. The caller holds mu.
func (m *Mirror) adoptable(p *streamTxn, info wal.TxnInfo) error {
	switch {
	case p == nil:
		return errNoPending
	case p.broken != "":
		return errors.New(p.broken)
	case m.txn != nil:
		return fmt.Errorf("transaction xid %d still open", m.txn.info.Xid)
	case info.EndLSN <= m.lastEnd:
		return errors.New("at or below the last commit")
	}
	for name := range p.tables {
		t := m.followed(name)
		if t == nil || m.tables[name] != t || t.rec.State != StateReady {
			return fmt.Errorf("table %s is no longer ready", name)
		}
		if t.rec.CopiedAt != p.copiedAt[name] {
			return fmt.Errorf("table %s was copied again", name)
		}
		if info.CommitLSN < t.rec.CopiedAt {
			return fmt.Errorf("table %s's copy contains the transaction", name)
		}
	}
	return nil
}

// noteCommitted makes the pending states give up whose edits a commit of
// txn's tables leaves stale: a multiset table's, or a spilled one's (its
// scratch tree is over the root before the commit). The caller holds mu.
func (m *Mirror) noteCommitted(txn *txnState) {
	for _, p := range m.streams.txns {
		if p.broken != "" || p.xid == txn.info.Xid {
			continue
		}
		for name := range txn.tables {
			tt := p.tables[name]
			if tt == nil {
				continue
			}
			if t := m.tables[name]; tt.scratch != nil || t == nil || t.full {
				p.giveUp(m, fmt.Sprintf("commit %s changed table %s meanwhile", txn.info.EndLSN, name))
				break
			}
		}
	}
}

// streamRoots returns the pending states' scratch trees, for a GC. The
// caller holds mu.
func (m *Mirror) streamRoots() []prolly.Root {
	var out []prolly.Root
	for _, p := range m.streams.txns {
		for _, tt := range p.tables {
			if tt.scratch != nil {
				out = append(out, *tt.scratch)
			}
		}
	}
	return out
}
