package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/heap"
)

// HeapPages keeps heap checkpoints (heap.PageStore) in the DB under
// PrefixHeap:
//
//	'h' uvarint(len(table)) table 'M' gen:u64         → manifest of generation gen
//	'h' uvarint(len(table)) table 'p' gen:u64 id:u32  → compressed page image
//
// (big-endian gen and id, so a table's images list in checkpoint order).
// One key per page image, never per row. A checkpoint writes the images
// in WriteBatches of bounded size (PutImages), then the manifest in its
// own transaction, and syncs (PutManifest); it removes nothing. Retain, called once the owner's record naming the new
// generation is durable, deletes the other manifests and every image the
// kept manifest does not name: a crash at any point leaves every manifest
// a record may name with all its images. (The key 'h' … 'm', one manifest
// per table, is the format before generations; Retain removes it.)
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

func heapManifestKey(table string, gen uint64) []byte {
	return binary.BigEndian.AppendUint64(heapTableKey(table, 'M'), gen)
}

// PutImages implements heap.PageStore: one WriteBatch of the images (a
// batch of a checkpoint, bounded by the heap: heap.CheckpointBatchBytes).
func (s *HeapPages) PutImages(table string, images []heap.PageImage) error {
	// A value-log reclaim (ReclaimValueLog) may refuse writes for a
	// moment; the images are set again whole.
	err := RetryBlocked(context.Background(), func() error {
		wb := s.db.bdb.NewWriteBatch()
		defer wb.Cancel()
		for _, p := range images {
			if err := wb.Set(heapPageKey(table, p.Key), p.Data); err != nil {
				return fmt.Errorf("write image: %w", err)
			}
		}
		return wb.Flush()
	})
	if err != nil {
		return fmt.Errorf("heap pages of %q: write images: %w", table, err)
	}
	return nil
}

// PutManifest implements heap.PageStore: the manifest in its own
// transaction, then a sync (of the images before it too).
func (s *HeapPages) PutManifest(table string, gen, lsn uint64, manifest []byte) error {
	if err := RetryBlocked(context.Background(), func() error {
		return s.db.bdb.Update(func(txn *badger.Txn) error {
			return txn.Set(heapManifestKey(table, gen), manifest)
		})
	}); err != nil {
		return fmt.Errorf("heap pages of %q at LSN %d: write manifest: %w", table, lsn, err)
	}
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("heap pages of %q at LSN %d: %w", table, lsn, err)
	}
	return nil
}

// GetManifest implements heap.PageStore.
func (s *HeapPages) GetManifest(table string, gen uint64) ([]byte, error) {
	if gen != 0 {
		return s.get(heapManifestKey(table, gen), func() error { return heap.ErrNoCheckpoint })
	}
	var out []byte
	prefix := heapTableKey(table, 'M')
	err := s.db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
		defer it.Close()
		// Reverse iteration seeks to the last key ≤ the seek key: past
		// every generation of the prefix.
		for it.Seek(append(bytes.Clone(prefix), 0xff)); it.Valid(); it.Next() {
			if len(it.Item().Key()) != len(prefix)+8 {
				continue
			}
			var err error
			out, err = it.Item().ValueCopy(nil)
			return err
		}
		return heap.ErrNoCheckpoint
	})
	return out, err
}

// GetPage implements heap.PageStore.
func (s *HeapPages) GetPage(table string, key heap.PageKey) ([]byte, error) {
	return s.get(heapPageKey(table, key), func() error {
		return fmt.Errorf("heap page %d of generation %d of %q: not in store", key.ID, key.Gen, table)
	})
}

// GetPages implements heap.PageBatchGetter: the images under keys, read
// in one transaction (a restore read each page in its own before: 3M rows'
// pages took most of 81 s under load, restart-2026-12-05.md).
func (s *HeapPages) GetPages(table string, keys []heap.PageKey) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := s.db.bdb.View(func(txn *badger.Txn) error {
		for i, k := range keys {
			item, err := txn.Get(heapPageKey(table, k))
			if errors.Is(err, badger.ErrKeyNotFound) {
				return fmt.Errorf("heap page %d of generation %d of %q: not in store", k.ID, k.Gen, table)
			}
			if err != nil {
				return err
			}
			if out[i], err = item.ValueCopy(nil); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
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

// Retain implements heap.PageStore: it deletes table's manifests other
// than gen's (and the pre-generation one) and the page images manifest
// gen does not name, found by a keys-only walk of the table's keys.
func (s *HeapPages) Retain(table string, gen uint64) error {
	m, err := s.GetManifest(table, gen)
	if err != nil {
		return fmt.Errorf("heap pages of %q: retain generation %d: %w", table, gen, err)
	}
	live, err := heap.ManifestKeys(m)
	if err != nil {
		return fmt.Errorf("heap pages of %q: retain generation %d: %w", table, gen, err)
	}
	keep := make(map[heap.PageKey]bool, len(live))
	for _, k := range live {
		keep[k] = true
	}
	pagePrefix, manPrefix := heapTableKey(table, 'p'), heapTableKey(table, 'M')
	stale := [][]byte{heapTableKey(table, 'm')}
	err = s.db.bdb.View(func(txn *badger.Txn) error {
		for _, prefix := range [][]byte{manPrefix, pagePrefix} {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			for it.Rewind(); it.Valid(); it.Next() {
				k := it.Item().KeyCopy(nil)
				rest := k[len(prefix):]
				switch {
				case len(rest) < 8:
				case bytes.Equal(prefix, manPrefix):
					if binary.BigEndian.Uint64(rest) != gen {
						stale = append(stale, k)
					}
				case len(rest) == 12:
					if !keep[heap.PageKey{Gen: binary.BigEndian.Uint64(rest), ID: binary.BigEndian.Uint32(rest[8:])}] {
						stale = append(stale, k)
					}
				}
			}
			it.Close()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("heap pages of %q: retain generation %d: %w", table, gen, err)
	}
	err = RetryBlocked(context.Background(), func() error {
		wb := s.db.bdb.NewWriteBatch()
		defer wb.Cancel()
		for _, k := range stale {
			if err := wb.Delete(k); err != nil {
				return err
			}
		}
		return wb.Flush()
	})
	if err != nil {
		return fmt.Errorf("heap pages of %q: retain generation %d: %w", table, gen, err)
	}
	return nil
}

// TopGeneration is the highest checkpoint generation of any table's
// manifest or page image in the store (0: none), read from the keys
// alone: a writer that restored no checkpoint numbers its first one above
// it, so it never overwrites an image a surviving manifest names.
func (s *HeapPages) TopGeneration() (uint64, error) {
	var top uint64
	prefix := []byte{PrefixHeap}
	err := s.db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()[1:]
			n, w := binary.Uvarint(k)
			if w <= 0 || uint64(len(k)-w) < n+1+8 {
				continue
			}
			rest := k[w+int(n):]
			if rest[0] == 'M' || rest[0] == 'p' {
				top = max(top, binary.BigEndian.Uint64(rest[1:]))
			}
		}
		return nil
	})
	return top, err
}
