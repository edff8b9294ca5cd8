package sqldiff_test

import (
	"context"
	"os"
	"path/filepath"
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
// (default 2).
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
	sc, err := sqldiff.Follow(ctx, sqldiff.FollowOptions{PGURL: url, Tables: tables, Dir: t.TempDir(), StatementTimeout: 10 * time.Minute, MemoryLimit: "3GiB", WarmHead: os.Getenv("SIDECAR_TPCH_COLD") == ""})
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
	for _, n := range queries {
		f, err := os.Create(filepath.Join(dir, "q"+strconv.Itoa(n)+".pprof"))
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < reps; r++ {
			qs, cpu0 := time.Now(), cpuTime(t)
			rows, err := conn.Query(ctx, tpch.Queries[n-1], pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			for rows.Next() {
				got++
			}
			if err := rows.Err(); err != nil {
				t.Errorf("Q%d: %v", n, err)
			}
			t.Logf("Q%d run %d: %d rows in %s (process CPU %s)", n, r+1, got, time.Since(qs), cpuTime(t)-cpu0)
		}
		pprof.StopCPUProfile()
		f.Close()
	}
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
