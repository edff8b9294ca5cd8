package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/internal/invariants"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// The mirror's records reach Badger through one ordered queue, drained
// by one writer goroutine: every batch of queued operations is written in
// Badger transactions in queue order, then synced when it holds a commit,
// and only then is Durable advanced. Commit only queues its record, so
// apply runs at CPU speed while the previous batch is being synced (group
// commit), and the order of records on disk is the order in which the
// single apply goroutine produced them.

// kvPair is one key to set.
type kvPair struct{ k, v []byte }

// writeOp is one atomic unit of the queue: its keys are written in one
// Badger transaction.
type writeOp struct {
	sets []kvPair
	// delPrefixes: every key under these prefixes is deleted (before sets).
	delPrefixes [][]byte
	// commit is the end LSN of the commit this op logs (0: none).
	commit  wal.LSN
	version *Version // the commit's version, for readers' Head
	// head, on an op that logs no commit (a landing version, landing.go),
	// is the readers' Head once it is written.
	head *Version
	// empty: the commit changed no row and is no version (commitEmpty):
	// it moves the durable LSN only, and version is the head before it.
	empty bool
	// sync makes the op durable before done is signalled.
	sync  bool
	done  chan error // optional, buffered
	bytes int
}

func (op *writeOp) set(k, v []byte) {
	op.sets = append(op.sets, kvPair{k, v})
	op.bytes += len(k) + len(v)
}

// maxQueuedBytes bounds the queue: Commit waits while more is queued.
const maxQueuedBytes = 64 << 20

// enqueue appends op to the write queue (waiting while the queue is over
// its bound). It never needs mu, so the caller may hold it.
func (m *Mirror) enqueue(op *writeOp) error {
	m.wqMu.Lock()
	defer m.wqMu.Unlock()
	for m.wqBytes > maxQueuedBytes && !m.wqClosed {
		m.wqCond.Wait()
	}
	if m.wqClosed {
		return errClosed
	}
	m.wq = append(m.wq, op)
	m.wqBytes += op.bytes
	m.wqCond.Broadcast()
	return nil
}

// enqueueWait enqueues op and waits until it is written (and synced when
// op.sync).
func (m *Mirror) enqueueWait(op *writeOp) error {
	op.done = make(chan error, 1)
	if err := m.enqueue(op); err != nil {
		return err
	}
	return <-op.done
}

// drain waits until everything queued so far is written and synced.
func (m *Mirror) drain() error { return m.enqueueWait(&writeOp{sync: true}) }

// writer drains the queue until it is closed. INVARIANT (checked below
// under internal/invariants: durable <= written): Durable advances
// only to a commit whose record was written before a completed sync.
func (m *Mirror) writer() {
	defer m.writerWG.Done()
	var lastSync time.Time
	for {
		// Let commits gather for at most SyncInterval since the last
		// sync (fsyncs write whole pages: fewer, fuller ones write less).
		if wait := m.opts.SyncInterval - time.Since(lastSync); wait > 0 {
			time.Sleep(wait)
		}
		m.wqMu.Lock()
		for len(m.wq) == 0 && !m.wqClosed {
			m.wqCond.Wait()
		}
		if m.wqAbandon || (m.wqClosed && len(m.wq) == 0) {
			ops := m.wq
			m.wq = nil
			m.wqMu.Unlock()
			for _, op := range ops {
				if op.done != nil {
					op.done <- errClosed
				}
			}
			return
		}
		ops := m.wq
		m.wq, m.wqBytes = nil, 0
		m.wqCond.Broadcast()
		m.wqMu.Unlock()

		// Ops are idempotent: rewritten while Badger blocks writes (an
		// online GC compacting the value log), also during Close, which
		// needs them written.
		err := store.RetryBlocked(context.Background(), func() error { return m.writeOps(ops) })
		var last *writeOp
		var head *Version // readers' head after the batch
		needSync := false
		for _, op := range ops {
			if op.commit != 0 {
				last, head = op, op.version
			}
			if op.head != nil {
				head = op.head
			}
			needSync = needSync || op.sync || op.commit != 0
		}
		if err == nil && needSync {
			start := time.Now()
			lastSync = start
			if err = m.db.Sync(); err == nil {
				took := time.Since(start)
				m.stats.syncs.Add(1)
				m.stats.syncNanos.Add(int64(took))
				if m.opts.OnSync != nil {
					m.opts.OnSync(took)
				}
			}
		}
		if invariants.Enabled {
			checkCommitOrder(ops, wal.LSN(m.written.Load()))
		}
		// The read head first: subscriptions deliver a commit once it is
		// durable, and a consumer (the in-memory HEAD) must never hold a
		// commit readers cannot resolve HEAD to yet — a read at the head
		// before it found the model's table past its version and the
		// mirror's head not there, and went to the tree
		// (TestCommitsDeliveredAfterReadHead).
		if err == nil && head != nil {
			m.readHead.Store(head)
		}
		if err == nil && last != nil {
			m.written.Store(uint64(last.commit))
			m.durable.Store(max(m.durable.Load(), uint64(last.commit)))
			invariants.Check(m.durable.Load() <= m.written.Load(), "durable %d above written %d", m.durable.Load(), m.written.Load())
			m.subs.durableMoved()
			if m.testAfterWake != nil {
				m.testAfterWake()
			}
		}
		for _, op := range ops {
			if op.done != nil {
				op.done <- err
			}
		}
		if err != nil {
			m.fail(err)
			// The queue's later ops must not be written after a gap.
			m.wqMu.Lock()
			m.wqClosed, m.wqAbandon = true, true
			m.wqCond.Broadcast()
			m.wqMu.Unlock()
		}
	}
}

// checkCommitOrder asserts that the commits of a written batch come in
// strictly increasing end LSN, above the last one written before, and
// that each commit's op holds its log record and the durable LSN naming
// it (one op: one Badger transaction), plus its group record when it was
// spilled (invariants builds only).
func checkCommitOrder(ops []*writeOp, prev wal.LSN) {
	for _, op := range ops {
		if op.commit == 0 {
			continue
		}
		invariants.Check(op.commit > prev, "commit %s written after %s", op.commit, prev)
		prev = op.commit
		var log, durable, group bool
		for _, kv := range op.sets {
			log = log || bytes.Equal(kv.k, logKey(op.commit))
			durable = durable || bytes.Equal(kv.k, keyDurable)
			group = group || bytes.Equal(kv.k, groupKey(op.commit))
		}
		invariants.Check((log || op.empty) && durable, "commit %s: op without its log record (%v) or durable LSN (%v)", op.commit, log, durable)
		// An empty commit (no followed row changed) carries the previous
		// head's version, which may be a spilled one: it writes no group.
		invariants.Check(op.empty || !op.version.Spilled || group, "spilled commit %s: op without its group record", op.commit)
	}
}

// writeOps writes ops in order, in as few Badger transactions as fit,
// never splitting an op across transactions.
func (m *Mirror) writeOps(ops []*writeOp) error {
	if err := m.db.CheckSpace(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	dels := make([][][]byte, len(ops))
	for i, op := range ops {
		for _, p := range op.delPrefixes {
			ks, err := m.keysUnder(p)
			if err != nil {
				return fmt.Errorf("write: list %x: %w", p, err)
			}
			dels[i] = append(dels[i], ks...)
		}
	}
	start := 0 // first op of the open transaction
	txn := m.bdb.NewTransaction(true)
	for i := 0; i < len(ops); i++ {
		if len(dels[i]) > maxDeletesPerTxn {
			// Deletions (of held changes) are idempotent: a long list is
			// written in chunks of its own, after the ops before it.
			if err := txn.Commit(); err != nil {
				return fmt.Errorf("write queued operations: %w", err)
			}
			if err := m.deleteKeys(dels[i]); err != nil {
				return err
			}
			dels[i] = nil
			start = i
			txn = m.bdb.NewTransaction(true)
		}
		err := applyOp(txn, ops[i], dels[i])
		if err == nil {
			continue
		}
		txn.Discard()
		if !errors.Is(err, badger.ErrTxnTooBig) || i == start {
			return fmt.Errorf("write %d records: %w", len(ops[i].sets)+len(dels[i]), err)
		}
		// Commit the ops before this one on their own, then retry it.
		txn = m.bdb.NewTransaction(true)
		for j := start; j < i; j++ {
			if err := applyOp(txn, ops[j], dels[j]); err != nil {
				txn.Discard()
				return fmt.Errorf("write queued operations: %w", err)
			}
		}
		if err := txn.Commit(); err != nil {
			return fmt.Errorf("write queued operations: %w", err)
		}
		start = i
		txn = m.bdb.NewTransaction(true)
		i--
	}
	defer txn.Discard()
	if err := txn.Commit(); err != nil {
		return fmt.Errorf("write %d queued operations: %w", len(ops)-start, err)
	}
	return nil
}

// maxDeletesPerTxn bounds the deletions one op writes atomically.
const maxDeletesPerTxn = 10_000

// deleteKeys deletes keys in transactions of maxDeletesPerTxn.
func (m *Mirror) deleteKeys(keys [][]byte) error {
	for len(keys) > 0 {
		n := min(len(keys), maxDeletesPerTxn)
		err := store.RetryBlocked(context.Background(), func() error {
			return m.bdb.Update(func(txn *badger.Txn) error {
				for _, k := range keys[:n] {
					if err := txn.Delete(k); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("delete %d keys: %w", n, err)
		}
		keys = keys[n:]
	}
	return nil
}

func applyOp(txn *badger.Txn, op *writeOp, dels [][]byte) error {
	for _, k := range dels {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	for _, kv := range op.sets {
		if err := txn.Set(kv.k, kv.v); err != nil {
			return err
		}
	}
	return nil
}

// keysUnder lists the keys under prefix.
func (m *Mirror) keysUnder(prefix []byte) ([][]byte, error) {
	var keys [][]byte
	err := m.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			keys = append(keys, it.Item().KeyCopy(nil))
		}
		return nil
	})
	return keys, err
}
