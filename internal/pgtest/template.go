package pgtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// EnvInitdbCache names the environment variable that sets where initdb'ed
// data directories are kept for reuse (see templateDir): a directory, or
// "off" to run initdb for every cluster. By default it is
// sidecar-initdb-cache-<uid> under the clusters' temp base (one per user:
// another user's directory is not writable). A cache that cannot be used
// (not writable, no lock) is not an error: initdb then runs for the
// cluster alone.
//
// initdb is the costliest part of a cluster's start (its bootstrap is
// 1.5-3 s of CPU; copying its result takes about 0.1 s), and a CI run
// starts 100-150 clusters in separate test processes, nearly all with the
// same binaries and options. So the first start for a given key runs
// initdb once into the cache, and every start copies that directory.
// Clusters copied from one template share its database system identifier
// (IDENTIFY_SYSTEM's systemid); a test that needs two clusters to differ
// there must set this variable to "off".
const EnvInitdbCache = "SIDECAR_PGTEST_INITDB_CACHE"

// initdbArgs are initdb's options besides the data directory: superuser
// "postgres", trust auth (the server listens on 127.0.0.1 and a private
// socket dir only), UTF8, C locale (deterministic collation, as in CI), no
// fsync. They are part of a template's key.
var initdbArgs = []string{"-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"}

// cacheRoot is the template cache directory for clusters created under
// base, and "" when templates are off.
func cacheRoot(getenv func(string) string, base string) string {
	switch v := getenv(EnvInitdbCache); v {
	case "off":
		return ""
	case "":
		return filepath.Join(base, fmt.Sprintf("sidecar-initdb-cache-%d", os.Getuid()))
	default:
		return v
	}
}

// templateKey names the template of initdb at binDir with args run as as:
// the binaries' version (initdb --version), the identity of the initdb
// and postgres files (path, size, modification time: a reinstall of the
// same version is another key), the options and the owner. Two keys are
// equal only when initdb would make the same directory.
func templateKey(ctx context.Context, binDir string, args []string, as runAs) (string, error) {
	initdb := filepath.Join(binDir, "initdb")
	out, err := exec.CommandContext(ctx, initdb, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("initdb --version: %w", err)
	}
	version := strings.TrimSpace(string(out))
	h := sha256.New()
	fmt.Fprintf(h, "version %q\n", version)
	for _, name := range []string{"initdb", "postgres"} {
		p, err := filepath.EvalSymlinks(filepath.Join(binDir, name))
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %s %d %d\n", name, p, fi.Size(), fi.ModTime().UnixNano())
	}
	fmt.Fprintf(h, "args %q\n", args)
	if as.cred != nil {
		fmt.Fprintf(h, "owner %d:%d\n", as.cred.Uid, as.cred.Gid)
	} else {
		fmt.Fprintf(h, "owner %d:%d\n", os.Getuid(), os.Getgid())
	}
	// A readable prefix (the version number) and the hash.
	num := regexp.MustCompile(`[0-9]+(\.[0-9]+)*`).FindString(version)
	return "pg" + num + "-" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// templateDir returns the template data directory for key under root,
// running initdb into it first when no process has yet. The
// template appears by an atomic rename of a finished directory, so a
// reader never sees a partial one; an exclusive flock on key's lock file
// makes concurrent test processes wait for the one running initdb
// instead of each running its own. made reports whether this call ran
// initdb. A template is never changed after its rename. An error wrapping
// errCacheUnusable is the cache's own (the caller runs initdb without
// it); any other is initdb's.
func templateDir(ctx context.Context, root, key string, as runAs, initdb func(ctx context.Context, data string) error) (dir string, made bool, err error) {
	dir = filepath.Join(root, key)
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		return dir, false, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", false, fmt.Errorf("%w: %w", errCacheUnusable, err)
	}
	unlock, err := lockFile(ctx, filepath.Join(root, key+".lock"))
	if err != nil {
		return "", false, fmt.Errorf("%w: %w", errCacheUnusable, err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err == nil {
		return dir, false, nil // made while this process waited for the lock
	}
	// Work directories of this key left by a process killed during its
	// initdb: nobody else makes this key while the lock is held.
	if left, err := filepath.Glob(filepath.Join(root, ".tmp-"+key+"-*")); err == nil {
		for _, d := range left {
			os.RemoveAll(d)
		}
	}
	work, err := os.MkdirTemp(root, ".tmp-"+key+"-")
	if err != nil {
		return "", false, fmt.Errorf("%w: %w", errCacheUnusable, err)
	}
	defer os.RemoveAll(work)
	if err := as.chown(work); err != nil {
		return "", false, fmt.Errorf("%w: %w", errCacheUnusable, err)
	}
	data := filepath.Join(work, "data")
	if err := initdb(ctx, data); err != nil {
		return "", false, err
	}
	if err := os.Rename(data, dir); err != nil {
		return "", false, fmt.Errorf("%w: %w", errCacheUnusable, err)
	}
	return dir, true, nil
}

// errCacheUnusable is wrapped by templateDir's errors that are the
// cache's, not initdb's.
var errCacheUnusable = errors.New("initdb template cache unusable")

// lockFile takes an exclusive flock on path (created if missing), polling
// until it is free or ctx ends; unlock releases it.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	pause := 10 * time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for %s (another process running initdb): %w", path, ctx.Err())
		case <-time.After(pause):
		}
		pause = min(pause*2, 200*time.Millisecond)
	}
}

// copyTemplate copies the template data directory into data (which must
// not exist), keeping modes and owners (the server's user's 0700).
func copyTemplate(ctx context.Context, template, data string) error {
	cmd := exec.CommandContext(ctx, "cp", "-a", template, data)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("copy initdb template %s: %w\n%s", template, err, tail(out.Bytes()))
	}
	return nil
}
