package store

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// lockHolderEnv makes the test binary a helper process that opens the DB in
// the named directory, says "ready" and holds it until stdin closes.
const lockHolderEnv = "SIDECAR_STORE_LOCK_HOLDER"

func TestLockHolderProcess(t *testing.T) {
	dir := os.Getenv(lockHolderEnv)
	if dir == "" {
		t.Skip("helper process for TestLockedByOtherProcess")
	}
	db, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatalf("helper open: %v", err)
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

	_, err = Open(Options{Dir: dir})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("open of a dir held by pid %d: %v, want ErrLocked", cmd.Process.Pid, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "pid "+strconv.Itoa(cmd.Process.Pid)) || !strings.Contains(msg, dir) {
		t.Fatalf("error %q does not name the holder's pid %d and the dir", msg, cmd.Process.Pid)
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
