package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

var pg *pgtest.Cluster

// beMain makes the test binary act as the sidecar binary when re-executed
// by a test (see sidecarProcess): the real main, real signals, real exit.
const beMain = "BE_SIDECAR_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(beMain) == "1" {
		main()
		return
	}
	os.Exit(pgtest.RunMain(m, pgtest.Options{Settings: map[string]string{"logical_decoding_work_mem": "64kB"}}, func(c *pgtest.Cluster) { pg = c }))
}

// configFor writes a config following tables on url.
func configFor(t *testing.T, url string, tables string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "sidecar.yaml")
	body := "postgres:\n  url: " + url + "\ntables: [" + tables + "]\ndata_dir: " + filepath.Join(dir, "data") + "\nsql:\n  listen: 127.0.0.1:0\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func mustExec(t *testing.T, url string, sqls ...string) {
	t.Helper()
	daemontest.Exec(t, url, sqls...)
}

func TestCheckReadyClusterExits0(t *testing.T) {
	url := pg.NewDB(t)
	mustExec(t, url, "CREATE TABLE accounts (id bigint PRIMARY KEY, balance numeric)")
	out, errOut, code := sidecar(t, "check", "--config", configFor(t, url, "public.accounts"))
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "wal_level") || !strings.Contains(out, "accounts") {
		t.Errorf("report does not mention wal_level and the table:\n%s", out)
	}

	out, _, code = sidecar(t, "check", "--config", configFor(t, url, "public.accounts"), "--format", "json")
	var rep struct {
		Ready  bool `json:"ready"`
		Checks []struct {
			Name, Status string
		} `json:"checks"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || !rep.Ready || len(rep.Checks) == 0 {
		t.Errorf("json report: exit %d %s", code, out)
	}
}

func TestCheckTableWithoutKeyExits2NamingIt(t *testing.T) {
	url := pg.NewDB(t)
	mustExec(t, url, "CREATE TABLE events (at timestamptz, payload text)")
	out, _, code := sidecar(t, "check", "--config", configFor(t, url, "public.events"))
	if code != exitUsage {
		t.Fatalf("exit %d, want 2:\n%s", code, out)
	}
	if !strings.Contains(out, "FAIL") || !strings.Contains(out, "events") || !strings.Contains(out, "primary key") ||
		!strings.Contains(out, "REPLICA IDENTITY FULL") {
		t.Errorf("report does not name the keyless table and both fixes:\n%s", out)
	}
}

func TestCheckKeylessFullTableIsReady(t *testing.T) {
	url := pg.NewDB(t)
	mustExec(t, url, "CREATE TABLE events (at timestamptz, payload text)", "ALTER TABLE events REPLICA IDENTITY FULL")
	out, _, code := sidecar(t, "check", "--config", configFor(t, url, "public.events"))
	if code != 0 || !strings.Contains(out, "multiset") {
		t.Fatalf("exit %d, want 0 and the table followed as a multiset:\n%s", code, out)
	}
}

func TestCheckWalLevelReplicaExits2SayingWhatToChange(t *testing.T) {
	c, err := pgtest.Start(context.Background(), pgtest.Options{WALLevel: "replica"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	url := c.NewDB(t)
	mustExec(t, url, "CREATE TABLE accounts (id bigint PRIMARY KEY)")
	out, _, code := sidecar(t, "check", "--config", configFor(t, url, "accounts"))
	if code != exitUsage {
		t.Fatalf("exit %d, want 2:\n%s", code, out)
	}
	if !strings.Contains(out, "FAIL wal_level") || !strings.Contains(out, "wal_level = logical") {
		t.Errorf("report does not say which setting to change:\n%s", out)
	}
}

func TestCheckUnreachableServerNeverPrintsPassword(t *testing.T) {
	const pw = "Tr0ub4dor-and-3"
	url := "postgres://someone:" + pw + "@127.0.0.1:1/app?sslmode=disable&connect_timeout=2"
	out, errOut, code := sidecar(t, "check", "--config", configFor(t, url, "accounts"))
	if code != exitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(out, "connection") {
		t.Errorf("no connection failure reported:\n%s", out)
	}
	if strings.Contains(out+errOut, pw) {
		t.Errorf("password printed:\n%s\n%s", out, errOut)
	}
}
