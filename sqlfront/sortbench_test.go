package sqlfront_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestSortBench measures top-N and the external sort against PostgreSQL
// on a table of SIDECAR_SORT_BENCH rows (skipped when unset): wall time
// of each statement on both (best of 3), the Go heap's peak during the
// sidecar's run above the heap before it, and the load average.
func TestSortBench(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIDECAR_SORT_BENCH"))
	if n <= 0 {
		t.Skip("SIDECAR_SORT_BENCH=<rows> runs it")
	}
	r := newRig(t, []string{"public.sb"}, []string{
		"CREATE TABLE sb (id int PRIMARY KEY, note text, g int)",
		"INSERT INTO sb SELECT i, md5(i::text), i % 13 FROM generate_series(1, " + strconv.Itoa(n) + ") i",
		"ANALYZE sb",
	})
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		q   string
		mem int64
	}{
		{"SELECT * FROM sb ORDER BY note DESC, id LIMIT 1", 1 << 20},
		{"SELECT * FROM sb ORDER BY note DESC, id LIMIT 100 OFFSET 1000", 1 << 20},
		{"SELECT * FROM (SELECT * FROM sb WHERE id <= 1000000) s ORDER BY note DESC, id LIMIT 1", 1 << 20},
		{"SELECT * FROM (SELECT * FROM sb WHERE id <= 1000000) s ORDER BY note DESC, id", 1 << 20},
		{"SELECT * FROM (SELECT * FROM sb WHERE id <= 1000000) s ORDER BY note DESC, id", 64 << 20},
	}
	pgc, err := pgx.Connect(ctx, r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("rows %d, load average before: %s", n, load)
	for _, c := range cases {
		pool := membudget.NewPool("memory.query", c.mem)
		url := "postgres://app@" + r.serve(t, sqlfront.Options{QueryMemory: pool, TempDir: tmp, MaxConnections: 5, StatementTimeout: 10 * time.Minute}) + "/app?sslmode=disable"
		sc, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		drain := func(conn *pgx.Conn) (time.Duration, int) {
			start := time.Now()
			rows, err := conn.Query(ctx, c.q)
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			for rows.Next() {
				k++
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				t.Fatalf("%s: %v", c.q, err)
			}
			return time.Since(start), k
		}
		best := func(conn *pgx.Conn) (time.Duration, int) {
			var b time.Duration
			var k int
			for i := 0; i < 3; i++ {
				d, kk := drain(conn)
				if i == 0 || d < b {
					b, k = d, kk
				}
			}
			return b, k
		}
		pgT, pgN := best(pgc)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		var peak uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // the sampler: owned by this case, stopped below
			defer wg.Done()
			for {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		scT, scN := best(sc)
		close(stop)
		wg.Wait()
		sc.Close(ctx)
		if pgN != scN {
			t.Errorf("%s: PostgreSQL %d rows, sidecar %d", c.q, pgN, scN)
		}
		var over int64
		if peak > base {
			over = int64(peak - base)
		}
		t.Logf("%-95s memory.query %-6s rows %7d  PostgreSQL %8.1f ms  sidecar %8.1f ms  ratio %5.2f  sidecar heap peak +%s, pool peak %s",
			c.q, membudget.FormatBytes(c.mem), scN, pgT.Seconds()*1000, scT.Seconds()*1000, scT.Seconds()/pgT.Seconds(), membudget.FormatBytes(over), membudget.FormatBytes(pool.Peak()))
	}
	load, _ = os.ReadFile("/proc/loadavg")
	t.Logf("load average after: %s", load)
}
