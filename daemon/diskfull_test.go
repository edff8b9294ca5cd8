package daemon

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/internal/testkit/racedetector"
	"github.com/sidecar-dev/sidecar/store"
)

// smallFS mounts a tmpfs of size bytes for the test (tests run as root
// here; elsewhere the test is skipped with the reason).
func smallFS(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a size-limited tmpfs needs root: run the tests as root to cover a full disk")
	}
	dir := filepath.Join(t.TempDir(), "fs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s): the full-disk test needs it", err, out)
	}
	t.Cleanup(func() {
		// A stopped daemon holds nothing open there (its heap page file
		// is closed once its readers are gone: daemon.closePageFile), so
		// the mount goes at once; a busy mount is retried a while (the
		// kernel's own references), then named with what is still open.
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, err := exec.Command("umount", dir).CombinedOutput()
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("umount %s: %v: %s (still open: %v)", dir, err, out, openUnder(t, dir))
				return
			}
			time.Sleep(50 * time.Millisecond) // between polls of the condition, not a wait for it
		}
	})
	return dir
}

// openUnder lists this process's open descriptors on files under dir
// (fd → path).
func openUnder(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot list open descriptors: %v", err)
	}
	var out []string
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(l, dir+"/") {
			out = append(out, e.Name()+" → "+l)
		}
	}
	return out
}

// ballast fills dir's file system until free bytes are below leave, and
// returns the file (remove it to give the space back).
func ballast(t *testing.T, dir string, leave uint64) string {
	t.Helper()
	path := filepath.Join(dir, "ballast")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		free, err := store.FreeBytes(dir)
		if err != nil {
			t.Fatal(err)
		}
		if free < leave {
			return path
		}
		n := min(uint64(len(chunk)), free-leave+1)
		if _, err := f.Write(chunk[:n]); err != nil {
			t.Fatalf("ballast: %v", err)
		}
	}
}

// diskConfig is testConfig with data_dir on fs and storage.min_free set.
func diskConfig(t *testing.T, url, fs, minFree, tables string) *config.Config {
	t.Helper()
	return daemontest.Config(t, url, []string{tables}, "data_dir: "+filepath.Join(fs, "data"), "storage:\n  min_free: "+minFree)
}

// waitStopped waits until the daemon has stopped by itself (its API no
// longer answers) and returns Run's error.
func waitStopped(t *testing.T, r *running, what string, logs *syncBuilder) error {
	t.Helper()
	// The daemon stops once the disk fills, which takes as long as writing
	// the bytes does: under -race at load 60 the copy ran 450 rows/s and
	// had not filled it in 2 min. So wait while its log grows (the copy
	// reports progress), daemontest.Ceiling at a time, up to 10 min: it
	// fails when the daemon stops moving, not when it is slow.
	start, seen := time.Now(), -1
	for {
		if err, ok := r.Exited(daemontest.Ceiling); ok {
			return err
		}
		l := logs.String()
		if len(l) == seen || time.Since(start) > 10*time.Minute {
			t.Fatalf("the daemon still runs %s after %s; log tail:\n%s", time.Since(start).Round(time.Second), what, l[max(0, len(l)-6000):])
		}
		seen = len(l)
	}
}

func wantFullError(t *testing.T, err error, what string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "is full (") || !strings.Contains(err.Error(), "bytes free") {
		t.Fatalf("%s: the daemon ended with %v, want a data_dir ... is full (N bytes free) error", what, err)
	}
}

// TestDiskFullStopsAndResumes (issue 16 item 2): on a small file system,
// once free space falls under storage.min_free the daemon stops with
// "data_dir … is full (N bytes free)" (no SIGBUS in Badger's mapped
// writes), the slot is not advanced past what was written, and once space
// is back a plain restart resumes and the mirror equals PostgreSQL; the
// same during the initial copy.
func TestDiskFullStopsAndResumes(t *testing.T) {
	const minFree = 24 << 20
	fs := smallFS(t, 160<<20)
	url := pg.NewDB(t)
	execSQL(t, url, `CREATE TABLE t (id int PRIMARY KEY, v text)`, `INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 1000) g`)
	cfg := diskConfig(t, url, fs, "24MiB", "public.t")
	var logs syncBuilder

	// While streaming.
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, `UPDATE t SET v = 'first' WHERE id = 1`))
	ball := ballast(t, fs, minFree-(4<<20))
	execSQL(t, url, `INSERT INTO t SELECT g, repeat(md5(g::text), 8) FROM generate_series(1001, 3000) g`)
	// The commit record of the INSERT ends just before this position. The
	// slot may be acknowledged inside the transaction's WAL (the server
	// decodes a transaction only at its commit and reports its read
	// position meanwhile, which is safe: a commit past confirmed_flush is
	// sent again), never at or past its end.
	afterInsert := currentWAL(t, url)
	wantFullError(t, waitStopped(t, r, "the disk filled", &logs), "streaming")
	if c := slotConfirmed(t, url, cfg.Slot); c >= afterInsert {
		t.Errorf("the slot was advanced to %s, past the commit of what could not be written (WAL at %s after it)", c, afterInsert)
	}
	// Still full: a start refuses at once, with the same message.
	err := Run(t.Context(), Options{Config: cfg})
	wantFullError(t, err, "a start on a full disk")
	if err := os.Remove(ball); err != nil {
		t.Fatal(err)
	}
	r = start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, `UPDATE t SET v = 'after' WHERE id = 2`))
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	_, got := mirrortest.MirrorRows(t, cfg.DataDir, "public.t")
	if want := mirrortest.PGRows(t, url, "public.t"); !slices.Equal(got, want) || len(want) != 3000 {
		t.Fatalf("after the resume: mirror %d rows, PostgreSQL %d; they differ", len(got), len(want))
	}

	// During the initial copy of a second table, in a new data dir: ~30 MB
	// of rows, 200,000 of 128 bytes, each an md5 four times (~6 MB after
	// the nodes' s2 compression). Under the race detector 50,000 rows of
	// 512 bytes, each four different md5s four times: the same bytes before
	// and after compression (the bytes fill the disk; the rows are what the
	// detector makes slow: this test was the race stage's third longest,
	// 178 s at load 40). One md5 sixteen times compressed to a quarter of
	// that and sometimes did not fill it.
	bigRows, bigValue := 200000, "repeat(md5(g::text), 4)"
	if racedetector.Enabled {
		bigRows, bigValue = 50000, "repeat(md5(g::text) || md5((g + 1000000)::text) || md5((g + 2000000)::text) || md5((g + 3000000)::text), 4)"
	}
	execSQL(t, url, `CREATE TABLE big (id int PRIMARY KEY, v text)`,
		fmt.Sprintf(`INSERT INTO big SELECT g, %s FROM generate_series(1, %d) g`, bigValue, bigRows))
	url2 := url // the same database, another slot and data dir
	cfg2 := diskConfig(t, url2, fs, "24MiB", "public.big")
	cfg2.Slot, cfg2.Publication = "disk_copy", "disk_copy"
	cfg2.DataDir = filepath.Join(fs, "data2")
	ball = ballast(t, fs, minFree+(8<<20)) // room to start, not for the copy (~30 MB of rows)
	r = start(t, cfg2, &logs)
	wantFullError(t, waitStopped(t, r, "the disk filled during the copy", &logs), "initial copy")
	if err := os.Remove(ball); err != nil {
		t.Fatal(err)
	}
	r = start(t, cfg2, &logs)
	r.waitDurable(t, marker(t, url, `UPDATE big SET v = 'after' WHERE id = 2`))
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	_, got = mirrortest.MirrorRows(t, cfg2.DataDir, "public.big")
	if want := mirrortest.PGRows(t, url, "public.big"); !slices.Equal(got, want) || len(want) != bigRows {
		t.Fatalf("after the copy resumed: mirror %d rows, PostgreSQL %d; they differ", len(got), len(want))
	}
	if strings.Contains(logs.String(), "SIGBUS") || strings.Contains(logs.String(), "goroutine ") {
		t.Errorf("a stack trace in the logs:\n%s", logs.String())
	}
}
