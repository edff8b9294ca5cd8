// The applier: delivers queued messages to the sink as transactions,
// streamed ones through the spool, and skips what is already durable.

package replication

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/wal"
)

// applier turns messages into sink calls. It runs on the session's
// goroutine; the relation cache is per connection (the server sends every
// relation again on a new connection).
//
// Begin is sent lazily, with the first change: a transaction with nothing
// to deliver (every change filtered by CopiedAt, or a streamed transaction
// that touched only unpublished tables: PostgreSQL streams those too) never
// reaches the sink; its end LSN is recorded as settled instead, so the
// idle acknowledgement still moves past it.
type applier struct {
	s         *Streamer
	spool     Spool
	rels      map[uint32]*wal.Relation
	typeNames map[uint32]string

	cur       *wal.TxnInfo // the transaction being delivered
	begun     bool         // Begin was sent for cur
	skipping  bool         // inside a non-streamed transaction that is already durable
	streamXid uint32       // top-level xid of the current stream block

	// pending, when the sink has one, takes streamed changes as they
	// arrive (applied ahead); streams is what the applier keeps per open
	// streamed transaction for that (pending.go).
	pending PendingSink
	streams map[uint32]*streamState
}

// sinkErr marks errors from the sink: fatal.
func sinkErr(what string, err error) error {
	return fatal(fmt.Errorf("sink %s: %w", what, err))
}

func (a *applier) run(ctx context.Context, q *queue) (err error) {
	defer func() {
		if a.cur != nil && a.begun {
			// The connection ended inside a transaction: it will be sent
			// again from its Begin.
			info := *a.cur
			if aerr := a.s.cfg.Sink.Abort(context.WithoutCancel(ctx), info); aerr != nil && err == nil {
				err = sinkErr("abort", aerr)
			}
		}
		a.cur, a.begun = nil, false
	}()
	for {
		var it item
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case it, ok = <-q.ch:
		default:
			// Nothing queued: apply streamed transactions ahead from
			// their spool (pending.go), a step at a time.
			if worked, err := a.catchUpSome(ctx); err != nil {
				return err
			} else if worked {
				continue
			}
			select {
			case <-ctx.Done():
				return nil
			case it, ok = <-q.ch:
			}
		}
		if !ok {
			return nil
		}
		q.release(int64(len(it.raw) + it.m.size))
		if it.raw != nil {
			sub, err := streamXid(it.raw)
			if err != nil {
				return fatal(err)
			}
			if err := a.spool.Append(a.streamXid, sub, it.raw); err != nil {
				return fatal(fmt.Errorf("spool: %w", err))
			}
			if err := a.applyAhead(ctx, q, a.streamXid, sub, it.raw); err != nil { // pending.go
				return err
			}
			continue
		}
		if err := a.apply(ctx, &it.m); err != nil {
			return err
		}
	}
}

// skipBelow: a transaction whose commit record starts below this is
// already durable or already delivered. (CommitLSN < b is EndLSN <= b
// for b a record boundary, which durable and end LSNs are.)
func (a *applier) skipBelow() wal.LSN {
	return max(a.s.cfg.Sink.Durable(), a.s.lastCommitted)
}

func (a *applier) apply(ctx context.Context, m *wireMsg) error {
	switch m.typ {
	case 'B':
		if a.cur != nil || a.skipping {
			return fatal(errors.New("protocol: Begin inside a transaction"))
		}
		if m.lsn < a.skipBelow() {
			a.skipping = true
			return nil
		}
		a.cur = &wal.TxnInfo{Xid: m.xid, CommitLSN: m.lsn, CommitTime: m.time}
	case 'C':
		if a.skipping {
			a.skipping = false
			return nil
		}
		if a.cur == nil {
			return fatal(errors.New("protocol: Commit outside a transaction"))
		}
		a.cur.CommitLSN, a.cur.EndLSN, a.cur.CommitTime = m.lsn, m.endLSN, m.time
		return a.commit(ctx)
	case 'S':
		a.streamXid = m.xid
	case 'E', 'O':
	case 'A':
		if err := a.spool.Abort(m.xid, m.subxid); err != nil {
			return fatal(fmt.Errorf("spool: %w", err))
		}
		return a.abortAhead(ctx, m.xid, m.subxid) // pending.go
	case 'c':
		return a.streamCommit(ctx, m)
	case 'I', 'U', 'D', 'T':
		if a.cur == nil && !a.skipping {
			return fatal(fmt.Errorf("protocol: change %q outside a transaction", m.typ))
		}
		return a.message(ctx, m, a.skipping)
	default:
		return a.message(ctx, m, a.skipping)
	}
	return nil
}

// commit ends a.cur: Commit if it was begun, settled otherwise.
func (a *applier) commit(ctx context.Context) error {
	info := *a.cur
	begun := a.begun
	a.cur, a.begun = nil, false
	if !begun {
		a.s.settled.Store(max(a.s.settled.Load(), uint64(info.EndLSN)))
		return nil
	}
	if err := a.s.cfg.Sink.Commit(ctx, info); err != nil {
		return sinkErr("commit", err)
	}
	a.s.lastCommitted = max(a.s.lastCommitted, info.EndLSN)
	a.s.committed.Store(uint64(a.s.lastCommitted))
	return nil
}

// streamCommit replays a streamed transaction from the spool.
func (a *applier) streamCommit(ctx context.Context, m *wireMsg) error {
	if a.cur != nil || a.skipping {
		return fatal(errors.New("protocol: Stream Commit inside a transaction"))
	}
	skip := m.lsn < a.skipBelow()
	info := wal.TxnInfo{Xid: m.xid, CommitLSN: m.lsn, EndLSN: m.endLSN, CommitTime: m.time, Streamed: true}
	if done, err := a.commitAhead(ctx, info, skip); done || err != nil { // pending.go
		return err
	}
	a.cur = &info
	// Even a skipped transaction's Relation and Type messages are
	// replayed: the server now counts them as sent.
	err := a.spool.Replay(m.xid, func(raw []byte) error {
		msg, err := decodeMessage(append([]byte(nil), raw...), true)
		if err != nil {
			return fatal(fmt.Errorf("spooled message of xid %d: %w", m.xid, err))
		}
		return a.message(ctx, &msg, skip)
	})
	if err != nil {
		var f fatalError
		if !errors.As(err, &f) {
			err = fatal(fmt.Errorf("spool replay of xid %d: %w", m.xid, err))
		}
		return err
	}
	if skip {
		a.cur, a.begun = nil, false
		return nil
	}
	return a.commit(ctx)
}

// message handles Relation, Type and change messages of a.cur. skip drops
// changes (the transaction is already durable) but still records schema.
func (a *applier) message(ctx context.Context, m *wireMsg, skip bool) error {
	sink := a.s.cfg.Sink
	switch m.typ {
	case 'Y':
		a.typeNames[m.typOID] = m.typName
		return nil
	case 'R':
		rel := m.rel
		for i := range rel.Columns {
			rel.Columns[i].TypeName = a.typeName(rel.Columns[i].TypeOID)
		}
		if a.cur != nil {
			rel.DescribedAt = a.cur.CommitLSN
		}
		a.rels[rel.OID] = rel
		if err := sink.Relation(ctx, rel); err != nil {
			return sinkErr("relation", err)
		}
		return nil
	case 'M':
		if m.flags&1 == 0 || skip {
			return nil // non-transactional messages belong to no transaction
		}
		if a.cur == nil {
			return fatal(errors.New("protocol: transactional message outside a transaction"))
		}
		return a.change(ctx, &wal.Change{Kind: wal.Message, Prefix: m.prefix, Content: m.content})
	}
	if skip {
		return nil
	}
	c, err := a.toChange(m, a.rel, a.s.cfg.CopiedAt, a.cur.CommitLSN)
	if err != nil || c == nil {
		return err
	}
	return a.change(ctx, c)
}

// toChange turns the change message m ('I', 'U', 'D', 'T') into a
// wal.Change, its relations from rel. Changes of tables whose copy
// contains the commit at commit (copied) are dropped: nil when nothing is
// left.
func (a *applier) toChange(m *wireMsg, rel func(uint32) (*wal.Relation, error), copied *wal.CopiedAt, commit wal.LSN) (*wal.Change, error) {
	if m.typ == 'T' {
		c := &wal.Change{Kind: wal.Truncate, Cascade: m.flags&1 != 0, RestartIdentity: m.flags&2 != 0}
		for _, id := range m.relIDs {
			r, err := rel(id)
			if err != nil {
				return nil, err
			}
			if !copied.Skip(r.QualifiedName(), commit) {
				c.Truncated = append(c.Truncated, r)
			}
		}
		if len(c.Truncated) == 0 {
			return nil, nil
		}
		return c, nil
	}
	r, err := rel(m.relID)
	if err != nil {
		return nil, err
	}
	if copied.Skip(r.QualifiedName(), commit) {
		return nil, nil
	}
	c := &wal.Change{Relation: r, New: m.new, Old: m.old}
	switch m.oldKind {
	case 'K':
		c.OldKind = wal.OldKey
		// Columns outside the identity are sent as 'n' in a key tuple:
		// "not sent", not NULL (identity columns are never NULL).
		for i := range c.Old {
			if c.Old[i].Kind == wal.Null {
				c.Old[i].Kind = wal.Unchanged
			}
		}
	case 'O':
		c.OldKind = wal.OldRow
	}
	switch m.typ {
	case 'I':
		c.Kind = wal.Insert
	case 'U':
		c.Kind = wal.Update
	case 'D':
		c.Kind = wal.Delete
	default:
		return nil, fatal(fmt.Errorf("protocol: unexpected message %q in a transaction", m.typ))
	}
	for _, tup := range [][]wal.Value{c.New, c.Old} {
		if tup != nil && len(tup) != len(r.Columns) {
			return nil, fatal(fmt.Errorf("protocol: %s on %s has %d columns, its Relation has %d", c.Kind, r.QualifiedName(), len(tup), len(r.Columns)))
		}
	}
	return c, nil
}

// change delivers c, sending the transaction's Begin first if needed.
func (a *applier) change(ctx context.Context, c *wal.Change) error {
	if !a.begun {
		if err := a.s.cfg.Sink.Begin(ctx, *a.cur); err != nil {
			return sinkErr("begin", err)
		}
		a.begun = true
	}
	if err := a.s.cfg.Sink.Change(ctx, c); err != nil {
		return sinkErr("change", err)
	}
	return nil
}

func (a *applier) rel(id uint32) (*wal.Relation, error) {
	rel := a.rels[id]
	if rel == nil {
		return nil, fatal(fmt.Errorf("protocol: change for relation %d before its Relation message", id))
	}
	return rel, nil
}

// typeName names a column type as the copy does (pg_type.typname,
// schema-qualified outside pg_catalog): from a Type message or the
// catalog's built-in types.
func (a *applier) typeName(oid uint32) string {
	return a.typeNames[oid]
}

// builtinTypeNames reads the names of pg_catalog's types.
func builtinTypeNames(ctx context.Context, conn *pgconn.PgConn) (map[uint32]string, error) {
	rows, _, err := simpleQuery(ctx, conn, `SELECT oid::text, typname::text FROM pg_catalog.pg_type
		WHERE typnamespace = 'pg_catalog'::regnamespace`)
	if err != nil {
		return nil, fmt.Errorf("read built-in type names: %w", err)
	}
	m := make(map[uint32]string, len(rows))
	for _, r := range rows {
		oid, err := strconv.ParseUint(r[0], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("read built-in type names: %w", err)
		}
		m[uint32(oid)] = r[1]
	}
	return m, nil
}
