package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/wal"
)

// proc is `sidecar` running as a separate process (the test binary
// re-executed as main), on internal/testkit/daemontest's Process.
type proc struct {
	*daemontest.Process
	cmd *exec.Cmd
}

func sidecarProcess(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), beMain+"=1")
	cmd.Stdout = io.Discard
	return &proc{Process: daemontest.StartProcess(t, cmd), cmd: cmd}
}

func (p *proc) output() string { return p.Output() }

var readyLine = regexp.MustCompile(`msg="sidecar ready" listen=(\S+)`)

// awaitReady waits up to within for the process's ready line and returns
// the API's base URL; exited says it ended first (err: how), and an
// error without exited is the timeout.
func (p *proc) awaitReady(within time.Duration) (base string, exited bool, err error) {
	err = daemontest.Poll(within, func() bool {
		if m := readyLine.FindStringSubmatch(p.Output()); m != nil {
			base = "http://" + m[1]
			return true
		}
		_, exited = p.Exited()
		return exited
	})
	if exited {
		err, _ = p.Exited()
	}
	return base, exited, err
}

func (p *proc) waitListen(t *testing.T) string {
	t.Helper()
	base, exited, err := p.awaitReady(0)
	if exited {
		t.Fatalf("sidecar exited before ready: %v\n%s", err, p.output())
	}
	if err != nil {
		t.Fatalf("sidecar not ready within %s\n%s", daemontest.Ceiling, p.output())
	}
	return base
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	err, ok := p.Wait(within)
	if !ok {
		t.Fatalf("sidecar did not exit within %s\n%s", within, p.output())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

func httpBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func waitFor(t *testing.T, what string, within time.Duration, ok func() bool) {
	t.Helper()
	daemontest.Eventually(t, what, within, ok)
}

func runConfig(t *testing.T, url, tables string) (file, dataDir string) {
	t.Helper()
	dir := t.TempDir()
	file = filepath.Join(dir, "sidecar.yaml")
	dataDir = filepath.Join(dir, "data")
	// Both ports free ones: the SQL port's default 7433 collides when
	// tests run in parallel.
	body := fmt.Sprintf("postgres:\n  url: %s\ntables: [%s]\ndata_dir: %s\nlisten: 127.0.0.1:0\nsql:\n  listen: 127.0.0.1:0\n", url, tables, dataDir)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, dataDir
}

// setSQLListen points runConfig's SQL port at addr (a test that must
// know the port picks a free one first); appending a second sql: section
// would make the YAML invalid.
func setSQLListen(t *testing.T, file, addr string) {
	t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const from = "sql:\n  listen: 127.0.0.1:0\n"
	if !bytes.Contains(body, []byte(from)) {
		t.Fatalf("%s: no %q to replace", file, from)
	}
	body = bytes.Replace(body, []byte(from), []byte("sql:\n  listen: "+addr+"\n"), 1)
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
}

// queryLSN runs a query answering one LSN as text (NULL: 0), failing the
// test on an error (daemontest.QueryLSN).
func queryLSN(t *testing.T, url, sql string, args ...any) wal.LSN {
	t.Helper()
	l, err := daemontest.QueryLSN(url, sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRunProcessSIGTERMMidStream is issue 5's check: `sidecar run` as a
// process, /metrics and /readyz scraped, SIGTERM while writes stream in:
// exit 0, and the slot acknowledges exactly what is durable.
func TestRunProcessSIGTERMMidStream(t *testing.T) {
	url := pg.NewDB(t)
	mustExec(t, url, "CREATE TABLE items (id int PRIMARY KEY, n bigint NOT NULL, note text)",
		"INSERT INTO items SELECT g, 0, 'item ' || g FROM generate_series(1, 500) g")
	file, dataDir := runConfig(t, url, "public.items")
	p := sidecarProcess(t, "run", "--config", file)
	base := p.waitListen(t)
	waitFor(t, "readyz 200", 60*time.Second, func() bool { code, _ := httpBody(t, base+"/readyz"); return code == 200 })

	// A steady write load: single-row transactions.
	ctx, stopLoad := context.WithCancel(context.Background())
	var writes atomic.Int64
	loadDone := make(chan error, 1)
	go func() {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			loadDone <- err
			return
		}
		defer conn.Close(context.Background())
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := conn.Exec(ctx, "UPDATE items SET n = n + 1 WHERE id = $1", 1+i%500); err != nil && ctx.Err() == nil {
				loadDone <- err
				return
			}
			writes.Add(1)
		}
		loadDone <- nil
	}()
	waitFor(t, "some commits applied", 30*time.Second, func() bool {
		_, m := httpBody(t, base+"/metrics")
		return regexp.MustCompile(`sidecar_transactions_applied_total\{streamed="false"\} [1-9]\d\d`).MatchString(m)
	})
	code, metrics := httpBody(t, base+"/metrics")
	for _, want := range []string{"sidecar_lag_bytes", "sidecar_durable_lsn", `sidecar_rows_applied_total{kind="update"}`, "sidecar_apply_batch_seconds", "sidecar_badger_"} {
		if code != 200 || !strings.Contains(metrics, want) {
			t.Errorf("/metrics (%d) lacks %s", code, want)
		}
	}
	if code, body := httpBody(t, base+"/readyz"); code != 200 {
		t.Errorf("readyz under load: %d %s", code, body)
	}
	// verify through the daemon's API, while the writes go on.
	if out, errOut, code := sidecar(t, "verify", "--config", file, "--listen", strings.TrimPrefix(base, "http://")); code != 0 || !strings.Contains(out, "public.items") {
		t.Errorf("verify under load through the daemon: exit %d\n%s\n%s", code, out, errOut)
	}
	// gc through the daemon's API, beside the stream (the final row
	// comparison after restart checks nothing was lost).
	if out, errOut, code := sidecar(t, "gc", "--config", file, "--listen", strings.TrimPrefix(base, "http://")); code != 0 || !strings.Contains(out, "live nodes") {
		t.Errorf("gc under load through the daemon: exit %d\n%s\n%s", code, out, errOut)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0\n%s", code, p.output())
	}
	stopLoad()
	if err := <-loadDone; err != nil {
		t.Fatal(err)
	}
	durable, _ := mirrortest.MirrorRows(t, dataDir, "public.items")
	confirmed := queryLSN(t, url, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = 'sidecar'")
	if confirmed != durable {
		t.Fatalf("after SIGTERM: slot confirmed_flush_lsn %s, mirror durable %s\n%s", confirmed, durable, p.output())
	}
	t.Logf("%d writes; stopped at durable %s", writes.Load(), durable)

	// Restart, catch up, and compare every row.
	p2 := sidecarProcess(t, "run", "--config", file)
	base2 := p2.waitListen(t)
	target := queryLSN(t, url, "SELECT pg_current_wal_insert_lsn()::text")
	mustExec(t, url, "UPDATE items SET note = note WHERE id = 1") // a marker commit past target
	waitFor(t, "catch up after restart", 60*time.Second, func() bool {
		_, m := httpBody(t, base2+"/api/status")
		d := regexp.MustCompile(`"durable_lsn": "([^"]+)"`).FindStringSubmatch(m)
		if d == nil {
			return false
		}
		l, _ := wal.ParseLSN(d[1])
		return l > target
	})
	p2.cmd.Process.Signal(syscall.SIGINT)
	if code := p2.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGINT\n%s", code, p2.output())
	}
	_, got := mirrortest.MirrorRows(t, dataDir, "public.items")
	if want := mirrortest.PGRows(t, url, "items"); !slices.Equal(got, want) {
		t.Fatalf("mirror and PostgreSQL differ after restart (%d vs %d rows)", len(got), len(want))
	}

	// status reads the stopped mirror and the slot from PostgreSQL.
	out, errOut, code := sidecar(t, "status", "--config", file)
	if code != 0 || !strings.Contains(out, "phase") || !strings.Contains(out, "stopped") || !strings.Contains(out, "public.items") || !strings.Contains(out, "wal_status") {
		t.Errorf("status: exit %d\n%s\n%s", code, out, errOut)
	}

	// gc runs on the stopped mirror and keeps every version readable.
	out, errOut, code = sidecar(t, "gc", "--config", file)
	if code != 0 || !strings.Contains(out, "live nodes") || !strings.Contains(out, "bytes before") {
		t.Errorf("gc: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, after := mirrortest.MirrorRows(t, dataDir, "public.items"); !slices.Equal(after, got) {
		t.Error("gc changed what HEAD reads")
	}
}

func httpBodyNoT(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func jsonUnmarshal(s string, out any) error { return json.Unmarshal([]byte(s), out) }
