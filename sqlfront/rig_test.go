package sqlfront_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/sqlfront"
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
	daemontest.Exec(t, url, sqls...)
}

// startDaemon runs a daemon following tables of the database at url,
// its config and data directory under dir, serving SQL at sqlListen (""
// for none) and logging to log, until stop; it returns the daemon's API
// address once ready.
func startDaemon(t testing.TB, url string, tables []string, dir, sqlListen string, log io.Writer) (addr string, stop func()) {
	t.Helper()
	d := followDaemon(t, url, tables, dir, sqlListen, log)
	stopped := false
	return d.Addr, func() {
		if stopped {
			return
		}
		stopped = true
		if err := d.Stop(); err != nil {
			t.Errorf("daemon: %v", err)
		}
	}
}

// followDaemon is startDaemon's daemon, through internal/testkit/daemontest
// (stopped when the test ends).
func followDaemon(t testing.TB, url string, tables []string, dir, sqlListen string, log io.Writer) *daemontest.Daemon {
	t.Helper()
	cfg := daemontest.ConfigIn(t, dir, url, tables, fmt.Sprintf("sql:\n  listen: %q", sqlListen))
	return daemontest.Start(t, daemontest.Options{PG: url, WaitWithin: 10 * time.Minute, Run: func(ctx context.Context, ready func(string)) error {
		return daemon.Run(ctx, daemon.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(log, nil)), OnReady: ready})
	}})
}

// newRig creates the tables (setup SQL), follows them, then applies each
// step (SQL run in one transaction while the sidecar follows; the
// durable LSN after it is recorded), stops the sidecar and serves SQL over its data directory.
func newRig(t testing.TB, tables []string, setup []string, steps ...[]string) *rig {
	t.Helper()
	return newRigHead(t, head.Options{}, tables, setup, steps...)
}

// newRigHead is newRig with the in-memory HEAD's options (a heap memory
// bound, a page file: cold pages).
func newRigHead(t testing.TB, headOpts head.Options, tables []string, setup []string, steps ...[]string) *rig {
	t.Helper()
	url := pg.NewDB(t)
	execSQL(t, url, append([]string{markerSetup}, setup...)...)
	tables = append([]string{"public.marker"}, tables...)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := followDaemon(t, url, tables, dir, "", io.Discard)
	r := &rig{pgURL: url}
	// Markers: a change to the marker table, twice (the first may land
	// inside the copy).
	for i := 0; i < 2; i++ {
		d.Marker(t, markerStmt)
	}
	for _, step := range steps {
		// One transaction per step, so that the durable LSN passing the
		// marker means the whole step is applied.
		before := daemontest.InsertLSN(t, url)
		execSQL(t, url, "BEGIN; "+strings.Join(step, "; ")+"; COMMIT")
		r.lsns = append(r.lsns, d.WaitDurable(t, before).DurableLSN)
	}
	if err := d.Stop(); err != nil {
		t.Errorf("daemon: %v", err)
	}
	if t.Failed() {
		t.FailNow()
	}
	db, mi, closeMirror := mirrortest.Open(t, data)
	r.hist, r.mirror = history.New(db, mi), mi
	// As the daemon does: the in-memory HEAD serves gets at HEAD.
	model := head.New(headOpts)
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
	if opts.ServerVersion == "" && opts.Source == r.src {
		// As the daemon does: the followed server's version.
		opts.ServerVersion = pg.ServerVersionString()
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
