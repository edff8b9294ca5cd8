package wal

import "sync"

// CopiedAt records, per table, the LSN of the snapshot its rows were copied
// under when that differs from where the stream starts: tables re-copied by
// replication.Resync after an interrupted initial copy or a schema change. The stream
// drops a table's changes from transactions with CommitLSN < its LSN,
// because the copy already shows them (the server's own rule for what a
// snapshot at that LSN contains). It is safe for concurrent use: the mirror
// may add a table while the stream runs (per-table resync).
type CopiedAt struct {
	mu sync.RWMutex
	m  map[string]LSN
}

// NewCopiedAt returns an empty filter.
func NewCopiedAt() *CopiedAt { return &CopiedAt{m: map[string]LSN{}} }

// Set records that table (its canonical name, Relation.QualifiedName)
// was copied at lsn.
func (c *CopiedAt) Set(table string, lsn LSN) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[table] = lsn
}

// Delete forgets table; call it once the stream is past its LSN (the
// filter would drop nothing more) or when the table is resynced again.
func (c *CopiedAt) Delete(table string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, table)
}

// Get returns table's copy LSN, if one is recorded.
func (c *CopiedAt) Get(table string) (LSN, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	l, ok := c.m[table]
	return l, ok
}

// Skip reports whether a change to table in a transaction whose commit
// record starts at commitLSN is already in the table's copy. A nil
// filter skips nothing.
func (c *CopiedAt) Skip(table string, commitLSN LSN) bool {
	if c == nil {
		return false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	at, ok := c.m[table]
	return ok && commitLSN < at
}
