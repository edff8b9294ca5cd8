// A held copy survives a crash (issue 21): TableCopied records a copy
// that has to wait for the stream ('c' 'k' name 0x00 → its root, LSN,
// row count, start time and relation), and Open holds it again, so the
// next start lands it where the stream reaches its LSN instead of
// copying the table again under a fresh snapshot.
//
// Forgetting it made a copy killed before its landing cost the table
// every commit up to the next copy's snapshot: those commits fell inside
// the resync window (reads refused). A start killed between recording
// the stream's start and the stream's first transaction (the initial
// copy of a table an earlier killed start had copied holds its copy
// until then) left the table with no per-commit history before the next
// start's copy, and each start killed before the stream caught up with
// its own copy did it again (TestCrashKill9 on PostgreSQL 17: "only 0
// versions touched the counter").
//
// The copy's nodes are in the node store before the record is written
// (TableCopied flushes them), and GroupRoots lists the recorded roots,
// so neither a GC nor the remote upload drops what a record names. The
// record is deleted in the landing's Badger transaction and replaced by
// a newer copy of the table. A mirror with no stream position yet
// (Durable 0: the initial copy did not finish) drops the records at
// Open: the next start makes a new slot and copies every table again.

package mirror

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// subHeldCopy keys the held copies' records under PrefixCatalog.
const subHeldCopy = 'k' // 'c' 'k' name 0x00 → heldCopy

func heldCopyPrefix() []byte { return []byte{store.PrefixCatalog, subHeldCopy} }

// heldCopyKey is name's record key; the 0 ends the name, so the key is
// also a prefix matching no other table's (writeOp.delPrefixes).
func heldCopyKey(name string) []byte {
	return append(append(heldCopyPrefix(), name...), 0)
}

func (hc *heldCopy) encode() []byte {
	e := enc{}
	e.byte(recVersion)
	e.root(hc.root)
	e.uvarint(uint64(hc.at))
	e.varint(hc.rows)
	e.varint(hc.started.UnixNano())
	encodeRelation(&e, hc.rel)
	return e.b
}

func decodeHeldCopy(name string, v []byte) (*heldCopy, error) {
	d := dec{b: v}
	if ver := d.byte(); ver != recVersion && d.err == nil {
		return nil, fmt.Errorf("%w: held copy record version %d", errCorrupt, ver)
	}
	hc := &heldCopy{name: name}
	hc.root = d.root()
	hc.at = wal.LSN(d.uvarint())
	hc.rows = d.varint()
	hc.started = time.Unix(0, d.varint())
	hc.rel = decodeRelation(&d)
	if err := d.done("held copy of " + name); err != nil {
		return nil, err
	}
	return hc, nil
}

// recordHeld writes hc's record durably: a crash from here on leaves the
// copy held at the next Open. The caller holds mu.
func (m *Mirror) recordHeld(hc *heldCopy) error {
	op := &writeOp{sync: true}
	op.set(heldCopyKey(hc.name), hc.encode())
	if err := m.enqueueWait(op); err != nil {
		return fmt.Errorf("record the held copy of %s: %w", hc.name, err)
	}
	return nil
}

// loadHeldCopies holds again the copies recorded before a crash or stop
// (load, after the tables): those of a table in state resync_needed when
// the mirror has a stream position (durable). Other records are stale:
// deleted, unless the mirror is read-only.
func (m *Mirror) loadHeldCopies(ctx context.Context, durable wal.LSN) error {
	var stale [][]byte
	err := m.bdb.View(func(txn *badger.Txn) error {
		return eachHeldCopy(txn, func(k []byte, hc *heldCopy) error {
			t := m.tables[hc.name]
			if durable == 0 || t == nil || t.rec.State != StateResyncNeeded {
				stale = append(stale, slices.Clone(k))
				return nil
			}
			if m.landing == nil {
				m.landing = map[string]*heldCopy{}
			}
			m.landing[hc.name] = hc
			m.log.Info("a copy held before the last stop waits for the stream to reach its snapshot before it lands",
				"table", hc.name, "copied_at", hc.at, "rows", hc.rows)
			return nil
		})
	})
	if err != nil || len(stale) == 0 || m.readOnly() {
		return err
	}
	return m.update(func(txn *badger.Txn) error {
		for _, k := range stale {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// eachHeldCopy calls fn with every held copy's record key and copy.
func eachHeldCopy(txn *badger.Txn, fn func(key []byte, hc *heldCopy) error) error {
	prefix := heldCopyPrefix()
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		if len(k) < len(prefix)+2 || k[len(k)-1] != 0 {
			return fmt.Errorf("%w: held copy key %x", errCorrupt, k)
		}
		var hc *heldCopy
		if err := it.Item().Value(func(v []byte) (err error) {
			hc, err = decodeHeldCopy(string(k[len(prefix):len(k)-1]), v)
			return err
		}); err != nil {
			return err
		}
		if err := fn(k, hc); err != nil {
			return err
		}
	}
	return nil
}
