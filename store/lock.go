package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The data directory is shared by one writer (the daemon, or a command
// that changes the mirror with no daemon running) and any number of
// readers (status, log, diff, get, scan, verify with no daemon running).
// Two flock(2) locks order them, modelled on bbolt's Options.ReadOnly
// (shared lock for readers, exclusive for the writer):
//
//   - Dir/sidecar.lock: the writer holds it exclusively for its lifetime
//     (its pid inside, for the error a second writer gets). A reader holds
//     it shared only while it opens Badger, so no writer can start in
//     between and a reader never sees a writer's half-open directory.
//   - Badger's own lock on Dir itself: readers open Badger read-only,
//     which holds it shared for their lifetime; the writer's Badger takes
//     it exclusively. The writer, once it holds sidecar.lock, waits for the
//     shared holders to go (new readers cannot come: they need
//     sidecar.lock) before it opens Badger: a reader present never makes a
//     start fail, it delays it by the reader's remaining time, bounded by
//     Options.ReaderWait.
//
// A reader never creates or writes a file: it opens sidecar.lock read-only
// (flock works on any open file), and a directory without it was never
// opened by a writer, so it holds no mirror.

// lockRetry bounds how long a writer retries sidecar.lock while it is
// held: by a reader opening Badger (milliseconds), or by another writer
// (for good, reported as ErrLocked once this has passed).
const lockRetry = 3 * time.Second

// DefaultReaderWait is how long a writer's Open waits for readers of the
// directory to close it before failing with ErrLocked.
const DefaultReaderWait = 5 * time.Minute

// ErrNeedsRecovery is returned by a read-only Open of a directory that its
// last writer did not close (a crash or kill -9): Badger's write-ahead log
// must be truncated and replayed, which only a writer may do. The next
// writer's Open recovers it.
var ErrNeedsRecovery = errors.New("the data directory was not closed by its last writer (crash or kill); only the daemon's next start can recover it")

// ErrNoDir is returned by a read-only Open of a directory that does not
// exist or that no writer ever opened: a read never creates one.
var ErrNoDir = errors.New("no data directory")

// writerLock takes Dir/sidecar.lock exclusively (creating it), retrying
// while a reader holds it for its open, and records our pid in it. flock
// locks belong to the open file, so a second Open in the same process is
// refused too.
func writerLock(dir string, retry time.Duration) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := flockRetry(f, syscall.LOCK_EX, retry); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s holds %s); stop it or use another data_dir", ErrLocked, holder(path), path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// waitReaders returns once no process holds Badger's lock on dir (readers
// hold it shared), or fails with ErrLocked after wait. The caller holds
// sidecar.lock, so no reader can start meanwhile. It logs once when it
// has to wait.
func waitReaders(dir string, wait time.Duration, log *slog.Logger) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open data dir: %w", err)
	}
	defer d.Close()
	err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		log.Info("waiting for commands reading the data directory to finish", "dir", dir, "max_wait", wait)
		start := time.Now()
		err = flockRetry(d, syscall.LOCK_EX, wait)
		if err == nil {
			log.Info("readers of the data directory finished", "dir", dir, "waited", time.Since(start).Round(time.Millisecond))
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("%w: commands reading it offline (status, log, diff, get, scan, verify) still hold it after %s", ErrLocked, wait)
	}
	if err != nil {
		return fmt.Errorf("lock data dir: %w", err)
	}
	// Badger takes this lock itself, on its own descriptor; closing ours
	// releases it. No reader can take it in between: we hold sidecar.lock.
	return nil
}

// readerLock takes Dir/sidecar.lock shared, without creating or writing
// anything. The caller releases it once Badger is open.
func readerLock(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if _, derr := os.Stat(dir); derr != nil {
			return nil, fmt.Errorf("%w: %w", ErrNoDir, derr)
		}
		return nil, fmt.Errorf("%w: %s has no %s: no sidecar ever wrote there", ErrNoDir, dir, lockName)
	}
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s holds %s)", ErrLocked, holder(path), path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// flockRetry takes the lock how (LOCK_EX or LOCK_SH) on f, retrying every
// few milliseconds while it is held elsewhere, for up to wait. Polling
// rather than a blocking flock: a blocked flock cannot be bounded.
func flockRetry(f *os.File, how int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	backoff := 2 * time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || !time.Now().Before(deadline) {
			return err
		}
		time.Sleep(min(backoff, time.Until(deadline)))
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

// holder names the pid recorded in the lock file at path.
func holder(path string) string {
	if b, err := os.ReadFile(path); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return "pid " + strconv.Itoa(pid)
		}
	}
	return "unknown pid"
}
