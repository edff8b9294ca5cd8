package store

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/internal/testkit/dirstate"
)

// lockHolderEnv makes the test binary a helper process that opens the DB in
// the named directory, says "ready" and holds it until stdin closes.
const lockHolderEnv = "SIDECAR_STORE_LOCK_HOLDER"

// lockHolderCrashEnv makes the helper write a key and exit without Close.
const lockHolderCrashEnv = "SIDECAR_STORE_LOCK_HOLDER_CRASH"

func TestLockHolderProcess(t *testing.T) {
	dir := os.Getenv(lockHolderEnv)
	if dir == "" {
		t.Skip("helper process for TestLockedByOtherProcess")
	}
	db, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("helper open: %v", err)
	}
	if os.Getenv(lockHolderCrashEnv) != "" {
		// Write a key and die without closing: what kill -9 leaves.
		if err := db.Badger().Update(func(txn *badger.Txn) error { return txn.Set([]byte("k"), []byte("v")) }); err != nil {
			t.Fatal(err)
		}
		os.Exit(0)
	}
	defer db.Close()
	os.Stdout.WriteString("ready\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}

// TestLockedByOtherProcess opens a data dir in a child process and checks
// that Open here fails with ErrLocked naming the child's pid and the dir,
// and succeeds once the child is gone.
func TestLockedByOtherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestLockHolderProcess$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper did not get ready: %q %v", line, err)
	}

	start := time.Now()
	_, err = Open(Options{Dir: dir, ReaderWait: 300 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("open of a dir held by pid %d: %v, want ErrLocked", cmd.Process.Pid, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "pid "+strconv.Itoa(cmd.Process.Pid)) || !strings.Contains(msg, dir) {
		t.Fatalf("error %q does not name the holder's pid %d and the dir", msg, cmd.Process.Pid)
	}

	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("a second writer gave up after %s, before ReaderWait (300ms)", took)
	}
	// A reader is refused too, at once, naming the writer.
	_, err = Open(Options{Dir: dir, ReadOnly: true})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Fatalf("read-only open of a dir held by pid %d: %v, want ErrLocked naming it", cmd.Process.Pid, err)
	}

	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	db, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("open after the holder exited: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadOnlyMissingDir: a read never creates the data directory.
func TestReadOnlyMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	_, err := Open(Options{Dir: dir, ReadOnly: true})
	if !errors.Is(err, ErrNoDir) {
		t.Fatalf("read-only open of a missing dir: %v, want ErrNoDir", err)
	}
	if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
		t.Fatalf("read-only open created %s: %v", dir, serr)
	}
	// An existing directory no writer opened: no mirror, nothing created.
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{Dir: dir, ReadOnly: true}); !errors.Is(err, ErrNoDir) {
		t.Fatalf("read-only open of an empty dir: %v, want ErrNoDir", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("read-only open wrote into an empty dir: %v", ents)
	}
}

// closedDir returns a directory a writer opened, set key k to v in and
// closed.
func closedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	w, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Badger().Update(func(txn *badger.Txn) error { return txn.Set([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReadOnlyWritesNothing: two readers at once read what a closed writer
// left, write nothing (every file's size and mtime unchanged), cannot
// write, and a writer that starts while they read waits for them instead
// of failing.
func TestReadOnlyWritesNothing(t *testing.T) {
	dir := closedDir(t)
	before := dirstate.Of(t, dir)
	r1, err := Open(Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Open(Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	if !r1.ReadOnly() {
		t.Error("ReadOnly() false on a read-only DB")
	}
	for _, r := range []*DB{r1, r2} {
		err := r.Badger().View(func(txn *badger.Txn) error {
			item, err := txn.Get([]byte("k"))
			if err != nil {
				return err
			}
			v, err := item.ValueCopy(nil)
			if err == nil && string(v) != "v" {
				err = errors.New("value " + string(v))
			}
			return err
		})
		if err != nil {
			t.Fatalf("read: %v", err)
		}
	}
	if err := r1.Badger().Update(func(txn *badger.Txn) error { return txn.Set([]byte("k2"), nil) }); err == nil {
		t.Error("a read-only DB accepted a write")
	}
	if err := r1.Sync(); err != nil {
		t.Errorf("Sync of a read-only DB: %v", err)
	}

	dirstate.Unchanged(t, "readers", dir, before)

	// A writer starting now waits for both readers.
	opened := make(chan error, 1)
	start := time.Now()
	var w2 *DB
	go func() {
		var err error
		w2, err = Open(Options{Dir: dir, ReaderWait: time.Minute})
		opened <- err
	}()
	select {
	case err := <-opened:
		t.Fatalf("the writer opened while readers held the directory: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	// New readers are refused while it waits (it holds sidecar.lock).
	if _, err := Open(Options{Dir: dir, ReadOnly: true}); !errors.Is(err, ErrLocked) {
		t.Errorf("a reader while a writer waits: %v, want ErrLocked", err)
	}
	if err := r1.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-opened:
		t.Fatalf("the writer opened while one reader held the directory: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := r2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("the writer after the readers closed: %v", err)
	}
	t.Logf("the writer waited %s for the readers", time.Since(start).Round(time.Millisecond))
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWriterGivesUpOnReader: a reader that stays past ReaderWait makes the
// writer fail with ErrLocked saying readers hold it.
func TestWriterGivesUpOnReader(t *testing.T) {
	dir := closedDir(t)
	r, err := Open(Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = Open(Options{Dir: dir, ReaderWait: 200 * time.Millisecond})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "reading it offline") {
		t.Fatalf("writer with a reader past ReaderWait: %v", err)
	}
}

// TestReadOnlyAfterCrash: a directory its writer did not close cannot be
// read without recovery; the reader says so (ErrNeedsRecovery) and the next
// writer recovers it.
func TestReadOnlyAfterCrash(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestLockHolderProcess$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+dir, lockHolderCrashEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	before := dirstate.Of(t, dir)
	_, err := Open(Options{Dir: dir, ReadOnly: true})
	if !errors.Is(err, ErrNeedsRecovery) {
		t.Fatalf("read-only open after a crash: %v, want ErrNeedsRecovery", err)
	}
	dirstate.Unchanged(t, "the failed reader", dir, before)
	w, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open after recovery: %v", err)
	}
	if err := r.Badger().View(func(txn *badger.Txn) error { _, err := txn.Get([]byte("k")); return err }); err != nil {
		t.Errorf("the crashed writer's key after recovery: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
