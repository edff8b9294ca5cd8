package mirror

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/sidecar-dev/sidecar/internal/invariants"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

var (
	_ wal.Sink     = (*Mirror)(nil)
	_ wal.CopySink = (*Mirror)(nil)
)

// txnState is the transaction between Begin and Commit or Abort.
type txnState struct {
	info   wal.TxnInfo
	tables map[string]*txnTable
	rows   int
	bytes  int64
	// spilled: the group was flushed and each table's edits so far are
	// in its scratch tree.
	spilled bool
	// held changes of tables in state resync_needed, per table.
	held       map[string][]*heldChange
	heldSeq    map[string]uint32
	heldCount  int
	heldFlushd map[string]bool // some were written to Badger already
	// adopted: a streamed transaction's pending state (StreamAdopt),
	// waiting for the Begin that opens it.
	adopted bool
}

type txnTable struct {
	edits   *editSet
	change  TableChange
	scratch *prolly.Root // spilled edits, over the group's base
}

// heldFlushAt bounds held changes kept in memory by one transaction.
const heldFlushAt = 10_000

// Begin implements wal.Sink.
func (m *Mirror) Begin(ctx context.Context, info wal.TxnInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	if m.txn != nil && m.txn.adopted && m.txn.info.Xid == info.Xid {
		m.txn.adopted = false // StreamAdopt opened it
		return nil
	}
	if m.txn != nil {
		return fmt.Errorf("begin xid %d: transaction xid %d still open", info.Xid, m.txn.info.Xid)
	}
	// Every commit below this one's is taken: copies waiting for that
	// land before it, as versions of their own (landing.go).
	if len(m.landing) > 0 && info.CommitLSN >= m.lastEnd {
		if err := m.land(ctx, info.CommitLSN); err != nil {
			return err
		}
	}
	m.txn = &txnState{info: info, tables: map[string]*txnTable{}, held: map[string][]*heldChange{},
		heldSeq: map[string]uint32{}, heldFlushd: map[string]bool{}}
	return nil
}

// Relation implements wal.Sink. A Relation that differs from the
// one a ready table was copied with (columns added, dropped, retyped, key
// or identity changed, table re-created) puts the table in state
// resync_needed: PostgreSQL sends no row changes for the rewrite, so
// applying later changes cannot be right.
func (m *Mirror) Relation(ctx context.Context, rel *wal.Relation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	t := m.followed(rel.QualifiedName())
	if t == nil {
		return nil
	}
	t.latest, t.latestAt = rel, rel.DescribedAt
	if t.latestAt == 0 && m.txn != nil {
		t.latestAt = m.txn.info.CommitLSN
	}
	if t.rec.State == StateReady && !rel.Equal(t.rec.Rel) {
		return m.markResync(t, fmt.Sprintf("relation changed: %s", describeRelDiff(t.rec.Rel, rel)))
	}
	return nil
}

// followed returns the table's state, or nil (with a debug log) for a
// table that is not followed.
func (m *Mirror) followed(name string) *table {
	t := m.tables[name]
	if t == nil {
		t = m.pending[name] // followset.go
	}
	if t == nil || (m.follow != nil && !m.follow[name]) {
		m.log.Debug("ignoring change to a table that is not followed", "table", name)
		return nil
	}
	return t
}

// markResync records durably that t needs a resync; its changes are held
// from now on. The caller holds mu.
func (m *Mirror) markResync(t *table, reason string) error {
	rec := t.rec
	rec.State = StateResyncNeeded
	rec.ResyncFrom = m.head.EndLSN
	if m.txn != nil {
		rec.ResyncFrom = m.txn.info.CommitLSN
	}
	op := &writeOp{}
	op.set(tableKey(rec.Name), rec.encode())
	if err := m.enqueue(op); err != nil {
		return fmt.Errorf("mark %s resync_needed: %w", rec.Name, err)
	}
	t.rec = rec
	m.resyncNote.signal()
	m.log.Warn("table needs a resync; its changes are held until then", "table", rec.Name, "reason", reason)
	return nil
}

func describeRelDiff(old, cur *wal.Relation) string {
	col := func(r *wal.Relation) string {
		var b bytes.Buffer
		for i, c := range r.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %d/%d", c.Name, c.TypeOID, c.TypeMod)
			if c.Key {
				b.WriteString(" key")
			}
		}
		return b.String()
	}
	return fmt.Sprintf("oid %d identity %s (%s) → oid %d identity %s (%s)", old.OID, old.Identity, col(old), cur.OID, cur.Identity, col(cur))
}

// MarkResync puts a ready table in state resync_needed (e.g. for
// `sidecar resync <table>`): from now on its changes are held, so that the
// copy replaces its tree without losing changes made while it runs. Call
// it before replication.Resync for a table that is ready.
func (m *Mirror) MarkResync(ctx context.Context, table, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	t := m.tables[table]
	if t == nil {
		return fmt.Errorf("mark %s for resync: %w", table, ErrUnknownTable)
	}
	if t.rec.State == StateResyncNeeded {
		return nil
	}
	for m.txn != nil && m.err == nil {
		m.idle.Wait()
	}
	if m.err != nil {
		return m.err
	}
	return m.markResync(t, reason)
}

// NeedsResync lists the tables (sorted) in state resync_needed: the daemon
// runs replication.Resync for them with the Mirror as CopySink. A table
// whose copy waits to land (landing.go) is not listed.
func (m *Mirror) NeedsResync() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for name, t := range m.tables {
		if t.rec.State == StateResyncNeeded && !m.waitingLanding(name) {
			out = append(out, name)
		}
	}
	out = m.pendingNeeds(out) // followset.go
	slices.Sort(out)
	return out
}

// Change implements wal.Sink.
func (m *Mirror) Change(ctx context.Context, c *wal.Change) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	if m.txn == nil {
		return fmt.Errorf("%s outside a transaction", c.Kind)
	}
	switch c.Kind {
	case wal.Message:
		return nil
	case wal.Truncate:
		for _, rel := range c.Truncated {
			t := m.followed(rel.QualifiedName())
			if t == nil {
				continue
			}
			if t.rec.State != StateReady {
				if err := m.hold(ctx, t, &heldChange{kind: wal.Truncate}); err != nil {
					return err
				}
				continue
			}
			if m.inCopy(t) {
				continue
			}
			m.truncateTxnTable(m.txnTable(t.rec.Name))
		}
		return m.maybeSpill(ctx)
	}
	t := m.followed(c.Relation.QualifiedName())
	if t == nil {
		return nil
	}
	if t.rec.State != StateReady {
		return m.hold(ctx, t, &heldChange{kind: c.Kind, oldKind: c.OldKind, newVals: c.New, oldVals: c.Old})
	}
	if m.inCopy(t) {
		return nil
	}
	tt := m.txnTable(t.rec.Name)
	err := rowEdits(t, c.Kind, c.OldKind, c.New, c.Old, func(key []byte) ([]byte, bool, error) {
		return m.current(ctx, t, tt, key)
	}, func(key string, e edit) {
		before := tt.edits.bytes
		tt.edits.put(key, e)
		m.txn.bytes += tt.edits.bytes - before
		m.txn.rows++
	})
	var missing *missingRowError
	if errors.As(err, &missing) {
		// The mirror lacks a row PostgreSQL has: its copy of the table
		// cannot be trusted. Never invent the missing values.
		return m.markResync(t, missing.Error())
	}
	if err != nil {
		return fmt.Errorf("%s on %s: %w", c.Kind, t.rec.Name, err)
	}
	tt.change.Rows++
	return m.maybeSpill(ctx)
}

// inCopy reports whether the open transaction is already contained in
// t's copy (commit LSN below the copy's snapshot LSN: the server's rule).
// The stream's CopiedAt filter drops these too, but a change it let
// through just before TableCopied set the filter must not be applied to
// the new tree a second time.
func (m *Mirror) inCopy(t *table) bool {
	if m.txn.info.CommitLSN < t.rec.CopiedAt {
		m.log.Debug("dropping a change the table's copy already contains", "table", t.rec.Name, "commit", m.txn.info.CommitLSN, "copied_at", t.rec.CopiedAt)
		return true
	}
	return false
}

func (m *Mirror) txnTable(name string) *txnTable {
	tt := m.txn.tables[name]
	if tt == nil {
		tt = &txnTable{edits: newEditSet(), change: TableChange{Table: name}}
		m.txn.tables[name] = tt
	}
	return tt
}

// current returns the table's current row under key as this transaction
// sees it: its own pending edits, then its spilled scratch tree, then the
// pending group, then the group being flushed, then the tree.
func (m *Mirror) current(ctx context.Context, t *table, tt *txnTable, key []byte) ([]byte, bool, error) {
	if tt != nil {
		if v, found, known := tt.edits.lookup(key); known {
			return v, found, nil
		}
		if tt.scratch != nil {
			return m.eng.Get(ctx, *tt.scratch, key)
		}
	}
	if s := m.group.tables[t.rec.Name]; s != nil {
		if v, found, known := s.lookup(key); known {
			return v, found, nil
		}
	}
	if m.flushing != nil {
		if s := m.flushing.g.tables[t.rec.Name]; s != nil {
			if v, found, known := s.lookup(key); known {
				return v, found, nil
			}
		}
	}
	return m.eng.Get(ctx, t.rec.Root, key)
}

// missingRowError: an UPDATE left columns unchanged (TOAST) for a row the
// mirror does not have.
// It also reports a held change that does not fit the copied table.
type missingRowError struct {
	table  string
	key    []byte
	reason string
}

func (e *missingRowError) Error() string {
	if e.reason != "" {
		return fmt.Sprintf("change to %s does not fit the table: %s", e.table, e.reason)
	}
	return fmt.Sprintf("update of %s key %x left columns unchanged, but the mirror has no such row", e.table, e.key)
}

// rowEdits turns one row change into edits of t's tree: the key from the
// identity columns (New for an insert or an update without old key, Old
// for a key-changing update or a delete), the value vrow1 of New with
// Unchanged columns filled from the old row (REPLICA IDENTITY FULL) or
// the current row. A key-changing update deletes the old key. A REPLICA
// IDENTITY FULL table is a multiset (fullEdits).
func rowEdits(t *table, kind wal.ChangeKind, oldKind wal.OldKind, newVals, oldVals []wal.Value,
	current func(key []byte) ([]byte, bool, error), put func(key string, e edit)) error {
	ncol := len(t.rec.Rel.Columns)
	for _, tup := range [][]wal.Value{newVals, oldVals} {
		if tup != nil && len(tup) != ncol {
			return fmt.Errorf("row has %d columns, the table %d", len(tup), ncol)
		}
	}
	if t.full {
		return fullEdits(t, kind, oldKind, newVals, oldVals, current, put)
	}
	switch kind {
	case wal.Insert:
		val, err := encodeRow(newVals, nil)
		if err != nil {
			return err
		}
		key, err := encodeKey(t, newVals)
		if err != nil {
			return err
		}
		put(string(key), edit{val: val})
	case wal.Update:
		var oldKey []byte
		var err error
		if oldKind != wal.NoOld {
			if oldKey, err = encodeKey(t, oldVals); err != nil {
				return fmt.Errorf("old key: %w", err)
			}
		} else if oldKey, err = encodeKey(t, newVals); err != nil {
			return err
		}
		var fill []wal.Value
		if needsFill(newVals) {
			if oldKind == wal.OldRow {
				fill = oldVals
			} else {
				cur, found, err := current(oldKey)
				if err != nil {
					return err
				}
				if !found {
					return &missingRowError{table: t.rec.Name, key: oldKey}
				}
				if fill, err = decodeRow(cur, ncol); err != nil {
					return fmt.Errorf("current row %x: %w", oldKey, err)
				}
			}
		}
		val, err := encodeRow(newVals, fill)
		if err != nil {
			return err
		}
		newKey := oldKey
		if oldKind != wal.NoOld {
			if newKey, err = encodeKey(t, newVals); err != nil {
				return err
			}
		}
		if !bytes.Equal(oldKey, newKey) {
			put(string(oldKey), edit{del: true})
		}
		put(string(newKey), edit{val: val})
	case wal.Delete:
		key, err := encodeKey(t, oldVals)
		if err != nil {
			return err
		}
		put(string(key), edit{del: true})
	default:
		return fmt.Errorf("unexpected change kind %s", kind)
	}
	return nil
}

func needsFill(vals []wal.Value) bool {
	for _, v := range vals {
		if v.Kind == wal.Unchanged {
			return true
		}
	}
	return false
}

// encodeKey encodes the identity columns of vals.
func encodeKey(t *table, vals []wal.Value) ([]byte, error) {
	if vals == nil {
		return nil, errors.New("no row to take the key from")
	}
	if t.codec == nil {
		return nil, errors.New("REPLICA IDENTITY FULL tables have no key codec")
	}
	texts := make([][]byte, len(t.keyCols))
	for i, k := range t.keyCols {
		v := vals[k]
		if v.Kind != wal.Text {
			return nil, fmt.Errorf("key column %s is %s", t.rec.Rel.Columns[k].Name, v)
		}
		texts[i] = v.Bytes
	}
	key, err := t.codec.Append(nil, texts)
	if err != nil {
		return nil, fmt.Errorf("encode key: %w", err)
	}
	return key, nil
}

// encodeRow encodes vals as vrow1, taking Unchanged columns from fill.
func encodeRow(vals, fill []wal.Value) ([]byte, error) {
	cols := make([][]byte, len(vals))
	for i, v := range vals {
		if v.Kind == wal.Unchanged {
			if fill == nil || fill[i].Kind == wal.Unchanged {
				return nil, fmt.Errorf("column %d unchanged and no current value to keep", i)
			}
			v = fill[i]
		}
		switch v.Kind {
		case wal.Null:
			cols[i] = nil
		case wal.Text:
			cols[i] = v.Bytes
			if cols[i] == nil {
				cols[i] = []byte{}
			}
		default:
			return nil, fmt.Errorf("column %d has value kind %d", i, v.Kind)
		}
	}
	return rowenc.Encode(cols), nil
}

// decodeRow decodes a stored vrow1 row into values.
func decodeRow(row []byte, ncol int) ([]wal.Value, error) {
	vals := make([]wal.Value, 0, ncol)
	it := rowenc.NewIter(row)
	for it.Next() {
		if it.Null() {
			vals = append(vals, wal.Value{Kind: wal.Null})
		} else {
			vals = append(vals, wal.Value{Kind: wal.Text, Bytes: it.Value()})
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	if len(vals) != ncol {
		return nil, fmt.Errorf("stored row has %d columns, the table %d", len(vals), ncol)
	}
	return vals, nil
}

// hold keeps a change to a table waiting for its resync. The caller holds
// mu.
func (m *Mirror) hold(ctx context.Context, t *table, h *heldChange) error {
	name := t.rec.Name
	m.txn.held[name] = append(m.txn.held[name], h)
	m.txn.heldCount++
	if m.txn.heldCount >= heldFlushAt {
		op := &writeOp{}
		m.writeHeld(op)
		if err := m.enqueue(op); err != nil {
			return fmt.Errorf("write held changes: %w", err)
		}
	}
	return nil
}

// writeHeld writes the transaction's held changes under its commit LSN
// (idempotent: a redelivered transaction writes the same keys).
func (m *Mirror) writeHeld(op *writeOp) {
	for name, hs := range m.txn.held {
		for _, h := range hs {
			seq := m.txn.heldSeq[name]
			m.txn.heldSeq[name] = seq + 1
			op.set(heldKey(name, m.txn.info.CommitLSN, seq), h.encode())
		}
		if len(hs) > 0 {
			m.txn.heldFlushd[name] = true
		}
	}
	clear(m.txn.held)
	m.txn.heldCount = 0
}

// maybeSpill moves the transaction's edits into scratch trees when they
// grow past the spill bounds. The caller holds mu.
func (m *Mirror) maybeSpill(ctx context.Context) error {
	if m.txn.rows < m.opts.SpillRows && m.txn.bytes < m.opts.SpillBytes {
		return nil
	}
	return m.spill(ctx)
}

func (m *Mirror) spill(ctx context.Context) error {
	if !m.txn.spilled {
		// The scratch trees start from the trees with every earlier
		// commit applied.
		if err := m.flushGroup(ctx); err != nil {
			return fmt.Errorf("spill xid %d: %w", m.txn.info.Xid, err)
		}
		m.txn.spilled = true
		m.stats.spills.Add(1)
	}
	if err := m.spillTables(ctx, m.txn.tables); err != nil {
		return fmt.Errorf("spill xid %d %w", m.txn.info.Xid, err)
	}
	m.txn.rows, m.txn.bytes = 0, 0
	return nil
}

// spillTables applies each table's pending edits to its scratch tree (its
// tree, when it has none yet). The caller holds mu.
func (m *Mirror) spillTables(ctx context.Context, tables map[string]*txnTable) error {
	for name, tt := range tables {
		base := m.tables[name].rec.Root
		if tt.scratch != nil {
			base = *tt.scratch
		}
		r, err := tt.edits.apply(ctx, m.eng, base)
		if err != nil {
			return fmt.Errorf("table %s: %w", name, err)
		}
		tt.scratch = &r
		// Reuse the map: its buckets are sized for the next chunk.
		clear(tt.edits.m)
		tt.edits.truncated, tt.edits.bytes = false, 0
	}
	return nil
}

// truncateTxnTable records a TRUNCATE in a transaction's table state.
func (m *Mirror) truncateTxnTable(tt *txnTable) {
	tt.edits.truncate()
	tt.change.Truncated = true
	if tt.scratch != nil {
		e := m.eng.EmptyRoot()
		tt.scratch = &e
	}
}

// Abort implements wal.Sink: everything since Begin is forgotten.
func (m *Mirror) Abort(ctx context.Context, info wal.TxnInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.txn == nil {
		return nil
	}
	err := m.discardTxn(ctx)
	if m.err != nil {
		return m.err
	}
	return err
}

// discardTxn drops the open transaction: its scratch nodes become garbage,
// its held changes already written are deleted.
func (m *Mirror) discardTxn(ctx context.Context) error {
	txn := m.txn
	m.txn = nil
	m.idle.Broadcast()
	if len(txn.heldFlushd) == 0 {
		return nil
	}
	op := &writeOp{}
	for name := range txn.heldFlushd {
		op.delPrefixes = append(op.delPrefixes, heldTxnPrefix(name, txn.info.CommitLSN))
	}
	if err := m.enqueue(op); err != nil {
		return fmt.Errorf("abort xid %d: delete held changes: %w", txn.info.Xid, err)
	}
	return nil
}

// commitEmpty takes a transaction that changed no row of a followed
// table (only a logical decoding message, such as verify's catch-up
// marker, or changes its tables' copies already hold): it is not a
// version, so history stays as it was (issue 21 item 10), but the durable
// LSN moves past it like any commit's, written and synced the same way,
// so the slot is acknowledged past it and a restart resumes after it.
// Readers' head stays the last version.
func (m *Mirror) commitEmpty(info wal.TxnInfo) error {
	durable := enc{}
	durable.uvarint(uint64(info.EndLSN))
	head := m.head
	op := &writeOp{commit: info.EndLSN, version: &head, empty: true}
	op.set(keyDurable, durable.b)
	if err := m.enqueue(op); err != nil {
		return err
	}
	invariants.Check(info.EndLSN > m.lastEnd, "commit %s at or below the last commit %s", info.EndLSN, m.lastEnd)
	m.lastEnd = info.EndLSN
	m.noteCommitTime(info.CommitTime)
	m.txn = nil
	m.idle.Broadcast()
	m.stats.emptyCommits.Add(1)
	m.log.Debug("transaction changed no followed row: no version", "xid", info.Xid, "end", info.EndLSN)
	return nil
}

// Commit implements wal.Sink. The commit's log record (its final
// row states per table), its held changes and the new durable LSN are
// written in one Badger transaction; Durable advances once a later sync
// covers it. A spilled transaction instead becomes a group of its own:
// its trees are flushed and its group record is written in that same
// transaction.
func (m *Mirror) Commit(ctx context.Context, info wal.TxnInfo) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	if m.txn == nil {
		return fmt.Errorf("commit xid %d without begin", info.Xid)
	}
	if info.EndLSN <= m.lastEnd {
		// Already a version: a transaction delivered again (the streamer
		// skips these; applying it twice could undo later commits).
		m.log.Warn("ignoring a transaction at or below the head", "xid", info.Xid, "end", info.EndLSN, "head", m.head.EndLSN, "last_commit", m.lastEnd)
		// Dropped in memory only: held changes it wrote are the first
		// delivery's, under the same keys, and must stay (discardTxn
		// would delete them).
		m.txn = nil
		m.idle.Broadcast()
		return nil
	}
	// A commit once started is finished even when the caller's context
	// ends (the stream stopping for a shutdown): its remaining work is
	// bounded by the spill limits, and a half-done commit would have to
	// fail the mirror.
	if err := m.commit(context.WithoutCancel(ctx), info); err != nil {
		m.failLocked(fmt.Errorf("commit %s (xid %d): %w", info.EndLSN, info.Xid, err))
		return m.err
	}
	// Copies waiting for this commit land after it (landing.go).
	return m.land(context.WithoutCancel(ctx), 0)
}

func (m *Mirror) commit(ctx context.Context, info wal.TxnInfo) error {
	txn := m.txn
	txn.info = info
	if len(txn.tables) == 0 && txn.heldCount == 0 && len(txn.heldFlushd) == 0 && !txn.spilled {
		return m.commitEmpty(info)
	}
	// INVARIANT: versions are strictly increasing in end LSN (Commit
	// drops a transaction at or below the head).
	v := Version{EndLSN: info.EndLSN, CommitLSN: info.CommitLSN, CommitTime: info.CommitTime.UTC(), Xid: info.Xid, Spilled: txn.spilled}
	names := make([]string, 0, len(txn.tables))
	for name := range txn.tables {
		names = append(names, name)
	}
	slices.Sort(names)
	for name, hs := range txn.held {
		if len(hs) > 0 {
			v.Held = append(v.Held, name)
		}
	}
	for name := range txn.heldFlushd {
		if len(txn.held[name]) == 0 { // all written early (hold)
			v.Held = append(v.Held, name)
		}
	}
	slices.Sort(v.Held)
	var logTables []logTable
	for _, name := range names {
		tt := txn.tables[name]
		v.Tables = append(v.Tables, tt.change)
		if txn.spilled {
			logTables = append(logTables, logTable{change: tt.change})
			continue
		}
		lt := logTable{change: tt.change}
		keys := make([]string, 0, len(tt.edits.m))
		for k := range tt.edits.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := tt.edits.m[k]
			lt.edits = append(lt.edits, logEdit{key: []byte(k), val: e.val, del: e.del})
		}
		logTables = append(logTables, lt)
	}
	rec := encodeLog(&v, logTables)
	durable := enc{}
	durable.uvarint(uint64(info.EndLSN))
	// INVARIANT: a commit's log record and the durable LSN naming it are
	// one queued op, written in one Badger transaction (never split).
	op := &writeOp{commit: info.EndLSN, version: &v}
	if txn.heldCount > 0 {
		m.writeHeld(op)
	}
	op.set(logKey(info.EndLSN), rec)
	op.set(keyDurable, durable.b)
	ord := m.ordinal + 1
	if !m.noOrd {
		op.set(ordKey(ord), binary.BigEndian.AppendUint64(nil, uint64(info.EndLSN)))
	}
	m.stats.bytesLog.Add(int64(len(rec) + 10))
	if txn.spilled {
		if err := m.spill(ctx); err != nil {
			return err
		}
		if err := m.ns.Flush(ctx); err != nil {
			return err
		}
		recs := map[string]tableRecord{}
		for name, t := range m.tables {
			r := t.rec
			if tt := txn.tables[name]; tt != nil && tt.scratch != nil && *tt.scratch != r.Root {
				n, err := m.eng.Count(ctx, *tt.scratch)
				if err != nil {
					return fmt.Errorf("count %s: %w", name, err)
				}
				r.Root, r.Rows = *tt.scratch, n
			}
			recs[name] = r
		}
		// INVARIANT: a spilled commit's log record and its group record
		// are one atomic write.
		m.groupOp(info.EndLSN, recs, op)
		if err := m.enqueue(op); err != nil {
			return err
		}
		m.publishCommit(&v, logTables, recs)
		for name, r := range recs {
			m.tables[name].rec = r
		}
		m.lastGroup = info.EndLSN
		m.stats.groups.Add(1)
	} else {
		if err := m.enqueue(op); err != nil {
			return err
		}
		m.publishCommit(&v, logTables, nil)
		m.group.add(logTables, info.EndLSN)
	}
	invariants.Check(v.EndLSN > m.lastEnd, "commit %s at or below the last commit %s", v.EndLSN, m.lastEnd)
	m.head = v
	m.lastEnd = v.EndLSN
	m.noteCommitTime(info.CommitTime)
	m.ordinal = ord
	m.noteCommitted(txn) // stream.go
	m.txn = nil
	m.idle.Broadcast()
	m.stats.commits.Add(1)
	if err := m.reapFlush(); err != nil {
		return err
	}
	if m.group.full(&m.opts) {
		if err := m.startFlush(); err != nil {
			return err
		}
	}
	return nil
}
