package powercut

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/store"
)

func put(t *testing.T, db *store.DB, from, to int) {
	t.Helper()
	err := db.Badger().Update(func(txn *badger.Txn) error {
		for i := from; i < to; i++ {
			// Values past the value threshold go to the value log.
			if err := txn.Set(fmt.Appendf(nil, "k%05d", i), make([]byte, 2000)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, dir string) int {
	t.Helper()
	db, err := store.Open(store.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	err = db.Badger().View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := it.Item().Value(func(v []byte) error {
				if len(v) != 2000 {
					return errors.New("short value")
				}
				return nil
			}); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRestoreLosesWhatFollowedTheLastSync: writes synced through the
// Syncer survive a restore; writes after the last sync are gone, even
// though the DB was closed cleanly (which made them durable on disk) —
// the image is what a power cut right after the sync leaves. Small
// memtables and value logs make Badger flush and rotate between syncs.
func TestRestoreLosesWhatFollowedTheLastSync(t *testing.T) {
	base := t.TempDir()
	dir, image := filepath.Join(base, "data"), filepath.Join(base, "image")
	s := New(image, false)
	db, err := store.Open(store.Options{Dir: dir, Syncer: s, MemTableSize: 1 << 20, ValueLogFileSize: 1 << 20, ValueThreshold: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		put(t, db, i*500, (i+1)*500)
		if err := db.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	put(t, db, 5000, 6000) // never synced
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Syncs() < 10 {
		t.Fatalf("%d images recorded, want ≥ 10", s.Syncs())
	}
	if n := count(t, dir); n != 6000 {
		t.Fatalf("before the cut: %d keys, want 6000", n)
	}
	files, err := Restore(dir, image)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, dir); n != 5000 {
		t.Fatalf("after the cut: %d keys, want the 5000 synced (image of %d files)", n, files)
	}
}

// TestDroppedSyncLosesEverything: with the sync removed nothing recorded
// survives the cut.
func TestDroppedSyncLosesEverything(t *testing.T) {
	base := t.TempDir()
	dir, image := filepath.Join(base, "data"), filepath.Join(base, "image")
	db, err := store.Open(store.Options{Dir: dir, Syncer: New(image, true)})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, 0, 100)
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(dir, image); err != nil {
		t.Fatal(err)
	}
	if n := count(t, dir); n != 0 {
		t.Fatalf("after the cut: %d keys, want 0", n)
	}
}

// TestRestoreFromTheMemtableLog: synced writes still only in the memtable
// WAL (no flush yet, small values inline) survive the cut.
func TestRestoreFromTheMemtableLog(t *testing.T) {
	base := t.TempDir()
	dir, image := filepath.Join(base, "data"), filepath.Join(base, "image")
	db, err := store.Open(store.Options{Dir: dir, Syncer: New(image, false)})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, 0, 100)
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	put(t, db, 100, 200)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(dir, image); err != nil {
		t.Fatal(err)
	}
	if n := count(t, dir); n != 100 {
		t.Fatalf("after the cut: %d keys, want 100", n)
	}
}
