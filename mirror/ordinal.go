package mirror

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// The commit index numbers commits: 's' 'n' ordinal → end LSN, written in
// the same Badger transaction as the commit's log record. HEAD~N is then
// one lookup (ordinal of HEAD minus N) instead of a walk over N log keys:
// at a million versions the walk costs about a second.

const subOrd = 'n' // 's' 'n' ordinal → end LSN

func ordKey(ord uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{store.PrefixSpool, subOrd}, ord)
}

func ordPrefix() []byte { return []byte{store.PrefixSpool, subOrd} }

func decodeOrdEntry(k, v []byte) (uint64, wal.LSN, error) {
	if len(k) != 10 || len(v) != 8 {
		return 0, 0, fmt.Errorf("%w: commit index entry %x = %x", errCorrupt, k, v)
	}
	return binary.BigEndian.Uint64(k[2:]), wal.LSN(binary.BigEndian.Uint64(v)), nil
}

// loadOrdinal sets m.ordinal from the last index entry, which must name
// the head commit. A data directory written before the index existed has
// none: the index stays off (m.noOrd) and HEAD~N walks the log.
func (m *Mirror) loadOrdinal(txn *badger.Txn) error {
	it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: ordPrefix()})
	defer it.Close()
	it.Seek(ordKey(^uint64(0)))
	if !it.Valid() {
		m.noOrd = m.head.EndLSN != 0
		return nil
	}
	var ord uint64
	var end wal.LSN
	err := it.Item().Value(func(v []byte) (err error) {
		ord, end, err = decodeOrdEntry(it.Item().Key(), v)
		return err
	})
	if err != nil {
		return err
	}
	if end != m.head.EndLSN {
		return fmt.Errorf("%w: commit index ends at %s, the log at %s", errCorrupt, end, m.head.EndLSN)
	}
	m.ordinal = ord
	return nil
}

// ErrNoIndex is returned by NthBefore for a data directory written
// before the commit index existed.
var ErrNoIndex = errors.New("no commit index")

// NthBefore returns the end LSN of the commit n commits before the one
// ending at from (a written commit), and how many steps back it is: n,
// or fewer when retention expired the older ones (then the oldest
// retained commit is returned).
func (m *Mirror) NthBefore(from wal.LSN, n int) (wal.LSN, int, error) {
	if m.noOrd {
		return 0, 0, ErrNoIndex
	}
	horizon, _ := m.Horizon()
	var lsn wal.LSN
	back := 0
	err := m.bdb.View(func(txn *badger.Txn) error {
		// The ordinal of from: the newest entry at or before it (commits
		// written after from was read are few).
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: ordPrefix()})
		defer it.Close()
		var fromOrd uint64
		for it.Seek(ordKey(^uint64(0))); ; it.Next() {
			if !it.Valid() {
				return fmt.Errorf("commit %s: %w", from, ErrNoVersion)
			}
			var ord uint64
			var end wal.LSN
			if err := it.Item().Value(func(v []byte) (err error) {
				ord, end, err = decodeOrdEntry(it.Item().Key(), v)
				return err
			}); err != nil {
				return err
			}
			if end <= from {
				if end != from {
					return fmt.Errorf("commit %s: not a commit of the index (nearest %s)", from, end)
				}
				fromOrd = ord
				break
			}
		}
		// The oldest retained ordinal bounds how far back HEAD~N goes.
		lo, err := oldestOrdinal(txn, horizon)
		if err != nil {
			return err
		}
		target := uint64(0)
		if uint64(n) <= fromOrd {
			target = fromOrd - uint64(n)
		}
		if target < lo {
			target = lo
		}
		item, err := txn.Get(ordKey(target))
		if err != nil {
			return fmt.Errorf("commit #%d: %w", target, err)
		}
		return item.Value(func(v []byte) (err error) {
			_, lsn, err = decodeOrdEntry(item.Key(), v)
			back = int(fromOrd - target)
			return err
		})
	})
	if err != nil {
		return 0, 0, fmt.Errorf("%d commits before %s: %w", n, from, err)
	}
	return lsn, back, nil
}

// oldestOrdinal returns the ordinal of the first indexed commit at or
// after horizon (entries below it are deleted by Expire, or left by an
// interrupted one: skipped here).
func oldestOrdinal(txn *badger.Txn, horizon wal.LSN) (uint64, error) {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: ordPrefix()})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		var ord uint64
		var end wal.LSN
		if err := it.Item().Value(func(v []byte) (err error) {
			ord, end, err = decodeOrdEntry(it.Item().Key(), v)
			return err
		}); err != nil {
			return 0, err
		}
		if end >= horizon {
			return ord, nil
		}
	}
	return 0, fmt.Errorf("no indexed commit at or after %s", horizon)
}

// expiredOrdinals lists the index keys of commits before horizon.
func expiredOrdinals(txn *badger.Txn, horizon wal.LSN) ([][]byte, error) {
	var keys [][]byte
	it := txn.NewIterator(badger.IteratorOptions{Prefix: ordPrefix()})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		var end wal.LSN
		if err := it.Item().Value(func(v []byte) (err error) {
			_, end, err = decodeOrdEntry(it.Item().Key(), v)
			return err
		}); err != nil {
			return nil, err
		}
		if end >= horizon {
			break
		}
		keys = append(keys, it.Item().KeyCopy(nil))
	}
	return keys, nil
}
