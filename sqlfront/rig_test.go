package sqlfront_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/internal/mirrortest"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/sqlfront"
	"github.com/sidecar-dev/sidecar/wal"
)

var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

// rig is a PostgreSQL database followed by a sidecar (run until the
// mirror caught up, then stopped), and a SQL front end over the stopped
// sidecar's data directory, so both answer over the same rows.
type rig struct {
	pgURL  string
	sqlURL string
	addr   string
	hist   *history.Service
	mirror *mirror.Mirror
	src    sqlfront.Source
	srv    *sqlfront.Server // the last one serve started
	lsns   []string         // durable LSN after each step
}

func execSQL(t testing.TB, url string, sqls ...string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, s := range sqls {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func walInsert(t testing.TB, url string) wal.LSN {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var s string
	if err := conn.QueryRow(context.Background(), "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
		t.Fatal(err)
	}
	l, err := wal.ParseLSN(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func status(t testing.TB, addr string) daemon.Status {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st daemon.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// startDaemon runs a daemon following tables of the database at url,
// its config and data directory under dir, serving SQL at sqlListen (""
// for none) and logging to log, until stop; it returns the daemon's API
// address once ready.
func startDaemon(t testing.TB, url string, tables []string, dir, sqlListen string, log io.Writer) (addr string, stop func()) {
	t.Helper()
	file := filepath.Join(dir, "sidecar.yaml")
	body := fmt.Sprintf("postgres:\n  url: %s\ntables: [%s]\ndata_dir: %s\nlisten: 127.0.0.1:0\nsql:\n  listen: %q\n",
		url, strings.Join(tables, ", "), filepath.Join(dir, "data"), sqlListen)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{File: file, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(log, nil)),
			OnReady: func(a string) { ready <- a }})
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("daemon: %v", err)
			}
		case <-time.After(90 * time.Second):
			t.Error("daemon did not stop in 90 s")
		}
	}
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("daemon ended before ready: %v", err)
	case <-time.After(90 * time.Second):
		cancel()
		t.Fatal("daemon not ready after 90 s")
	}
	return addr, stop
}

// newRig creates the tables (setup SQL), follows them, then applies each
// step (SQL run in one transaction while the sidecar follows; the
// durable LSN after it is recorded), stops the sidecar and serves SQL over its data directory.
func newRig(t testing.TB, tables []string, setup []string, steps ...[]string) *rig {
	t.Helper()
	url := pg.NewDB(t)
	execSQL(t, url, append([]string{markerSetup}, setup...)...)
	tables = append([]string{"public.marker"}, tables...)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	addr, stop := startDaemon(t, url, tables, dir, "", io.Discard)
	r := &rig{pgURL: url}
	wait := func(marker wal.LSN) {
		deadline := time.Now().Add(10 * time.Minute)
		for {
			st := status(t, addr)
			if d, err := wal.ParseLSN(st.DurableLSN); err == nil && d > marker && st.Phase == "streaming" {
				r.lsns = append(r.lsns, st.DurableLSN)
				return
			}
			if time.Now().After(deadline) {
				stop()
				t.Fatalf("durable LSN did not pass %s in 10 min: %+v", marker, st)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Markers: a change to the marker table, twice (the first may land
	// inside the copy).
	for i := 0; i < 2; i++ {
		m := walInsert(t, url)
		execSQL(t, url, markerStmt)
		wait(m)
	}
	r.lsns = r.lsns[:0]
	for _, step := range steps {
		m := walInsert(t, url)
		// One transaction per step, so that the durable LSN passing the
		// marker means the whole step is applied.
		execSQL(t, url, "BEGIN; "+strings.Join(step, "; ")+"; COMMIT")
		wait(m)
	}
	stop()
	if t.Failed() {
		t.FailNow()
	}
	db, mi, closeMirror := mirrortest.Open(t, data)
	r.hist, r.mirror = history.New(db, mi), mi
	// As the daemon does: the in-memory HEAD serves gets at HEAD.
	model := head.New(head.Options{})
	if _, err := mi.Subscribe(model, mirror.SubscribeOptions{}); err != nil {
		t.Fatal(err)
	}
	r.hist.SetHead(model)
	// Wait for the model to hold HEAD (it is rebuilt from the trees):
	// until then reads go to the trees, and benchmarks would time those.
	for deadline := time.Now().Add(10 * time.Minute); model.LSN() < mi.Head().EndLSN && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if model.LSN() < mi.Head().EndLSN {
		t.Logf("the in-memory HEAD is at %s, the mirror at %s: reads at HEAD go to the trees", model.LSN(), mi.Head().EndLSN)
	}
	t.Cleanup(closeMirror)
	r.src = &sqlfront.HistorySource{H: r.hist, M: mi, Head: model}
	r.addr = r.serve(t, sqlfront.Options{StatementTimeout: 30 * time.Second, MaxConnections: 20})
	r.sqlURL = "postgres://app@" + r.addr + "/app?sslmode=disable"
	return r
}

// markerStmt changes the marker table every rig follows.
const markerStmt = "UPDATE marker SET n = n + 1"

// markerSetup creates it.
const markerSetup = "CREATE TABLE marker (id int PRIMARY KEY, n int); INSERT INTO marker VALUES (1, 0)"

// serve starts another SQL front end over the rig's mirror with opts
// (address filled in; the rig's source unless opts names one) and
// returns its address.
func (r *rig) serve(t testing.TB, opts sqlfront.Options) string {
	t.Helper()
	if opts.Source == nil {
		opts.Source = r.src
	}
	r.srv = serveSQL(t, opts)
	return r.srv.Addr()
}

// serveSQL starts a SQL front end with opts (on a free loopback port;
// logs discarded unless a logger is given), stopped when the test ends.
func serveSQL(t testing.TB, opts sqlfront.Options) *sqlfront.Server {
	t.Helper()
	opts.Addr = "127.0.0.1:0"
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := sqlfront.Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return srv
}

// treeURL serves the rig's mirror without the in-memory HEAD (every read
// from the trees, as before the model holds HEAD) and returns its URL.
func (r *rig) treeURL(t testing.TB) string {
	t.Helper()
	src := &sqlfront.HistorySource{H: r.hist, M: r.mirror}
	return "postgres://app@" + r.serve(t, sqlfront.Options{Source: src, StatementTimeout: 30 * time.Second, MaxConnections: 20}) + "/app?sslmode=disable"
}
