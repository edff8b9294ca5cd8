package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/addr"
)

// Version returns Badger's latest commit timestamp. A garbage collector
// reads it before it starts marking and passes it to Sweep: every node
// written after that moment survives the sweep, whatever the mark found.
func (db *DB) Version() uint64 { return db.bdb.MaxVersion() }

// SweepStats reports one Sweep.
type SweepStats struct {
	Scanned int64 // node keys visited
	Kept    int64 // live, or written after asOf
	Deleted int64
}

// Sweep deletes every stored node that live reports dead and whose latest
// write is at or before asOf (a DB.Version taken before marking began).
// Because Put always rewrites, a node re-referenced while the mark ran has a
// newer version and is kept even if the mark missed it; a node Put while
// the sweep itself runs is kept too (skipped if Put before the sweep reaches
// it, written again after the deletes otherwise). This holds for Puts
// through this NodeStore: one NodeStore per DB writes nodes. Keys are
// visited without reading values. Space in the value log comes back only
// through DB.RunValueLogGC afterwards. Swept nodes leave the cache.
func (s *NodeStore[N]) Sweep(ctx context.Context, asOf uint64, live func(addr.Hash) bool) (SweepStats, error) {
	var st SweepStats
	s.mu.Lock()
	if s.swept != nil {
		s.mu.Unlock()
		return st, errors.New("sweep nodes: another sweep is running")
	}
	s.swept = map[addr.Hash]pendingNode[N]{}
	s.mu.Unlock()
	stopRecording := func() map[addr.Hash]pendingNode[N] {
		s.mu.Lock()
		defer s.mu.Unlock()
		m := s.swept
		s.swept = nil
		return m
	}
	deleted := map[addr.Hash]struct{}{}
	wb := s.db.bdb.NewWriteBatch()
	defer wb.Cancel()
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
			if item.Version() > asOf || live(h) || s.putDuringSweep(h) {
				st.Kept++
				continue
			}
			if err := wb.Delete(item.KeyCopy(nil)); err != nil {
				return err
			}
			if s.cache != nil {
				s.cache.remove(h)
			}
			deleted[h] = struct{}{}
			st.Deleted++
		}
		return nil
	})
	if err == nil {
		err = wb.Flush()
	}
	// Put back what was Put after its delete was decided; on error too,
	// since some deletes may have been committed.
	for h, p := range stopRecording() {
		if _, ok := deleted[h]; ok {
			if perr := s.Put(ctx, h, p.data, p.n); perr != nil && err == nil {
				err = perr
			}
		}
	}
	if ferr := s.Flush(ctx); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		return st, fmt.Errorf("sweep nodes (%d scanned, %d deleted): %w", st.Scanned, st.Deleted, err)
	}
	return st, nil
}

func (s *NodeStore[N]) putDuringSweep(h addr.Hash) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.swept[h]
	return ok
}
