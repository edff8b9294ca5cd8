package replication

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// memSink is a test mirror: it buffers each transaction, applies it at
// Commit to per-table maps keyed like the mirror would (replica identity
// columns; the first column under FULL), merging Unchanged values, and
// makes it "durable" at once unless holdDurable is set.
type memSink struct {
	mu          sync.Mutex
	durable     atomic.Uint64
	holdDurable atomic.Bool
	tables      map[string]map[string][]wal.Value
	txns        []txnRecord
	cur         *txnRecord
	aborts      int
	relations   []*wal.Relation
	delayOnce   time.Duration // sleep this long in the first Change
	delayed     bool
	err         error // first invariant violation seen
}

type txnRecord struct {
	info    wal.TxnInfo
	changes []*wal.Change
}

func newMemSink(start wal.LSN) *memSink {
	s := &memSink{tables: map[string]map[string][]wal.Value{}}
	s.durable.Store(uint64(start))
	return s
}

func (s *memSink) Durable() wal.LSN { return wal.LSN(s.durable.Load()) }

func (s *memSink) Begin(_ context.Context, txn wal.TxnInfo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return fmt.Errorf("Begin of xid %d inside xid %d", txn.Xid, s.cur.info.Xid)
	}
	s.cur = &txnRecord{info: txn}
	return nil
}

func (s *memSink) Relation(_ context.Context, rel *wal.Relation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.relations = append(s.relations, rel)
	return nil
}

func (s *memSink) Change(_ context.Context, c *wal.Change) error {
	s.mu.Lock()
	if s.delayOnce > 0 && !s.delayed {
		s.delayed = true
		d := s.delayOnce
		s.mu.Unlock()
		time.Sleep(d)
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	if s.cur == nil {
		return fmt.Errorf("change outside a transaction")
	}
	s.cur.changes = append(s.cur.changes, c)
	return nil
}

func (s *memSink) Commit(_ context.Context, txn wal.TxnInfo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil || s.cur.info.Xid != txn.Xid {
		return fmt.Errorf("Commit of xid %d without its Begin", txn.Xid)
	}
	if txn.EndLSN <= s.Durable() {
		return fmt.Errorf("xid %d ending at %s delivered although durable is %s", txn.Xid, txn.EndLSN, s.Durable())
	}
	for _, c := range s.cur.changes {
		if err := s.applyChange(c); err != nil && s.err == nil {
			s.err = fmt.Errorf("xid %d: %w", txn.Xid, err)
		}
	}
	s.cur.info = txn
	s.txns = append(s.txns, *s.cur)
	s.cur = nil
	if !s.holdDurable.Load() {
		s.durable.Store(uint64(txn.EndLSN))
	}
	return nil
}

func (s *memSink) Abort(_ context.Context, txn wal.TxnInfo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur = nil
	s.aborts++
	return nil
}

func keyOf(rel *wal.Relation, vals []wal.Value) string {
	idx := rel.KeyColumns()
	if rel.Identity == wal.IdentityFull {
		idx = []int{0}
	}
	parts := make([]string, len(idx))
	for i, k := range idx {
		parts[i] = vals[k].String()
	}
	return strings.Join(parts, "|")
}

func cloneVals(vals []wal.Value) []wal.Value {
	out := make([]wal.Value, len(vals))
	for i, v := range vals {
		out[i] = wal.Value{Kind: v.Kind, Bytes: append([]byte(nil), v.Bytes...)}
	}
	return out
}

func (s *memSink) table(name string) map[string][]wal.Value {
	m := s.tables[name]
	if m == nil {
		m = map[string][]wal.Value{}
		s.tables[name] = m
	}
	return m
}

func (s *memSink) applyChange(c *wal.Change) error {
	switch c.Kind {
	case wal.Truncate:
		for _, r := range c.Truncated {
			s.tables[r.QualifiedName()] = map[string][]wal.Value{}
		}
		return nil
	case wal.Message:
		return nil
	}
	rel := c.Relation
	m := s.table(rel.QualifiedName())
	switch c.Kind {
	case wal.Insert:
		if _, dup := m[keyOf(rel, c.New)]; dup {
			return fmt.Errorf("insert of existing key %s into %s: a change was delivered twice", keyOf(rel, c.New), rel.Name)
		}
		m[keyOf(rel, c.New)] = cloneVals(c.New)
	case wal.Update:
		oldKey := keyOf(rel, c.New)
		if c.OldKind != wal.NoOld {
			oldKey = keyOf(rel, c.Old)
		}
		cur, have := m[oldKey]
		row := cloneVals(c.New)
		for i, v := range row {
			if v.Kind != wal.Unchanged {
				continue
			}
			switch {
			case c.OldKind == wal.OldRow && c.Old[i].Kind != wal.Unchanged:
				row[i] = cloneVals(c.Old[i : i+1])[0]
			case have:
				row[i] = cur[i]
			default:
				return fmt.Errorf("unchanged TOAST value of column %s for a row (%s) the mirror does not have", rel.Columns[i].Name, oldKey)
			}
		}
		delete(m, oldKey)
		m[keyOf(rel, row)] = row
	case wal.Delete:
		if _, ok := m[keyOf(rel, c.Old)]; !ok {
			return fmt.Errorf("delete of missing key %s", keyOf(rel, c.Old))
		}
		delete(m, keyOf(rel, c.Old))
	}
	return nil
}

// rows renders a table's rows as rowsOf does.
func (s *memSink) rows(table string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.tables[table] {
		out = append(out, renderRow(r))
	}
	sort.Strings(out)
	return out
}

func (s *memSink) committed() []txnRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]txnRecord(nil), s.txns...)
}

// reset empties a table (a copy replaces it).
func (s *memSink) reset(table string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tables, table)
}

// load seeds a table from a copy sink.
func (s *memSink) load(rel *wal.Relation, rows [][]wal.Value) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.table(rel.QualifiedName())
	for _, r := range rows {
		m[keyOf(rel, r)] = cloneVals(r)
	}
}

func (s *memSink) invariantErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
