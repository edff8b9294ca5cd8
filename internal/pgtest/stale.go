package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// tempBase is the directory clusters are created in: os.TempDir(), unless
// the server runs as another user who cannot reach it (e.g. TMPDIR under
// /root), in which case /tmp.
func tempBase(as runAs) string {
	base := os.TempDir()
	if as.cred == nil {
		return base
	}
	for d := base; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return "/tmp"
		}
		if d == filepath.Dir(d) {
			return base
		}
	}
}

// sweepStale removes cluster directories under base left by processes that
// died without calling Stop (SIGKILL, test timeout, a panic in a test). The
// parent-death signal has already killed their servers; a directory is only
// removed when both its owner process and its postmaster are gone.
func sweepStale(base string, logf func(string, ...any)) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), dirPrefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		owner, ok := readPid(filepath.Join(dir, ownerFile))
		if !ok || alive(owner) {
			continue // being created, or in use
		}
		if pm, ok := readPid(filepath.Join(dir, "data", "postmaster.pid")); ok && alive(pm) {
			continue
		}
		if err := os.RemoveAll(dir); err == nil {
			logf("pgtest: removed %s left by dead process %d", dir, owner)
		}
	}
}

// readPid reads the pid on the first line of path.
func readPid(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	return pid, err == nil && pid > 0
}

// alive reports whether a process with this pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
