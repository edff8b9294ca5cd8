package remote

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/s2"

	"github.com/sidecar-dev/sidecar/store"
)

// A commit-log segment carries the mirror's records (everything in the
// data directory but nodes and derived structures) written between two
// store versions: for each key changed in (since, until], its newest state
// at until, a value or a deletion. Applying every segment in order to an
// empty directory gives the records at the last segment's until: the
// per-commit log, group records, the durable LSN and cluster identity,
// tags and branches. The nodes they name are in packs.
//
//	"SCSEG01\n" ‖ records ‖ CRC-32C of the records u32, s2-compressed as a whole
//	record: kind byte (1 set, 2 delete) ‖ uvarint key length ‖ key ‖ [uvarint value length ‖ value]

const segMagic = "SCSEG01\n"

// SegmentPrefixes are the key prefixes segments carry: the catalog, meta,
// refs and the mirror's log and group records. Nodes travel in packs; heap
// pages and index checkpoints are rebuilt from the trees.
var SegmentPrefixes = []byte{store.PrefixCatalog, store.PrefixMeta, store.PrefixRef, store.PrefixSpool}

const (
	recSet    = 1
	recDelete = 2
)

var errBadSegment = errors.New("malformed commit-log segment")

// readSegment reads the records changed after since from one consistent
// snapshot of bdb and returns the encoded segment (nil when nothing
// changed), the snapshot's version and how many records it holds.
func readSegment(bdb *badger.DB, since uint64) (seg []byte, until uint64, n int, err error) {
	txn := bdb.NewTransaction(false)
	defer txn.Discard()
	until = txn.ReadTs()
	var buf []byte
	buf = append(buf, segMagic...)
	for _, p := range SegmentPrefixes {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{p}, AllVersions: true, SinceTs: since, PrefetchValues: false})
		var last []byte
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			if last != nil && bytes.Equal(item.Key(), last) {
				continue // an older version of a key already recorded
			}
			last = item.KeyCopy(last[:0])
			if item.IsDeletedOrExpired() {
				buf = append(buf, recDelete)
				buf = binary.AppendUvarint(buf, uint64(len(last)))
				buf = append(buf, last...)
				n++
				continue
			}
			buf = append(buf, recSet)
			buf = binary.AppendUvarint(buf, uint64(len(last)))
			buf = append(buf, last...)
			if err := item.Value(func(v []byte) error {
				buf = binary.AppendUvarint(buf, uint64(len(v)))
				buf = append(buf, v...)
				return nil
			}); err != nil {
				it.Close()
				return nil, 0, 0, fmt.Errorf("read record %q: %w", last, err)
			}
			n++
		}
		it.Close()
	}
	if n == 0 {
		return nil, until, 0, nil
	}
	buf = binary.BigEndian.AppendUint32(buf, crc32c(buf[len(segMagic):]))
	return s2.EncodeBetter(nil, buf), until, n, nil
}

// applySegment writes a segment's records into bdb (restore).
func applySegment(bdb *badger.DB, seg []byte) (int, error) {
	raw, err := s2.Decode(nil, seg)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errBadSegment, err)
	}
	if len(raw) < len(segMagic)+4 || string(raw[:len(segMagic)]) != segMagic {
		return 0, fmt.Errorf("%w: no header", errBadSegment)
	}
	body := raw[len(segMagic) : len(raw)-4]
	if crc32c(body) != binary.BigEndian.Uint32(raw[len(raw)-4:]) {
		return 0, fmt.Errorf("%w: checksum mismatch", errBadSegment)
	}
	wb := bdb.NewWriteBatch()
	defer wb.Cancel()
	n := 0
	for len(body) > 0 {
		kind := body[0]
		body = body[1:]
		key, rest, err := lenPrefixed(body)
		if err != nil {
			return 0, err
		}
		body = rest
		switch kind {
		case recDelete:
			err = wb.Delete(bytes.Clone(key))
		case recSet:
			var val []byte
			if val, body, err = lenPrefixed(body); err != nil {
				return 0, err
			}
			err = wb.Set(bytes.Clone(key), bytes.Clone(val))
		default:
			return 0, fmt.Errorf("%w: record kind %d", errBadSegment, kind)
		}
		if err != nil {
			return 0, fmt.Errorf("restore record %q: %w", key, err)
		}
		n++
	}
	if err := wb.Flush(); err != nil {
		return 0, fmt.Errorf("restore records: %w", err)
	}
	return n, nil
}

func lenPrefixed(b []byte) ([]byte, []byte, error) {
	l, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < l {
		return nil, nil, fmt.Errorf("%w: truncated record", errBadSegment)
	}
	return b[k : k+int(l)], b[k+int(l):], nil
}

var storeIdentityKey = []byte{store.PrefixUpload, 'i'}

// StoreIdentity returns the identity of db's version space, made (16
// random bytes, hex) and kept under PrefixUpload on first use. It is never
// uploaded, so a data directory restored from the remote gets a new one:
// segment versions (Badger's commit timestamps) of one store are
// meaningless in another.
func StoreIdentity(db *store.DB) (string, error) {
	var id string
	err := db.Badger().Update(func(txn *badger.Txn) error {
		item, err := txn.Get(storeIdentityKey)
		if err == nil {
			return item.Value(func(v []byte) error { id = string(v); return nil })
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		id = hex.EncodeToString(b[:])
		return txn.Set(storeIdentityKey, []byte(id))
	})
	if err != nil {
		return "", fmt.Errorf("store identity: %w", err)
	}
	return id, nil
}
