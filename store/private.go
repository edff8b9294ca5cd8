package store

import (
	"fmt"
	"log/slog"
	"os"
)

// makePrivate makes the data directory accessible to its owner only
// (0700): it holds the mirrored rows, and Badger creates its files with
// the process's umask (0644 under the usual 022), so the directory's mode
// is what keeps other users out. A directory that was open to others is
// narrowed (logged at debug: `sidecar check` is where the user is told,
// and a fresh t.TempDir is 0755); one we may not chmod is an error with
// the fix.
func makePrivate(dir string, log *slog.Logger) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	perm := st.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(dir, perm&0o700|0o700); err != nil {
		return fmt.Errorf("data dir %s is accessible by other users (mode %04o) and holds the mirrored rows; it could not be made private (%w); run: chmod 700 %s", dir, perm, err, dir)
	}
	if log != nil {
		log.Debug("the data directory was accessible by other users; made it private", "data_dir", dir, "mode_was", fmt.Sprintf("%04o", perm), "mode", "0700")
	}
	return nil
}
