package mirror

import (
	"bytes"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/store"
)

// PartRootNames returns the names of the partitioned tables the mirror
// has a record of (partroot.go), sorted: the daemon's catalog poll
// checks each is still under a followed root (a middle level detached
// or dropped is recorded as no longer followed). A record is kept per
// change of a table's columns or leaves, so there are few.
func (m *Mirror) PartRootNames() ([]string, error) {
	var out []string
	prefix := []byte{store.PrefixCatalog, subPartRoot}
	err := m.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: false})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			k := it.Item().Key()[len(prefix):]
			i := bytes.IndexByte(k, 0)
			if i < 0 {
				continue
			}
			if name := string(k[:i]); len(out) == 0 || out[len(out)-1] != name {
				out = append(out, name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("partitioned roots: %w", err)
	}
	return out, nil
}
