// Package durable writes small state files so that a crash or a power
// cut leaves either the old content or the new, never a torn or empty
// file, and so that a successful return means the new content survives.
//
// The sequence is the one PostgreSQL and SQLite use: write a temporary
// file in the same directory, fsync it, rename it over the target, fsync
// the directory (without that last step the rename itself may be lost on
// a power cut, and the old content comes back after the caller acted on
// the new).
package durable

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile replaces path's content with data, durably (see the package
// comment). The temporary file is path + ".tmp"; one is left behind only
// if the process dies between its creation and the rename, and the next
// WriteFile truncates it.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SyncDir fsyncs a directory, making the names created, renamed or
// removed in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
