package store

import (
	"errors"
	"fmt"

	"syscall"
)

// ErrDiskFull is in the chain of every error that refuses a write because
// the data directory's file system has less than Options.MinFree bytes
// available.
var ErrDiskFull = errors.New("data directory full")

// DiskFullError says how full: free bytes against the headroom asked for.
type DiskFullError struct {
	Dir     string
	Free    uint64 // bytes available to us (statfs f_bavail × f_bsize)
	MinFree uint64
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("data_dir %s is full (%d bytes free, storage.min_free is %d): nothing more is written, the slot is not advanced; free space (or raise the volume) and start again, replication resumes where it stopped", e.Dir, e.Free, e.MinFree)
}

func (e *DiskFullError) Unwrap() error { return ErrDiskFull }

// FreeBytes is what the file system holding dir has available to an
// unprivileged writer.
func FreeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// CheckSpace refuses a write (a *DiskFullError) while the data directory
// has less than Options.MinFree bytes available; nil when MinFree is 0,
// the store is in memory or read-only.
//
// Why a headroom and not ENOSPC: Badger writes its value log and memtables
// through memory-mapped files, and a page fault on a full file system is
// SIGBUS (the process dies with a goroutine dump), not an error. So every
// batch the sidecar writes (mirror records, Prolly nodes) is checked
// first, and the headroom must cover one batch plus Badger's own
// background writes (memtable flushes, compactions): the default,
// DefaultMinFree, is several times MemTableSize × NumMemtables plus a
// value-log file. One statfs per batch (about a microsecond).
func (db *DB) CheckSpace() error {
	if db.opts.MinFree == 0 || db.opts.InMemory || db.opts.ReadOnly {
		return nil
	}
	free, err := FreeBytes(db.opts.Dir)
	if err != nil {
		return err
	}
	if free < db.opts.MinFree {
		return &DiskFullError{Dir: db.opts.Dir, Free: free, MinFree: db.opts.MinFree}
	}
	return nil
}
