package client

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/dirstate"
)

var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

func TestConnectDaemonThenLocal(t *testing.T) {
	ctx := context.Background()
	url := pg.NewDB(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 50) g"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600)
	cfg := daemontest.ConfigIn(t, dir, url, []string{"t"}, "api:\n  token_file: "+tokenFile)

	// Nothing yet: a clear error, and a read creates no directory.
	if _, err := ConnectReadOnly(ctx, cfg, nil); !errors.Is(err, ErrNoMirror) {
		t.Fatalf("read before the first run: %v", err)
	}
	if _, err := os.Stat(cfg.DataDir); !os.IsNotExist(err) {
		t.Fatalf("a read created data_dir %s: %v", cfg.DataDir, err)
	}
	if _, err := Connect(ctx, cfg, nil); !errors.Is(err, ErrNoMirror) {
		t.Fatalf("before the first run: %v", err)
	}

	// A running daemon is reached through its API.
	d := daemontest.Start(t, daemontest.Options{PG: url, Run: func(ctx context.Context, ready func(string)) error {
		return daemon.Run(ctx, daemon.Options{Config: cfg, OnReady: ready})
	}})
	cfg.Listen = d.Addr
	c, err := Connect(ctx, cfg, nil)
	if err != nil || c.Daemon == nil {
		t.Fatalf("with a daemon: %v %+v", err, c)
	}
	var st daemon.Status
	daemontest.Poll(0, func() bool {
		if err := c.Daemon.GetJSON(ctx, "/api/status", nil, &st); err != nil {
			t.Fatal(err)
		}
		return st.Phase == "streaming"
	})
	if st.Phase != "streaming" || len(st.Tables) != 1 || st.Tables[0].Rows != 50 {
		t.Fatalf("status through the API: %+v", st)
	}
	var apiErr *APIError
	if err := NewDaemon(cfg.Listen, "wrong").GetJSON(ctx, "/api/status", nil, &st); !errors.As(err, &apiErr) || apiErr.Status != 401 {
		t.Errorf("wrong token: %v", err)
	}
	if err := c.Daemon.GetJSON(ctx, "/api/nothing", nil, &st); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Errorf("unknown endpoint: %v", err)
	}
	c.Close()
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}

	// No daemon, reading: two read-only opens at once, nothing written.
	before := dirstate.Of(t, cfg.DataDir)
	r1, err := ConnectReadOnly(ctx, cfg, nil)
	if err != nil || r1.Local == nil {
		t.Fatalf("read-only without a daemon: %v", err)
	}
	r2, err := ConnectReadOnly(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("second read-only connection: %v", err)
	}
	if v, ok, err := r2.Local.Mirror.Get(ctx, "public.t", []string{"7"}, r2.Local.Mirror.Durable()); err != nil || !ok || len(v) == 0 {
		t.Fatalf("read-only get: %q %v %v", v, ok, err)
	}
	if err := r1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r2.Close(); err != nil {
		t.Fatal(err)
	}
	dirstate.Unchanged(t, "read-only connections", cfg.DataDir, before)

	// No daemon: the data directory is opened here.
	c, err = Connect(ctx, cfg, nil)
	if err != nil || c.Local == nil {
		t.Fatalf("without a daemon: %v", err)
	}
	defer c.Close()
	tables := c.Local.Mirror.Tables()
	if len(tables) != 1 || tables[0].Name != "public.t" {
		t.Fatalf("local tables: %+v", tables)
	}
	v, ok, err := c.Local.Mirror.Get(ctx, "public.t", []string{"7"}, c.Local.Mirror.Durable())
	if err != nil || !ok || len(v) == 0 {
		t.Fatalf("local get: %q %v %v", v, ok, err)
	}
}
