package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/s3test"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// TestRemoteFollowerDiffBench measures a read-only follower against the
// writer it follows (issue 17's benchmark): the follower's start (process
// start to serving at the writer's remote-durable LSN), its first (cold)
// and later (warm) diff of one transaction that changed 10,000 rows, and
// the writer's own (local) diff of the same versions, alternating, medians
// of 7, through the HTTP API. Runs only with REMOTE_BENCH=1;
// REMOTE_BENCH_ROWS sizes the table (default 1,000,000).
func TestRemoteFollowerDiffBench(t *testing.T) {
	if os.Getenv("REMOTE_BENCH") != "1" {
		t.Skip("a benchmark: REMOTE_BENCH=1 runs it")
	}
	rows := 1000000
	if v := os.Getenv("REMOTE_BENCH_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 20000 {
			t.Fatalf("REMOTE_BENCH_ROWS=%q: want an integer ≥ 20000", v)
		}
		rows = n
	}
	srv := s3test.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	url := pg.NewDB(t)
	crashTables(t, url, rows)
	wfile, _ := runConfig(t, url, "public.counter, public.items")
	appendFile(t, wfile, fmt.Sprintf("remote:\n  url: %s\n  endpoint: http://%s\n  upload: true\n  interval: 200ms\n", srv.URL("shared"), srv.Endpoint))
	ffile, _ := runConfig(t, url, "public.counter, public.items")
	appendFile(t, ffile, fmt.Sprintf("remote:\n  endpoint: http://%s\n", srv.Endpoint))
	setListen(t, wfile, freeLoopback(t))
	setListen(t, ffile, freeLoopback(t))

	w := sidecarProcess(t, "run", "--config", wfile)
	defer func() {
		if t.Failed() {
			t.Logf("writer's log:\n%s", w.output())
		}
	}()
	wbase := w.waitListen(t)
	waitFor(t, "the writer streaming", 600*time.Second, func() bool {
		var st struct {
			Phase string `json:"phase"`
		}
		return getJSON(wbase+"/api/status", &st) == nil && st.Phase == "streaming"
	})
	// The target is read inside the update's transaction (before its
	// commit record): read after the commit, unrelated WAL in between
	// (autovacuum, running_xacts) could put it past every followed commit.
	target := queryLSN(t, url, `WITH u AS (UPDATE items SET n = n + 1 WHERE id <= 10000 RETURNING 1)
		SELECT pg_current_wal_insert_lsn()::text FROM (SELECT count(*) FROM u) c`)
	remoteDurable := waitRemoteDurable(t, "the writer's upload past the update", wbase, target, 600*time.Second)

	start := time.Now()
	f := sidecarProcess(t, "serve", "--remote", srv.URL("shared"), "--refresh", "1s", "--config", ffile)
	defer func() {
		if t.Failed() {
			t.Logf("follower's log:\n%s", f.output())
		}
	}()
	fbase := f.waitListen(t)
	waitDurable(t, "the follower at the writer's remote-durable LSN", fbase, remoteDurable, 600*time.Second)
	startTook := time.Since(start)

	// diff times one diff. The follower stops its API while a refresh
	// brings it forward to a new manifest (the writer writes one now and
	// then with no commit) and starts it again on the same address: a
	// refused connection is retried, and the time counts from the
	// attempt that was answered.
	diff := func(base string) (time.Duration, int) {
		t.Helper()
		var t0 time.Time
		var resp *http.Response
		var err error
		if perr := daemontest.Poll(0, func() bool {
			t0 = time.Now()
			resp, err = http.Get(base + "/api/diff?from=HEAD~1&to=HEAD&table=public.items")
			return err == nil || !errors.Is(err, syscall.ECONNREFUSED)
		}); perr != nil {
			t.Fatalf("diff at %s: %v", base, err)
		}
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("diff at %s: HTTP %d, %v", base, resp.StatusCode, err)
		}
		return time.Since(t0), int(n)
	}
	cold, coldBytes := diff(fbase)
	var local, warm []time.Duration
	for range 7 {
		d, n := diff(wbase)
		if n != coldBytes {
			t.Fatalf("the writer's diff is %d bytes, the follower's %d", n, coldBytes)
		}
		local = append(local, d)
		d, _ = diff(fbase)
		warm = append(warm, d)
	}
	med := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	t.Logf("table of %d rows; follower start to serving at %s: %.2fs; diff of 10,000 changed rows (%d bytes of JSON): follower cold %.1f ms, follower warm median %.1f ms, writer (local) median %.1f ms: warm/local %.2fx, cold/local %.2fx",
		rows, remoteDurable, startTook.Seconds(), coldBytes, ms(cold), ms(med(warm)), ms(med(local)), float64(med(warm))/float64(med(local)), float64(cold)/float64(med(local)))
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
