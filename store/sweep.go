package store

import (
	"context"
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
// newer version and is kept even if the mark missed it. Keys are visited
// without reading values. Space in the value log comes back only through
// DB.RunValueLogGC afterwards. Swept nodes are dropped from the cache.
//
// Sweep must not run concurrently with another Sweep on the same DB.
func (s *NodeStore[N]) Sweep(ctx context.Context, asOf uint64, live func(addr.Hash) bool) (SweepStats, error) {
	var st SweepStats
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
			if item.Version() > asOf || live(h) {
				st.Kept++
				continue
			}
			if err := wb.Delete(item.KeyCopy(nil)); err != nil {
				return err
			}
			if s.cache != nil {
				s.cache.remove(h)
			}
			st.Deleted++
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("sweep nodes after %d scanned: %w", st.Scanned, err)
	}
	if err := wb.Flush(); err != nil {
		return st, fmt.Errorf("sweep nodes: delete %d: %w", st.Deleted, err)
	}
	return st, nil
}
