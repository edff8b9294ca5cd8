package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenMakesTheDataDirPrivate: the store creates its directory 0700
// and narrows an existing one other users can enter (it holds the
// mirrored rows; Badger's own files follow the umask).
func TestOpenMakesTheDataDirPrivate(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "fresh", "data")
	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{fresh, open} {
		db, err := Open(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != 0o700 {
			t.Errorf("%s: mode %04o after Open, want 0700", dir, got)
		}
	}
}
