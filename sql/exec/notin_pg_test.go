package exec_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/exec"
)

// TestNotInSpill: `x NOT IN (SELECT y …)` in a WHERE clause answers as
// PostgreSQL at 200kB of working memory, its subquery's rows written to
// partition files by the null-aware hash anti join (sql/opt notin.go,
// joinnull.go), where holding them failed with 53200 before: NULLs among
// x, among y (found before and after the build spilled), an empty
// subquery, <> ALL, keys converted between types. Without a temporary
// directory the same statements still fail with 53200: the rows are not
// held.
func TestNotInSpill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, cat, src := spillSetup(ctx, t)
	defer conn.Close(context.Background())
	tmp := t.TempDir()
	cases := []struct {
		sql   string
		spill bool // its subquery's rows do not fit 200kB
	}{
		// no NULL among y; NULL x dropped
		{"SELECT id, x FROM sp WHERE x NOT IN (SELECT id + 3 FROM sp WHERE id % 2 = 0)", true},
		{"SELECT id, g FROM sp WHERE id NOT IN (SELECT x FROM sp WHERE x IS NOT NULL)", true},
		{"SELECT id FROM sp WHERE g = 3 AND id NOT IN (SELECT x FROM sp WHERE x IS NOT NULL) AND t <> 'v7'", true},
		// (PostgreSQL compares <> ALL row by row: 7,500 rows, not 60,000)
		{"SELECT id FROM sp WHERE x <> ALL (SELECT id * 2 FROM sp WHERE id % 8 = 0)", true},
		{"SELECT g, count(*), count(x) FROM sp WHERE x NOT IN (SELECT id FROM sp WHERE id > 30000) GROUP BY g", true},
		// a NULL among y: no row, whether seen first (the build stops
		// holding rows: no 53200 even without files), last or after the
		// build spilled
		{"SELECT count(*) FROM sp WHERE id NOT IN (SELECT x FROM sp)", false},
		{"SELECT id FROM sp WHERE id NOT IN (SELECT CASE WHEN id = 59999 THEN NULL ELSE id + 1 END FROM sp)", true},
		{"SELECT id FROM sp WHERE id NOT IN (SELECT CASE WHEN id = 1 THEN NULL ELSE id + 1 END FROM sp)", false},
		{"SELECT id FROM sp WHERE 1 / (x + 1) > 0 AND id NOT IN (SELECT x FROM sp)", false},
		// an empty subquery: every row, NULL x included
		{"SELECT count(*), count(x), sum(x) FROM sp WHERE x NOT IN (SELECT id FROM sp WHERE id < 0)", false},
		// keys converted: numeric against int4, text, float8
		{"SELECT id FROM sp WHERE n NOT IN (SELECT x FROM sp WHERE x IS NOT NULL AND x < 2500)", false},
		{"SELECT id, t FROM sp WHERE t NOT IN (SELECT 'v' || x FROM sp WHERE x IS NOT NULL)", true},
		{"SELECT id FROM sp WHERE f NOT IN (SELECT x / 7.0::float8 FROM sp WHERE x IS NOT NULL)", true},
		// x an expression of several columns
		{"SELECT id FROM sp WHERE (id + g) NOT IN (SELECT x * 2 FROM sp WHERE x IS NOT NULL)", true},
	}
	for _, c := range cases {
		qctx, qcancel := context.WithTimeout(context.Background(), 5*time.Minute)
		want := pgAnswer(qctx, conn, c.sql)
		qcancel()
		if strings.HasPrefix(want, "error") {
			t.Fatalf("%s: PostgreSQL: %s", c.sql, want)
		}
		got := runSQLWith(cat, src, c.sql, exec.Options{WorkMem: 200 << 10, TempDir: tmp})
		if g, w := normalize(got), normalize(want); g != w {
			t.Errorf("%s: answer at 200kB differs:\n%.600s\npostgres:\n%.600s", c.sql, got, want)
		}
		if es, _ := os.ReadDir(tmp); len(es) != 0 {
			t.Errorf("%s: %d entries left in the temporary directory", c.sql, len(es))
		}
		if mem := runSQL(cat, src, c.sql, 1<<34); normalize(mem) != normalize(want) {
			t.Errorf("%s: answer in memory differs:\n%.600s\npostgres:\n%.600s", c.sql, mem, want)
		}
		if c.spill {
			if old := runSQL(cat, src, c.sql, 200<<10); !strings.Contains(old, "error 53200") {
				t.Errorf("%s: without a temporary directory, want 53200: %.300s", c.sql, old)
			}
		}
	}
}
