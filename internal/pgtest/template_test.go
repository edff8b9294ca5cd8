package pgtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeInitdb makes a data directory as initdb would (PG_VERSION last),
// counting its runs; fail makes it fail half-way.
type fakeInitdb struct {
	runs atomic.Int32
	fail atomic.Bool
}

func (f *fakeInitdb) run(_ context.Context, data string) error {
	f.runs.Add(1)
	// initdb takes seconds: while it runs, the other starts reach the
	// cache (without the lock, each would run its own).
	time.Sleep(50 * time.Millisecond)
	if err := os.Mkdir(data, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(data, "base"), []byte("x"), 0o600); err != nil {
		return err
	}
	if f.fail.Load() {
		return errors.New("initdb failed")
	}
	return os.WriteFile(filepath.Join(data, "PG_VERSION"), []byte("15\n"), 0o600)
}

// TestTemplateMadeOncePerKey: concurrent starts (each its own lock file
// descriptor, as separate test processes have) run initdb once per key
// and all get the same finished directory; a failed initdb leaves no
// template and no work directory behind, and the next start makes it.
func TestTemplateMadeOncePerKey(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	var f fakeInitdb
	var wg sync.WaitGroup
	dirs := make([]string, 8)
	var made atomic.Int32
	for i := range dirs {
		wg.Go(func() {
			dir, m, err := templateDir(t.Context(), root, "pg15-aaaa", runAs{}, f.run)
			if err != nil {
				t.Error(err)
				return
			}
			if m {
				made.Add(1)
			}
			dirs[i] = dir
		})
	}
	wg.Wait()
	if f.runs.Load() != 1 || made.Load() != 1 {
		t.Fatalf("initdb ran %d times, made reported %d times; want once", f.runs.Load(), made.Load())
	}
	for _, d := range dirs {
		if d != dirs[0] {
			t.Fatalf("different template dirs: %q", dirs)
		}
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "PG_VERSION")); err != nil {
		t.Fatal(err)
	}

	// Another key (another binary or other options): another template.
	other, m, err := templateDir(t.Context(), root, "pg15-bbbb", runAs{}, f.run)
	if err != nil || !m || other == dirs[0] || f.runs.Load() != 2 {
		t.Fatalf("second key: %q made=%v err=%v runs=%d", other, m, err, f.runs.Load())
	}

	// A failed initdb: no template, no work directory; then made.
	f.fail.Store(true)
	if _, _, err := templateDir(t.Context(), root, "pg15-cccc", runAs{}, f.run); err == nil {
		t.Fatal("a failed initdb made a template")
	}
	f.fail.Store(false)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") || e.Name() == "pg15-cccc" {
			t.Errorf("left after a failed initdb: %s", e.Name())
		}
	}
	// A work directory left by a process killed during its initdb is
	// removed by the next one that makes the key.
	if err := os.Mkdir(filepath.Join(root, ".tmp-pg15-cccc-killed"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, m, err := templateDir(t.Context(), root, "pg15-cccc", runAs{}, f.run); err != nil || !m {
		t.Fatalf("after the failure: made=%v err=%v", m, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".tmp-pg15-cccc-killed")); !os.IsNotExist(err) {
		t.Errorf("a killed process's work directory stayed: %v", err)
	}
}

// TestTemplateCacheUnusable: a cache directory that cannot be made is
// the cache's error (errCacheUnusable: Start runs initdb without it), and
// initdb does not run.
func TestTemplateCacheUnusable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var f fakeInitdb
	_, _, err := templateDir(t.Context(), filepath.Join(file, "cache"), "pg15-aaaa", runAs{}, f.run)
	if !errors.Is(err, errCacheUnusable) || f.runs.Load() != 0 {
		t.Fatalf("cache under a file: %v (initdb ran %d times), want errCacheUnusable", err, f.runs.Load())
	}
	f.fail.Store(true)
	_, _, err = templateDir(t.Context(), filepath.Join(t.TempDir(), "cache"), "pg15-aaaa", runAs{}, f.run)
	if err == nil || errors.Is(err, errCacheUnusable) {
		t.Fatalf("initdb's own failure: %v, want it, not errCacheUnusable", err)
	}
}

// TestTemplateKey: the key follows the binaries' version and initdb's
// options, and is stable for the same ones.
func TestTemplateKey(t *testing.T) {
	bin := pg.BinDir()
	k1, err := templateKey(t.Context(), bin, initdbArgs, runAs{})
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := templateKey(t.Context(), bin, initdbArgs, runAs{})
	if k1 != k2 {
		t.Fatalf("same binary and options, keys %q and %q", k1, k2)
	}
	major := pg.ServerVersion() / 10000
	if !strings.HasPrefix(k1, "pg"+strconv.Itoa(major)) {
		t.Errorf("key %q does not start with the server's version %d", k1, major)
	}
	for _, args := range [][]string{
		{"-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=en_US.UTF-8", "--no-sync"},
		{"-U", "postgres", "--auth=md5", "-E", "UTF8", "--locale=C", "--no-sync"},
		{"-U", "postgres", "--auth=trust", "-E", "SQL_ASCII", "--locale=C", "--no-sync"},
	} {
		if k, _ := templateKey(t.Context(), bin, args, runAs{}); k == k1 {
			t.Errorf("options %q share the key %q", args, k1)
		}
	}
}
