package daemontest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConfigDefaultsAndOverrides(t *testing.T) {
	url := "postgres://u@127.0.0.1:1/db?sslmode=disable"
	cfg := Config(t, url, []string{"public.a", "public.b"})
	if cfg.Listen != "127.0.0.1:0" || filepath.Base(cfg.DataDir) != "data" || len(cfg.Tables) != 2 {
		t.Fatalf("defaults: listen %q data_dir %q tables %v", cfg.Listen, cfg.DataDir, cfg.Tables)
	}
	// The SQL port is a free one, never the fixed default that tests run
	// in parallel would collide on (issue 26).
	if cfg.SQL.Listen != "127.0.0.1:0" {
		t.Fatalf("defaults: sql.listen %q, want a free port", cfg.SQL.Listen)
	}
	dir := t.TempDir()
	cfg = Config(t, url, []string{"public.a"}, "data_dir: "+dir, "listen: 127.0.0.1:7777")
	if cfg.Listen != "127.0.0.1:7777" || cfg.DataDir != dir {
		t.Fatalf("overrides: listen %q data_dir %q", cfg.Listen, cfg.DataDir)
	}
	// An sql: block without listen gets the free port; one with listen
	// keeps its own.
	cfg = Config(t, url, []string{"public.a"}, "sql:\n  statement_timeout: 5s")
	if cfg.SQL.Listen != "127.0.0.1:0" || cfg.SQL.StatementTimeout != 5*time.Second {
		t.Fatalf("sql block without listen: sql.listen %q statement_timeout %s", cfg.SQL.Listen, cfg.SQL.StatementTimeout)
	}
	cfg = Config(t, url, []string{"public.a"}, "sql:\n  listen: \"\"")
	if cfg.SQL.Listen != "" {
		t.Fatalf("sql.listen \"\" (off) became %q", cfg.SQL.Listen)
	}
}

func TestPollHonoursItsCeiling(t *testing.T) {
	start := time.Now()
	if err := Poll(200*time.Millisecond, func() bool { return false }); err == nil {
		t.Fatal("a condition never met: no error")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a 200 ms poll took %s", d)
	}
	n := 0
	if err := Poll(0, func() bool { n++; return n == 3 }); err != nil || n != 3 {
		t.Fatalf("poll until the third call: %v after %d", err, n)
	}
}

func TestProcessKill9AndExit(t *testing.T) {
	p := StartProcess(t, exec.Command("sleep", "600"))
	if _, ok := p.Exited(); ok {
		t.Fatal("sleep exited at once")
	}
	if err := p.Kill9(); err != nil {
		t.Fatal(err)
	}
	if err, ok := p.Exited(); !ok || err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("after Kill9: %v %v", err, ok)
	}
	q := StartProcess(t, exec.Command("sh", "-c", "echo said; exit 3"))
	err, ok := q.Wait(0)
	if !ok || err == nil || !strings.Contains(q.Output(), "said") {
		t.Fatalf("exit 3: %v %v output %q", err, ok, q.Output())
	}
	if err := q.Kill9(); err == nil {
		t.Fatal("Kill9 of an exited process: no error")
	}
}
