package exec_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// genSource generates table sp's rows as spillScaleFill does, reading
// nothing from memory: the statement's memory is all the process holds.
type genSource struct{ n int }

func (g genSource) Scan(ctx context.Context, t *plan.TableDef, fn func(row []*string) error) error {
	row := make([]*string, 4)
	var id, grp, x, s string
	for i := 1; i <= g.n; i++ {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		id, grp = strconv.Itoa(i), strconv.Itoa(i%7)
		x = strconv.FormatInt(int64(i)*7919%10000019, 10)
		s = "v" + strconv.Itoa(i%1000003)
		row[0], row[1], row[2], row[3] = &id, &grp, &x, &s
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

// spillScaleFill fills sp on PostgreSQL as genSource generates it.
const spillScaleFill = `INSERT INTO sp SELECT i, i % 7, (i::int8 * 7919 % 10000019)::int4, 'v' || (i % 1000003) FROM generate_series(1, %d) i`

// TestSpillScale (SIDECAR_SPILL_ROWS=n; skipped without): DISTINCT
// aggregates and windows over n generated rows at 4 MB of working memory
// answer as PostgreSQL, write runs, and keep the process's peak RSS
// (VmHWM) under 1 GiB with GOMEMLIMIT 512 MiB; the times of both are
// logged. Run it alone: go test -run TestSpillScale -v ./sql/exec.
func TestSpillScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIDECAR_SPILL_ROWS"))
	if n <= 0 {
		t.Skip("SIDECAR_SPILL_ROWS not set")
	}
	debug.SetMemoryLimit(512 << 20)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgc.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	ddl := "CREATE TABLE sp (id int4, g int4, x int4, t text)"
	start := time.Now()
	if _, err := conn.Exec(ctx, ddl); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, strings.Replace(spillScaleFill, "%d", strconv.Itoa(n), 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE sp"); err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL: %d rows loaded in %v", n, time.Since(start).Round(time.Millisecond))
	file := filepath.Join(t.TempDir(), "sp.sql")
	if err := os.WriteFile(file, []byte(ddl+";\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cat, err := plantest.LoadCatalog(file)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, q := range []string{
		"SELECT count(DISTINCT x), sum(DISTINCT x), count(DISTINCT t) FROM sp",
		"SELECT g, count(DISTINCT x), avg(DISTINCT x) FROM sp GROUP BY g ORDER BY g",
		"SELECT count(*), sum(rn), max(rn), sum(s) FROM (SELECT row_number() OVER (PARTITION BY g ORDER BY x) rn, sum(x) OVER (ORDER BY id) s FROM sp) q",
	} {
		start := time.Now()
		want := pgAnswer(ctx, conn, q)
		pgTime := time.Since(start)
		runtime.GC()
		start = time.Now()
		got, runs := runSQLCounted(cat, genSource{n}, q, exec.Options{WorkMem: 4 << 20, TempDir: tmp})
		exTime := time.Since(start)
		load, _ := os.ReadFile("/proc/loadavg")
		t.Logf("%s: PostgreSQL %v, sql/exec %v (%.2f×), %d runs, VmHWM %d MiB, load %s", q, pgTime.Round(time.Millisecond), exTime.Round(time.Millisecond),
			exTime.Seconds()/pgTime.Seconds(), runs, vmHWM()>>20, strings.Fields(string(load))[0])
		if normalize(got) != normalize(want) {
			t.Errorf("%s:\nsidecar:\n%.500s\npostgres:\n%.500s", q, got, want)
		}
		if runs == 0 {
			t.Errorf("%s: no run written at 4 MB", q)
		}
	}
	if hwm := vmHWM(); hwm > 1<<30 {
		t.Errorf("peak RSS %d MiB, want under 1 GiB", hwm>>20)
	}
}

// vmHWM is the process's peak resident set (bytes; 0 when unknown).
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
