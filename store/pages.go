package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/heap"
)

// HeapPages keeps heap checkpoints (heap.PageStore) in the DB under
// PrefixHeap:
//
//	'h' uvarint(len(table)) table 'm'                 → manifest
//	'h' uvarint(len(table)) table 'p' gen:u64 id:u32  → compressed page image
//
// (big-endian gen and id, so a table's images list in checkpoint order).
// One key per page image, never per row. PutPages writes the images in a
// WriteBatch, then the manifest in its own transaction, syncs, and only
// then deletes the superseded images: a crash at any point leaves a
// manifest whose images are all present. Images orphaned by a crash after
// the manifest but before the deletes are removed by Prune.
type HeapPages struct {
	db *DB
}

// HeapPages returns the DB's heap checkpoint store.
func (db *DB) HeapPages() *HeapPages { return &HeapPages{db: db} }

var _ heap.PageStore = (*HeapPages)(nil)

func heapTableKey(table string, kind byte) []byte {
	k := []byte{PrefixHeap}
	k = binary.AppendUvarint(k, uint64(len(table)))
	k = append(k, table...)
	return append(k, kind)
}

func heapPageKey(table string, pk heap.PageKey) []byte {
	k := heapTableKey(table, 'p')
	k = binary.BigEndian.AppendUint64(k, pk.Gen)
	return binary.BigEndian.AppendUint32(k, pk.ID)
}

// PutPages implements heap.PageStore.
func (s *HeapPages) PutPages(table string, lsn uint64, b heap.PageBatch) error {
	bdb := s.db.bdb
	wb := bdb.NewWriteBatch()
	for _, p := range b.Pages {
		if err := wb.Set(heapPageKey(table, p.Key), p.Data); err != nil {
			wb.Cancel()
			return fmt.Errorf("heap pages of %q at LSN %d: write image: %w", table, lsn, err)
		}
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("heap pages of %q at LSN %d: write images: %w", table, lsn, err)
	}
	if err := bdb.Update(func(txn *badger.Txn) error {
		return txn.Set(heapTableKey(table, 'm'), b.Manifest)
	}); err != nil {
		return fmt.Errorf("heap pages of %q at LSN %d: write manifest: %w", table, lsn, err)
	}
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("heap pages of %q at LSN %d: %w", table, lsn, err)
	}
	if len(b.Drop) == 0 {
		return nil
	}
	del := bdb.NewWriteBatch()
	for _, k := range b.Drop {
		if err := del.Delete(heapPageKey(table, k)); err != nil {
			del.Cancel()
			return fmt.Errorf("heap pages of %q: drop superseded image: %w", table, err)
		}
	}
	if err := del.Flush(); err != nil {
		return fmt.Errorf("heap pages of %q: drop superseded images: %w", table, err)
	}
	return nil
}

// GetManifest implements heap.PageStore.
func (s *HeapPages) GetManifest(table string) ([]byte, error) {
	return s.get(heapTableKey(table, 'm'), func() error { return heap.ErrNoCheckpoint })
}

// GetPage implements heap.PageStore.
func (s *HeapPages) GetPage(table string, key heap.PageKey) ([]byte, error) {
	return s.get(heapPageKey(table, key), func() error {
		return fmt.Errorf("heap page %d of generation %d of %q: not in store", key.ID, key.Gen, table)
	})
}

func (s *HeapPages) get(key []byte, missing func() error) ([]byte, error) {
	var out []byte
	err := s.db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return missing()
		}
		if err != nil {
			return err
		}
		out, err = item.ValueCopy(nil)
		return err
	})
	return out, err
}

// Prune deletes table's page images the current manifest does not name
// (left by a crash between a checkpoint's manifest and its deletes) and
// returns how many.
func (s *HeapPages) Prune(table string) (int, error) {
	m, err := s.GetManifest(table)
	if err != nil {
		return 0, err
	}
	live, err := heap.ManifestKeys(m)
	if err != nil {
		return 0, fmt.Errorf("prune heap pages of %q: %w", table, err)
	}
	keep := make(map[heap.PageKey]bool, len(live))
	for _, k := range live {
		keep[k] = true
	}
	prefix := heapTableKey(table, 'p')
	var stale [][]byte
	err = s.db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			rest := k[len(prefix):]
			if len(rest) != 12 {
				continue
			}
			pk := heap.PageKey{Gen: binary.BigEndian.Uint64(rest), ID: binary.BigEndian.Uint32(rest[8:])}
			if !keep[pk] {
				stale = append(stale, k)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune heap pages of %q: %w", table, err)
	}
	wb := s.db.bdb.NewWriteBatch()
	for _, k := range stale {
		if err := wb.Delete(k); err != nil {
			wb.Cancel()
			return 0, fmt.Errorf("prune heap pages of %q: %w", table, err)
		}
	}
	if err := wb.Flush(); err != nil {
		return 0, fmt.Errorf("prune heap pages of %q: %w", table, err)
	}
	return len(stale), nil
}
