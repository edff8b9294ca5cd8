package exec_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
)

// spillTable is the table the spill differential tests fill on
// PostgreSQL with generate_series and read back for sql/exec.
const spillTable = `CREATE TABLE sp (id int4, g int4, x int4, t text, f float8, n numeric)`

// spillFill: 60,000 rows, 40,000 distinct x (NULL every 13th), 30,000
// distinct t, floats whose sum depends on the order of addition.
const spillFill = `INSERT INTO sp SELECT i, i % 7, CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7919) % 40000 END,
	'v' || (i % 30000), (i % 5000) / 7.0::float8, (i % 3000)::numeric / 4 FROM generate_series(1, 60000) i`

// spillSetup fills sp on a new database of the test cluster and gives
// the catalog and rows for sql/exec.
func spillSetup(ctx context.Context, t *testing.T) (*pgx.Conn, *plantest.Catalog, *memSource) {
	conn, err := pgx.Connect(ctx, pgc.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{spillTable, spillFill} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := conn.Query(ctx, "SELECT * FROM sp", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	var data [][]*string
	for rows.Next() {
		var r []*string
		for _, v := range rows.RawValues() {
			if v == nil {
				r = append(r, nil)
			} else {
				s := string(v)
				r = append(r, &s)
			}
		}
		data = append(data, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	ddl := filepath.Join(t.TempDir(), "sp.sql")
	if err := os.WriteFile(ddl, []byte(spillTable+";\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cat, err := plantest.LoadCatalog(ddl)
	if err != nil {
		t.Fatal(err)
	}
	return conn, cat, &memSource{rows: map[string][][]*string{"sp": data}}
}

// spillCase is a statement, whether its answer's row order is
// PostgreSQL's (ORDER BY), and whether it must write runs at 200kB.
type spillCase struct {
	sql     string
	ordered bool
	runs    bool
}

// checkSpilled runs each case on PostgreSQL and on sql/exec at 200kB of
// working memory with a temporary directory: the same answer, runs
// written where expected, no file left; and without a temporary
// directory, the working-memory refusal (53200) the spill replaces.
func checkSpilled(t *testing.T, cases []spillCase) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, cat, src := spillSetup(ctx, t)
	defer conn.Close(context.Background())
	tmp := t.TempDir()
	for _, c := range cases {
		want := pgAnswer(ctx, conn, c.sql)
		if strings.HasPrefix(want, "error") {
			t.Fatalf("%s: PostgreSQL: %s", c.sql, want)
		}
		got, runs := runSQLCounted(cat, src, c.sql, exec.Options{WorkMem: 200 << 10, TempDir: tmp})
		g, w := normalize(got), normalize(want)
		if c.ordered {
			g, w = got, want
		}
		if g != w {
			t.Errorf("%s: spilled answer differs:\n%.600s\npostgres:\n%.600s", c.sql, got, want)
		}
		if c.runs && runs == 0 {
			t.Errorf("%s: no run written at 200kB", c.sql)
		}
		if es, _ := os.ReadDir(tmp); len(es) != 0 {
			t.Errorf("%s: %d entries left in the temporary directory", c.sql, len(es))
		}
		if c.runs {
			if old := runSQL(cat, src, c.sql, 200<<10); !strings.Contains(old, "error 53200") {
				t.Errorf("%s: without a temporary directory, want 53200: %.300s", c.sql, old)
			}
		}
	}
}

// TestDistinctAggSpill: DISTINCT aggregates, with and without GROUP BY,
// FILTER and ORDER BY inside, answer as PostgreSQL at 200kB of working
// memory by writing their inputs to sorted runs (distinctspill.go),
// where they failed with 53200 before.
func TestDistinctAggSpill(t *testing.T) {
	checkSpilled(t, []spillCase{
		{sql: "SELECT count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x), min(DISTINCT t), max(DISTINCT x) FROM sp", runs: true},
		{sql: "SELECT count(DISTINCT t), count(DISTINCT x) FILTER (WHERE g > 2), count(*) FROM sp", runs: true},
		{sql: "SELECT sum(DISTINCT f), avg(DISTINCT f), sum(DISTINCT n), avg(DISTINCT n) FROM sp", runs: true},
		{sql: "SELECT g, count(DISTINCT x), sum(DISTINCT f), avg(DISTINCT n), count(*) FROM sp GROUP BY g ORDER BY g", ordered: true, runs: true},
		{sql: "SELECT x % 3000 AS b, count(DISTINCT t), sum(DISTINCT g) FROM sp GROUP BY 1", runs: true},
		{sql: "SELECT x % 500 AS b, array_agg(DISTINCT t ORDER BY t DESC), string_agg(DISTINCT g::text, ',' ORDER BY g::text) FROM sp WHERE x IS NOT NULL GROUP BY 1", runs: true},
		{sql: "SELECT g, array_agg(DISTINCT x / 100), string_agg(DISTINCT (x / 200)::text, ';') FROM sp GROUP BY g", runs: true},
		// array_agg's groups cannot go to files: they are held while the
		// DISTINCT inputs are written out, groups arriving all along
		{sql: "SELECT id / 200 AS b, array_agg(DISTINCT g), count(DISTINCT t) FROM sp GROUP BY 1", runs: true},
		// integer-like inputs through the int64 set and sort (distinctfast.go):
		// negative, zero, the int8 bounds, dates, groups of one input
		{sql: "SELECT count(DISTINCT x - 20000), sum(DISTINCT x - 20000), count(DISTINCT (x - 20000)::int8 * 461168601842738), sum(DISTINCT CASE WHEN id % 1000 = 1 THEN -9223372036854775808 WHEN id % 1000 = 2 THEN 9223372036854775807 ELSE 0 END::numeric) FROM sp", runs: true},
		{sql: "SELECT g, count(DISTINCT DATE '2000-01-01' + x), min(DISTINCT DATE '2000-01-01' - x), count(DISTINCT (x % 200)::int2) FROM sp GROUP BY g ORDER BY g", ordered: true, runs: true},
		{sql: "SELECT id / 3 AS b, count(DISTINCT x), sum(DISTINCT x) FROM sp GROUP BY 1", runs: true},
		{sql: "SELECT array_agg(DISTINCT x / 100 ORDER BY x / 100 DESC NULLS LAST), string_agg(DISTINCT t, ',' ORDER BY t) FILTER (WHERE id < 500) FROM sp"},
	})
}

// TestWindowSpill: windows over 60,000 rows answer as PostgreSQL at
// 200kB of working memory, partitioned and not, in every frame mode,
// by merging sorted runs a partition at a time (partitions too large
// computed in chunks of peer groups: winspill.go), where they failed
// with 53200 before.
func TestWindowSpill(t *testing.T) {
	checkSpilled(t, []spillCase{
		{sql: "SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY id), rank() OVER (PARTITION BY g ORDER BY x), dense_rank() OVER (PARTITION BY g ORDER BY x), sum(x) OVER (PARTITION BY g ORDER BY id) FROM sp", runs: true},
		{sql: "SELECT id, sum(f) OVER (ORDER BY id), count(x) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING), avg(n) OVER (ORDER BY x / 10, id / 100), max(t) OVER (ORDER BY id / 3 GROUPS UNBOUNDED PRECEDING) FROM sp ORDER BY id", ordered: true, runs: true},
		{sql: "SELECT id, x, percent_rank() OVER w, cume_dist() OVER w, ntile(4) OVER w, lag(x) OVER w, lead(t, 2, 'none') OVER w FROM sp WINDOW w AS (PARTITION BY id % 1000 ORDER BY id)", runs: true},
		{sql: "SELECT id, sum(x) OVER (PARTITION BY id % 500 ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING), avg(n) OVER (PARTITION BY id % 500 ORDER BY id RANGE BETWEEN 1000 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) FROM sp", runs: true},
		{sql: "SELECT id, count(*) OVER (PARTITION BY id % 500 ORDER BY g GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES), first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 3) OVER w FROM sp WINDOW w AS (PARTITION BY id % 700 ORDER BY id ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING)", runs: true},
		{sql: "SELECT g, sum(x) OVER (PARTITION BY g), count(*) OVER (PARTITION BY id % 300), min(t) OVER (PARTITION BY id % 300 ORDER BY id RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM sp WHERE id < 3000"},
		{sql: "SELECT id, row_number() OVER (ORDER BY x DESC NULLS LAST, id) FROM sp ORDER BY id LIMIT 50", ordered: true, runs: true},
	})
}
