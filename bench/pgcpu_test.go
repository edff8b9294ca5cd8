package bench

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
)

// TestParseProcStat checks the fields read from /proc/<pid>/stat, with a
// command name holding spaces and parentheses (the fields are counted
// after its last ')') and the ticks turned into durations (USER_HZ 100).
func TestParseProcStat(t *testing.T) {
	t.Parallel()
	line := "4242 (postgres: a) (b) S 4100 4100 4100 0 -1 4194560 1200 0 0 0 250 37 1500 12 20 0 1 0 99 12345 678 18446744073709551615\n"
	s, err := parseProcStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{pid: 4242, ppid: 4100, utime: 2500 * time.Millisecond, stime: 370 * time.Millisecond, cutime: 15 * time.Second, cstime: 120 * time.Millisecond}
	if s != want {
		t.Errorf("parseProcStat = %+v, want %+v", s, want)
	}
	for _, bad := range []string{"", "12 postgres S 1", "12 (postgres) S 1 2 3", "x (postgres) S 1 1 1 0 -1 0 0 0 0 0 1 1 1 1"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("parseProcStat(%q) accepted", bad)
		}
	}
}

// TestClusterCPUFakeProc checks the sum over a fake /proc: the
// postmaster's own and reaped children's times, its living children's
// own times (not their cutime), and nothing of unrelated processes.
func TestClusterCPUFakeProc(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	stat := func(pid, ppid, ut, st, cut, cst int) {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		line := strconv.Itoa(pid) + " (postgres) S " + strconv.Itoa(ppid) + " 1 1 0 -1 0 0 0 0 0 " +
			strconv.Itoa(ut) + " " + strconv.Itoa(st) + " " + strconv.Itoa(cut) + " " + strconv.Itoa(cst) + " 20 0 1 0\n"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stat(100, 1, 10, 5, 300, 20) // postmaster: 15 ticks own, 320 reaped
	stat(101, 100, 40, 2, 0, 0)  // a backend
	stat(102, 100, 7, 1, 99, 99) // a background process: its cutime is not the cluster's
	stat(200, 1, 5000, 5000, 0, 0)
	stat(201, 200, 5000, 0, 0, 0)
	if err := os.MkdirAll(filepath.Join(root, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := clusterCPU(root, 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := (15 + 320 + 42 + 8) * 10 * time.Millisecond; got != want {
		t.Errorf("clusterCPU = %s, want %s", got, want)
	}
	if _, err := clusterCPU(root, 999); err == nil {
		t.Error("clusterCPU of a missing postmaster answered")
	}
}

// TestPGCPUMeterLive runs queries that take CPU on a throwaway
// PostgreSQL and checks the meter sees it: a serial query's CPU shows
// (above zero, below the wall time × the cores), and a parallel query's
// exited workers are counted through the postmaster's reaped times.
func TestPGCPUMeterLive(t *testing.T) {
	ctx := context.Background()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	t.Logf("PostgreSQL %s", pg.ServerVersionString())
	m, err := newPGCPUMeter(filepath.Join(pg.Dir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	measure := func(sql string) (cpu, wall time.Duration) {
		t.Helper()
		c0, err := m.read()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		wall = time.Since(start)
		c1, err := m.read()
		if err != nil {
			t.Fatal(err)
		}
		return c1 - c0, wall
	}
	cpu, wall := measure("SELECT count(*) FROM generate_series(1, 3000000) g WHERE g % 7 = 3")
	t.Logf("serial: cluster CPU %s, wall %s", cpu, wall)
	if cpu <= 0 {
		t.Errorf("a 3M-row query took %s of PostgreSQL's CPU (wall %s)", cpu, wall)
	}
	if limit := wall*time.Duration(runtime.NumCPU()) + 50*time.Millisecond; cpu > limit {
		t.Errorf("cluster CPU %s exceeds wall %s × %d cores", cpu, wall, runtime.NumCPU())
	}

	if _, err := conn.Exec(ctx, "CREATE TABLE t AS SELECT g AS a, md5(g::text) AS b FROM generate_series(1, 400000) g"); err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"parallel_setup_cost = 0", "parallel_tuple_cost = 0", "min_parallel_table_scan_size = 0", "max_parallel_workers_per_gather = 2"} {
		if _, err := conn.Exec(ctx, "SET "+set); err != nil {
			t.Fatal(err)
		}
	}
	var plan strings.Builder
	rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF) SELECT count(*) FROM t WHERE b LIKE '%ab%'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if !strings.Contains(plan.String(), "Workers Launched: 1") && !strings.Contains(plan.String(), "Workers Launched: 2") {
		t.Skipf("no parallel worker launched:\n%s", plan.String())
	}
	reaped := func() time.Duration {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(m.pid), "stat"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseProcStat(b)
		if err != nil {
			t.Fatal(err)
		}
		return s.cutime + s.cstime
	}
	r0 := reaped()
	var reapedDelta time.Duration
	for range 5 { // a worker's share may round to zero ticks once
		cpu, wall = measure("SELECT count(*) FROM t WHERE b LIKE '%ab%'")
		reapedDelta = reaped() - r0
		t.Logf("parallel: cluster CPU %s, wall %s, reaped by the postmaster %s", cpu, wall, reapedDelta)
		if cpu <= 0 {
			t.Errorf("a parallel scan of 400k rows took %s of PostgreSQL's CPU", cpu)
		}
		if reapedDelta > 0 {
			break
		}
	}
	if reapedDelta <= 0 {
		t.Errorf("five parallel queries' exited workers added nothing to the postmaster's reaped CPU")
	}
}

// TestServerCPUCountsEndedBackends: the server's CPU over a window
// includes a backend that did its work and ended inside it (reaped by
// the postmaster: cutime), as a `\copy` through psql is, and a live
// backend's.
func TestServerCPUCountsEndedBackends(t *testing.T) {
	ctx := t.Context()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop() //nolint:errcheck // the test's own server
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	srv, err := serverOf(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	burn := func(c *pgx.Conn) {
		t.Helper()
		// About a second of one backend's CPU.
		if _, err := c.Exec(ctx, "SELECT count(*) FROM generate_series(1, 20000000)"); err != nil {
			t.Fatal(err)
		}
	}
	c0, err := srv.read()
	if err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := other.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	burn(other)
	st, err := readProcStat("/proc", pid)
	if err != nil {
		t.Fatal(err)
	}
	ended := st.utime + st.stime
	other.Close(ctx)
	// Wait until the postmaster reaped it.
	for deadline := time.Now().Add(time.Minute); ; {
		if _, err := readProcStat("/proc", pid); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend %d still there a minute after its connection closed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c1, err := srv.read()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ended backend's own CPU %s; server's CPU over the window %s", ended, c1-c0)
	if ended < 100*time.Millisecond {
		t.Fatalf("the backend used %s of CPU: the test needs more", ended)
	}
	if c1-c0 < ended {
		t.Fatalf("server's CPU over the window %s < the ended backend's own %s: a reaped backend's CPU is lost", c1-c0, ended)
	}
}
