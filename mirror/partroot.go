package mirror

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// Partitioned roots (issue 21 item 4). A partitioned table followed as
// its leaves is not a table of the mirror: its rows are its leaves'. So
// that `FROM root` can be answered as PostgreSQL does — the union of the
// leaves' rows in the root's column order — the mirror keeps, per
// followed root, its columns and leaf set (wal.PartRoot) from the
// version the daemon's catalog poll read them at, in records of their
// own ('c' 'p' name 0x00 fromLSN). A data directory written before has
// none: FROM root is refused there until the first poll records one, and
// AS OF a version before the first record is refused too.

const subPartRoot = 'p' // 'c' 'p' name 0x00 fromLSN → PartRoot from that version on

func partRootPrefix(name string) []byte {
	k := append([]byte{store.PrefixCatalog, subPartRoot}, name...)
	return append(k, 0)
}

func partRootKey(name string, from wal.LSN) []byte {
	return binary.BigEndian.AppendUint64(partRootPrefix(name), uint64(from))
}

func encodePartRoot(p *wal.PartRoot) []byte {
	e := enc{}
	e.byte(recVersion)
	e.str(p.Name)
	e.uvarint(uint64(len(p.Columns)))
	for _, c := range p.Columns {
		e.str(c.Name)
		e.uvarint(uint64(c.TypeOID))
		e.varint(int64(c.TypeMod))
		encodeCollation(&e, c.Collation)
	}
	e.uvarint(uint64(len(p.Leaves)))
	for i, l := range p.Leaves {
		e.str(l)
		e.byte(p.LeafKinds[i])
	}
	return e.b
}

func decodePartRoot(b []byte) (*wal.PartRoot, error) {
	d := dec{b: b}
	if v := d.byte(); v != recVersion && d.err == nil {
		return nil, fmt.Errorf("%w: partitioned root record version %d", errCorrupt, v)
	}
	p := &wal.PartRoot{Name: d.str()}
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		c := wal.Column{Name: d.str(), TypeOID: uint32(d.uvarint()), TypeMod: int32(d.varint())}
		c.Collation = decodeCollation(&d)
		p.Columns = append(p.Columns, c)
	}
	n = d.count()
	for i := 0; i < n && d.err == nil; i++ {
		p.Leaves = append(p.Leaves, d.str())
		p.LeafKinds = append(p.LeafKinds, d.byte())
	}
	return p, d.done("partitioned root")
}

// PartRootAt returns the record of the partitioned root name holding at
// the version ending at lsn (nil when none was recorded at or before it).
func (m *Mirror) PartRootAt(name string, lsn wal.LSN) (*wal.PartRoot, error) {
	var p *wal.PartRoot
	err := m.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: partRootPrefix(name)})
		defer it.Close()
		it.Seek(partRootKey(name, lsn))
		if !it.Valid() {
			return nil
		}
		return it.Item().Value(func(b []byte) (err error) {
			p, err = decodePartRoot(slices.Clone(b))
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("partitioned root %s at %s: %w", name, lsn, err)
	}
	return p, nil
}

// UpdatePartRoots records the partitioned roots as the catalog describes
// them now (the daemon's catalog poll): a root whose columns or leaves
// differ from its latest record gets a new one, holding from the current
// head on. It reports whether anything changed.
func (m *Mirror) UpdatePartRoots(ctx context.Context, roots []*wal.PartRoot) (bool, error) {
	changed := false
	for _, p := range roots {
		old, err := m.PartRootAt(p.Name, wal.LSN(^uint64(0)))
		if err != nil {
			return changed, err
		}
		if old.Equal(p) {
			continue
		}
		m.mu.Lock()
		if m.err != nil {
			err := m.err
			m.mu.Unlock()
			return changed, err
		}
		end := max(m.lastGroup, m.head.EndLSN)
		op := &writeOp{sync: true}
		op.set(partRootKey(p.Name, end), encodePartRoot(p))
		err = m.enqueueWait(op)
		if err == nil {
			m.factsGen.Add(1)
		}
		m.mu.Unlock()
		if err != nil {
			return changed, fmt.Errorf("record partitioned root %s: %w", p.Name, err)
		}
		changed = true
		m.log.Info("partitioned root recorded", "root", p.Name, "leaves", p.Leaves, "from", end)
	}
	return changed, nil
}
