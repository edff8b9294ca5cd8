package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// TestOpenAfterCrashLeftEmptyVlog: a kill -9 between Badger creating the
// value-log file it writes next (it makes one on every Open) and sizing
// it leaves an empty file; Open must still succeed and keep the data.
// Without removeEmptyVlogs the first Open fails with "Open existing file
// ... Create a new file" (TestCrashKill9 in cmd/sidecar met it).
func TestOpenAfterCrashLeftEmptyVlog(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Badger().Update(func(txn *badger.Txn) error { return txn.Set([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	vlogs, err := filepath.Glob(filepath.Join(dir, "*.vlog"))
	if err != nil || len(vlogs) == 0 {
		t.Fatalf("no value log in %s: %v", dir, err)
	}
	slices.Sort(vlogs)
	var last int
	if _, err := fmt.Sscanf(filepath.Base(vlogs[len(vlogs)-1]), "%06d.vlog", &last); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%06d.vlog", last+1)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("open after a crash left an empty value log: %v", err)
	}
	defer db.Close()
	err = db.Badger().View(func(txn *badger.Txn) error {
		it, err := txn.Get([]byte("k"))
		if err != nil {
			return err
		}
		return it.Value(func(v []byte) error {
			if string(v) != "v" {
				return fmt.Errorf("k = %q", v)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenAfterCrashLeftEmptyMemtable: the same for a memtable log: a kill
// -9 right after Badger created the next .mem file left it empty, and the
// next Open failed with "while opening memtables err: while opening fid: 8
// err: Create a new file" (TestCrashKill9 met it, 1 of 2 runs under load).
func TestOpenAfterCrashLeftEmptyMemtable(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Badger().Update(func(txn *badger.Txn) error { return txn.Set([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00008.mem"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("open after a crash left an empty memtable log: %v", err)
	}
	defer db.Close()
	if err := db.Badger().View(func(txn *badger.Txn) error { _, err := txn.Get([]byte("k")); return err }); err != nil {
		t.Fatal(err)
	}
}
