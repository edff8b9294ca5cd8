package durable

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	for _, want := range []string{"one\n", "a longer second content\n", ""} {
		if err := WriteFile(path, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("content %q, want %q", got, want)
		}
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestWriteFileStaleTemporary(t *testing.T) {
	// A crash between create and rename leaves path.tmp: the next write
	// truncates it rather than appending to it.
	dir := t.TempDir()
	path := filepath.Join(dir, "state")
	if err := os.WriteFile(path+".tmp", []byte("left by a crash, much longer than the new content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Fatalf("content %q, want %q", got, "new")
	}
}

func TestWriteFileMissingDirectory(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "state"), []byte("x"), 0o600)
	if err == nil {
		t.Fatal("write into a missing directory reported success")
	}
}
