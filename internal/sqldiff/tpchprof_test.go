package sqldiff_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/bench/tpch"
	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

// TestTPCHProfile times TPC-H queries on the SQL port of an in-process
// daemon following a generated database, with a CPU profile of the
// queries alone (not the load). It is a tool, not a check: it runs only
// when SIDECAR_TPCH_PROFILE names a directory for the profiles.
// SIDECAR_TPCH_SF is the scale factor (default 0.1), SIDECAR_TPCH_QUERIES
// the query numbers (default "1"), SIDECAR_TPCH_REPS the runs of each
// (default 2), SIDECAR_TPCH_MEMORY the daemon's memory.limit (default
// 3GiB). Beside each query's CPU profile it writes an allocation profile
// (q<N>.alloc.pprof, the allocations made during the query) and the
// daemon's /metrics before and after the query (q<N>.metrics).
// SIDECAR_TPCH_EXPLAIN set logs each query's EXPLAIN first;
// SIDECAR_TPCH_PROCS alternates GOMAXPROCS between runs, and each run
// logs its run-queue wait (runQueueWait).
// SIDECAR_TPCH_EXTRA names a file of more statements (one per line,
// "--" lines skipped) run after the TPC-H queries as E1, E2, … (shapes
// TPC-H does not have: GROUP BY an expression, a subquery in FROM).
func TestTPCHProfile(t *testing.T) {
	dir := os.Getenv("SIDECAR_TPCH_PROFILE")
	if dir == "" {
		t.Skip("SIDECAR_TPCH_PROFILE is not set")
	}
	sf, reps, queries := 0.1, 2, []int{1}
	if s := os.Getenv("SIDECAR_TPCH_SF"); s != "" {
		var err error
		if sf, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatal(err)
		}
	}
	if s := os.Getenv("SIDECAR_TPCH_REPS"); s != "" {
		var err error
		if reps, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	if s := os.Getenv("SIDECAR_TPCH_QUERIES"); s != "" {
		queries = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > len(tpch.Queries) {
				t.Fatalf("query %q", f)
			}
			queries = append(queries, n)
		}
	}
	// SIDECAR_TPCH_PROCS ("2,4"): the runs of each query alternate
	// GOMAXPROCS over these values (the scan's workers follow it).
	var procs []int
	if s := os.Getenv("SIDECAR_TPCH_PROCS"); s != "" {
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				t.Fatalf("SIDECAR_TPCH_PROCS %q", s)
			}
			procs = append(procs, n)
		}
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	}
	type query struct{ name, sql string }
	var run []query
	for _, n := range queries {
		run = append(run, query{"Q" + strconv.Itoa(n), tpch.Queries[n-1]})
	}
	if f := os.Getenv("SIDECAR_TPCH_EXTRA"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
				run = append(run, query{"E" + strconv.Itoa(len(run)-len(queries)+1), strings.TrimSuffix(l, ";")})
			}
		}
	}
	ctx := context.Background()
	url := pg.NewDB(t)
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := tpch.Load(ctx, c, sf, 1); err != nil {
		c.Close(ctx)
		t.Fatal(err)
	}
	c.Close(ctx)
	tables := tpch.PublicTables()
	sc, err := sqldiff.Follow(ctx, sqldiff.FollowOptions{PGURL: url, Tables: tables, Dir: t.TempDir(), StatementTimeout: 10 * time.Minute, MemoryLimit: envOr("SIDECAR_TPCH_MEMORY", "3GiB"), WarmHead: os.Getenv("SIDECAR_TPCH_COLD") == ""})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Stop()
	t.Logf("loaded and followed SF %g in %s", sf, time.Since(start))
	conn, err := pgx.Connect(ctx, sc.SQLURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range run {
		if os.Getenv("SIDECAR_TPCH_EXPLAIN") != "" {
			rows, err := conn.Query(ctx, "EXPLAIN "+q.sql, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				t.Fatal(err)
			}
			var plan strings.Builder
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan.WriteString(line + "\n")
			}
			if err := rows.Err(); err != nil {
				t.Errorf("EXPLAIN %s: %v", q.name, err)
			}
			t.Logf("EXPLAIN %s:\n%s", q.name, plan.String())
		}
		f, err := os.Create(filepath.Join(dir, strings.ToLower(q.name)+".pprof"))
		if err != nil {
			t.Fatal(err)
		}
		metricsBefore := scrape(t, sc.APIAddr)
		runtime.GC()
		allocs0 := pprof.Lookup("allocs")
		var before strings.Builder
		_ = allocs0.WriteTo(&before, 0)
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < reps; r++ {
			if len(procs) > 0 {
				runtime.GOMAXPROCS(procs[r%len(procs)])
			}
			qs, cpu0, wait0 := time.Now(), cpuTime(t), runQueueWait()
			rows, err := conn.Query(ctx, q.sql, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			for rows.Next() {
				got++
			}
			if err := rows.Err(); err != nil {
				t.Errorf("%s: %v", q.name, err)
			}
			t.Logf("%s run %d: %d rows in %s (process CPU %s, run-queue wait %s, GOMAXPROCS %d)", q.name, r+1, got, time.Since(qs), cpuTime(t)-cpu0, runQueueWait()-wait0, runtime.GOMAXPROCS(0))
		}
		pprof.StopCPUProfile()
		f.Close()
		// The allocation profile is cumulative: pprof -base with
		// q<N>.alloc0.pprof subtracts what came before the query.
		writeProfile(t, filepath.Join(dir, strings.ToLower(q.name)+".alloc0.pprof"), before.String())
		var after strings.Builder
		_ = pprof.Lookup("allocs").WriteTo(&after, 0)
		writeProfile(t, filepath.Join(dir, strings.ToLower(q.name)+".alloc.pprof"), after.String())
		writeProfile(t, filepath.Join(dir, strings.ToLower(q.name)+".metrics"), "# before\n"+metricsBefore+"# after\n"+scrape(t, sc.APIAddr))
	}
}

// envOr is the environment variable k, or def when it is empty.
func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// scrape is the daemon's /metrics text.
func scrape(t *testing.T, apiAddr string) string {
	resp, err := http.Get("http://" + apiAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeProfile(t *testing.T, path, body string) {
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runQueueWait is the time this process's threads have spent runnable
// but waiting for a CPU so far (the second field of each
// /proc/self/task/*/schedstat; 0 where the kernel has no schedstat): a
// query whose wall time is much more than its CPU time and whose
// run-queue wait grows by about its wall time was runnable, not blocked.
func runQueueWait() time.Duration {
	tasks, _ := filepath.Glob("/proc/self/task/*/schedstat")
	var ns int64
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if fs := strings.Fields(string(b)); len(fs) >= 2 {
			n, _ := strconv.ParseInt(fs[1], 10, 64)
			ns += n
		}
	}
	return time.Duration(ns)
}

// cpuTime is the process's user and system CPU time so far (the daemon
// runs in this process: a query's CPU, with the daemon's background work
// beside it, less sensitive to the machine's load than its wall time).
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
