package daemon

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/s3test"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/remote"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestRemoteUploadBench measures remote.upload (bench/results/remote-*.md):
// the same single-row UPDATE load with upload off and on (PUTs per commit
// group and per 1,000 rows, bytes uploaded, the apply rate), then a
// restore of the uploaded history into an empty directory against the
// initial copy's time. Runs only with REMOTE_BENCH=1; REMOTE_BENCH_ROWS
// (default 200000), REMOTE_BENCH_SECONDS (default 30).
func TestRemoteUploadBench(t *testing.T) {
	if os.Getenv("REMOTE_BENCH") != "1" {
		t.Skip("set REMOTE_BENCH=1 to run the remote benchmark")
	}
	rows := envInt("REMOTE_BENCH_ROWS", 200000)
	secs := envInt("REMOTE_BENCH_SECONDS", 30)
	srv := s3test.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	for _, on := range []bool{false, true} {
		url := pg.NewDB(t)
		execSQL(t, url, "CREATE TABLE items (id int PRIMARY KEY, n bigint NOT NULL, note text)",
			"INSERT INTO items SELECT g, 0, repeat('x', 60) || g FROM generate_series(1, "+strconv.Itoa(rows)+") g")
		cfg := testConfig(t, url, "public.items")
		cfg.Slot, cfg.Publication = "bench_"+strconv.FormatBool(on), "bench_"+strconv.FormatBool(on)
		if on {
			cfg.Remote.URL, cfg.Remote.Endpoint, cfg.Remote.Upload = srv.URL("bench"), "http://"+srv.Endpoint, true
			cfg.Remote.Holder = "bench"
		}
		var groups atomic.Int64
		opts := Options{Config: cfg, Mirror: func(o *mirror.Options) {
			o.GroupMaxAge = 5 * time.Second
			prev := o.OnGroupFlush
			o.OnGroupFlush = func(d time.Duration) {
				if prev != nil {
					prev(d)
				}
				groups.Add(1)
			}
		}}
		start := time.Now()
		r := startOpts(t, opts, io.Discard)
		waitStreaming(t, r)
		copyTook := time.Since(start)
		puts0, gets0, groups0 := srv.Requests("PUT"), srv.Requests("GET"), groups.Load()
		txns := updateLoad(t, url, rows, time.Duration(secs)*time.Second)
		loadEnd := time.Now()
		m := marker(t, url, "UPDATE items SET n = n + 1 WHERE id = 1")
		for r.status(t).DurableLSN == "" || mustLSN(t, r.status(t).DurableLSN) <= m {
			time.Sleep(20 * time.Millisecond)
		}
		caughtUp := time.Since(loadEnd)
		var rd time.Duration
		if on {
			for st := r.status(t); st.Remote == nil || mustLSN(t, st.Remote.RemoteDurableLSN) <= m; st = r.status(t) {
				time.Sleep(20 * time.Millisecond)
			}
			rd = time.Since(loadEnd)
		}
		ng := groups.Load() - groups0
		puts := srv.Requests("PUT") - puts0
		st := r.status(t)
		if err := r.stop(); err != nil {
			t.Fatal(err)
		}
		t.Logf("upload=%v: copy of %d rows %.2fs; %d txns in %ds = %.0f txn/s committed, applied %.2fs after the load ended; %d groups",
			on, rows, copyTook.Seconds(), txns, secs, float64(txns)/float64(secs), caughtUp.Seconds(), ng)
		if !on {
			continue
		}
		c, err := RemoteClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		man, _, err := remote.ReadManifest(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		var packBytes, segBytes int64
		for _, p := range man.Packs {
			packBytes += p.Bytes
		}
		for _, s := range man.Segments {
			segBytes += s.Bytes
		}
		t.Logf("upload=true: %d PUTs during the load (%d uploads, %d GETs): %.2f PUTs per group, %.3f PUTs per 1,000 rows; remote-durable %.2fs after the load; manifest: %d packs %d bytes, %d segments %d bytes",
			puts, st.Remote.Uploads, srv.Requests("GET")-gets0, float64(puts)/float64(max(ng, 1)), float64(puts)*1000/float64(txns), rd.Seconds(), len(man.Packs), packBytes, len(man.Segments), segBytes)
		db, err := store.Open(store.Options{Dir: filepath.Join(t.TempDir(), "restored")})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := remote.Restore(context.Background(), c, db)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("restore: %.2fs, %d bytes fetched, %d segments (%d records), %d packs (%d nodes); initial copy took %.2fs (%.2fx)",
			rs.Took.Seconds(), rs.BytesFetched, rs.Segments, rs.Records, rs.Packs, rs.Nodes, copyTook.Seconds(), rs.Took.Seconds()/copyTook.Seconds())
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func mustLSN(t *testing.T, s string) wal.LSN {
	t.Helper()
	l, err := wal.ParseLSN(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func waitStreaming(t *testing.T, r *running) {
	t.Helper()
	daemontest.Eventually(t, "streaming", 10*time.Minute, func() bool { return r.status(t).Phase == "streaming" })
}

// updateLoad runs 4 clients of autocommit single-row UPDATEs for d and
// returns the transactions committed.
func updateLoad(t *testing.T, url string, rows int, d time.Duration) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var n atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		conn, err := pgx.Connect(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		wg.Go(func() {
			id := w
			for ctx.Err() == nil {
				id = (id*7919 + 13) % rows
				if _, err := conn.Exec(ctx, "UPDATE items SET n = n + 1 WHERE id = $1", id+1); err == nil {
					n.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return n.Load()
}
