package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/addr"
)

// Version returns the latest commit timestamp of Badger: every write
// committed before the call is at or below it, every later one above. A
// garbage collector takes it (after NodeStore.BeginSweep) before it starts
// marking and passes it to Sweep. (Read from a read transaction's
// timestamp: badger.DB.MaxVersion reads a memtable field without its
// lock.)
func (db *DB) Version() uint64 {
	txn := db.bdb.NewTransaction(false)
	defer txn.Discard()
	return txn.ReadTs()
}

// SweepStats reports one Sweep.
type SweepStats struct {
	Scanned int64 // node keys visited
	Kept    int64 // live, or written after asOf
	Deleted int64
}

// BeginSweep starts recording the address of every Put for the next
// Sweep, which never deletes a recorded node. Call it before flushing and
// taking the sweep version (DB.Version): a node Put after it may be
// written while the sweep runs, after the sweep's snapshot saw an older
// copy of the same content, and only the record keeps the sweep from
// deleting it then.
func (s *NodeStore[N]) BeginSweep() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.swept != nil {
		return errors.New("sweep nodes: another sweep is running")
	}
	s.swept = map[addr.Hash]struct{}{}
	return nil
}

// EndSweep stops recording Puts (Sweep does it when it returns); safe to
// call more than once.
func (s *NodeStore[N]) EndSweep() {
	s.mu.Lock()
	s.swept = nil
	s.mu.Unlock()
}

// sweepChunk bounds the deletes committed at once (under the store's
// lock, so Puts wait for them).
const sweepChunk = 4096

// Sweep deletes every stored node that live reports dead, whose latest
// write is at or before asOf (a DB.Version taken after BeginSweep, before
// marking began) and that was not Put since BeginSweep (Sweep calls
// BeginSweep itself when it was not called; Puts before that are then not
// covered). Put always rewrites, so a node re-referenced while the mark
// ran was written again. Deletes are committed in chunks while the
// store's lock is held, after dropping every address Put since
// BeginSweep: a Put after a chunk's commit is written after its delete
// and survives. This holds for Puts through this NodeStore: one NodeStore
// per DB writes nodes. Keys are visited without reading values. Space in
// the value log comes back only through DB.RunValueLogGC afterwards.
// Swept nodes leave the cache.
func (s *NodeStore[N]) Sweep(ctx context.Context, asOf uint64, live func(addr.Hash) bool) (SweepStats, error) {
	var st SweepStats
	s.mu.Lock()
	if s.swept == nil {
		s.swept = map[addr.Hash]struct{}{}
	}
	s.mu.Unlock()
	defer s.EndSweep()
	var chunk []addr.Hash
	commit := func() error {
		if len(chunk) == 0 {
			return nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		var keys [][]byte
		for _, h := range chunk {
			if _, put := s.swept[h]; put {
				st.Kept++
				continue
			}
			keys = append(keys, append([]byte{PrefixNode}, h[:]...))
			if s.cache != nil {
				s.cache.remove(h)
			}
		}
		chunk = chunk[:0]
		// Badger may refuse writes for a moment (value-log GC); deletes
		// are idempotent, so a fresh batch retries them.
		err := RetryBlocked(ctx, func() error {
			wb := s.db.bdb.NewWriteBatch()
			defer wb.Cancel()
			for _, k := range keys {
				if err := wb.Delete(k); err != nil {
					return err
				}
			}
			return wb.Flush()
		})
		if err == nil {
			st.Deleted += int64(len(keys))
		}
		return err
	}
	err := s.db.bdb.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte{PrefixNode}
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if st.Scanned%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			st.Scanned++
			item := it.Item()
			key := item.Key()
			if len(key) != 1+addr.Size {
				return fmt.Errorf("node key %x has %d bytes, want %d", key, len(key), 1+addr.Size)
			}
			var h addr.Hash
			copy(h[:], key[1:])
			if item.Version() > asOf || live(h) {
				st.Kept++
				continue
			}
			if chunk = append(chunk, h); len(chunk) >= sweepChunk {
				if err := commit(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil {
		err = commit()
	}
	if err != nil {
		return st, fmt.Errorf("sweep nodes (%d scanned, %d deleted): %w", st.Scanned, st.Deleted, err)
	}
	return st, nil
}
