package exec_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// akFill fills ak on PostgreSQL as newAKSource generates it: g has
// about n/10 groups (every tenth NULL), d 4,000 dates, x distinct
// values in scrambled order (n < 10,000,019).
const akFill = `INSERT INTO ak SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE (i * 7) % (NROWS / 10 + 1) END,
 DATE '2000-01-01' + (i % 4000), (i::int8 * 7919 % 10000019)::int4, 'v' || (i % 1000)
 FROM generate_series(1, NROWS) i`

const akDDL = "CREATE TABLE ak (id int8, g int4, d date, x int4, t text)"

// newAKSource is ak's n rows, typed and boxed as the HEAD's typed scan
// hands them (lineitemSource serves any rows so).
func newAKSource(n int) *lineitemSource {
	s := &lineitemSource{rows: make([][]types.Value, n)}
	base, _ := types.In(plan.Date, -1, "2000-01-01")
	for i := 1; i <= n; i++ {
		var g types.Value
		if i%10 != 0 {
			g = int64(i*7) % int64(n/10+1)
		}
		s.rows[i-1] = []types.Value{int64(i), g, base.(types.DateVal) + types.DateVal(i%4000),
			int64(i) * 7919 % 10000019, "v" + strconv.Itoa(i%1000)}
	}
	return s
}

// TestAggKeysScale (SIDECAR_AGGKEYS_ROWS=n; skipped without) times
// grouping by an integer and a date column, a top-N and count(DISTINCT)
// at 4 MB of working memory over n generated rows against PostgreSQL on
// the same rows, alternating which runs first, and logs each side's
// median of SIDECAR_AGGKEYS_REPS runs (3 by default), their ratio and
// the load; every answer must equal PostgreSQL's. Run it alone:
// SIDECAR_AGGKEYS_ROWS=1000000 go test -run TestAggKeysScale -v ./sql/exec.
func TestAggKeysScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIDECAR_AGGKEYS_ROWS"))
	if n <= 0 {
		t.Skip("SIDECAR_AGGKEYS_ROWS not set")
	}
	reps, _ := strconv.Atoi(os.Getenv("SIDECAR_AGGKEYS_REPS"))
	if reps <= 0 {
		reps = 3
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgc.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range []string{akDDL, strings.ReplaceAll(akFill, "NROWS", strconv.Itoa(n)), "VACUUM ANALYZE ak", "SET max_parallel_workers_per_gather = 0"} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "ak.sql")
	if err := os.WriteFile(file, []byte(akDDL+";\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cat, err := plantest.LoadCatalog(file)
	if err != nil {
		t.Fatal(err)
	}
	src := newAKSource(n)
	tmp := t.TempDir()
	for _, c := range []struct {
		sql     string
		workMem int64
	}{
		{"SELECT g, count(*), sum(x) FROM ak GROUP BY g", 0},
		{"SELECT d, count(*), max(x) FROM ak GROUP BY d", 0},
		{"SELECT id, x, t FROM ak ORDER BY x LIMIT 10", 0},
		{"SELECT count(DISTINCT x) FROM ak", 4 << 20},
		{"SELECT (d - DATE '2000-01-01') % 7 AS w, count(DISTINCT x) FROM ak GROUP BY 1", 4 << 20},
	} {
		pgWM := "64MB"
		if c.workMem > 0 {
			pgWM = strconv.FormatInt(c.workMem>>20, 10) + "MB"
		}
		if _, err := conn.Exec(ctx, "SET work_mem = '"+pgWM+"'"); err != nil {
			t.Fatal(err)
		}
		var pgT, exT []time.Duration
		var got, want string
		for r := 0; r < reps; r++ {
			pgRun := func() {
				start := time.Now()
				want = pgAnswer(ctx, conn, c.sql)
				pgT = append(pgT, time.Since(start))
			}
			exRun := func() {
				runtime.GC()
				start := time.Now()
				got, _ = runSQLCounted(cat, src, c.sql, exec.Options{WorkMem: max(c.workMem, 64<<20), TempDir: tmp})
				exT = append(exT, time.Since(start))
			}
			if r%2 == 0 {
				pgRun()
				exRun()
			} else {
				exRun()
				pgRun()
			}
		}
		load, _ := os.ReadFile("/proc/loadavg")
		pm, em := median(pgT), median(exT)
		t.Logf("%s (work_mem %s): PostgreSQL %v, sql/exec %v: %.2f× (medians of %d; load %s)", c.sql, pgWM,
			pm.Round(time.Millisecond), em.Round(time.Millisecond), em.Seconds()/pm.Seconds(), reps, strings.Fields(string(load))[0])
		if normalize(got) != normalize(want) {
			t.Errorf("%s:\nsidecar:\n%.500s\npostgres:\n%.500s", c.sql, got, want)
		}
	}
}

// median is ds's median (ds not empty).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkGroupByInt groups 1M generated rows by an int4 column of
// about 100,000 groups (every tenth key NULL), as TestAggKeysScale's
// first query, without PostgreSQL.
func BenchmarkGroupByInt(b *testing.B) {
	benchAK(b, "SELECT g, count(*), sum(x) FROM ak GROUP BY g", 0)
}

// BenchmarkCountDistinctSpill is count(DISTINCT) over 1M generated rows
// at 4 MB of working memory (the values written to runs and merged).
func BenchmarkCountDistinctSpill(b *testing.B) {
	benchAK(b, "SELECT count(DISTINCT x) FROM ak", 4<<20)
}

// BenchmarkGroupedCountDistinctSpill is count(DISTINCT) in 7 groups
// over 1M generated rows at 4 MB of working memory.
func BenchmarkGroupedCountDistinctSpill(b *testing.B) {
	benchAK(b, "SELECT (d - DATE '2000-01-01') % 7 AS w, count(DISTINCT x) FROM ak GROUP BY 1", 4<<20)
}

func benchAK(b *testing.B, sql string, workMem int64) {
	file := filepath.Join(b.TempDir(), "ak.sql")
	if err := os.WriteFile(file, []byte(akDDL+";\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	cat, err := plantest.LoadCatalog(file)
	if err != nil {
		b.Fatal(err)
	}
	src := newAKSource(1_000_000)
	p := preparePlan(b, cat, sql)
	tmp := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		rows := 0
		if err := p.Run(context.Background(), src, exec.Options{WorkMem: max(workMem, 64<<20), TempDir: tmp}, func(bt *exec.Batch) error { rows += bt.N; return nil }); err != nil {
			b.Fatal(err)
		}
		if rows == 0 {
			b.Fatal("no rows")
		}
	}
}
