package exec_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/exec"
)

// TestNotInHeldForms: the NOT IN forms the null-aware anti join does not
// take yet (sql/opt notin.go) — a row comparison `(a, b) NOT IN (SELECT
// x, y …)`, a correlated NOT IN, NOT IN outside a WHERE conjunct — hold
// their subquery's rows: with room they answer as PostgreSQL, NULLs in
// each column of either side included (a row comparison is NULL, not
// false, when a pair has a NULL and the others are equal: PostgreSQL's
// row-comparison rules); at 200kB with a temporary directory they are
// answered identically or refused with 53200, never another answer.
func TestNotInHeldForms(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	conn, cat, src := spillSetup(ctx, t)
	defer conn.Close(context.Background())
	tmp := t.TempDir()
	// na: NULL every 11th row in the first column, x NULL every 13th.
	const na = "CASE WHEN id % 11 = 0 THEN NULL ELSE g END"
	stmts := []string{
		// row comparisons: NULLs on the left in a, in b, in both
		"SELECT id FROM sp WHERE id < 3000 AND (" + na + ", x) NOT IN (SELECT g, x + 1 FROM sp WHERE id < 40 AND x IS NOT NULL)",
		"SELECT id FROM sp WHERE id < 3000 AND (" + na + ", x) NOT IN (SELECT g + 1, x FROM sp WHERE id BETWEEN 100 AND 300 AND x IS NOT NULL)",
		// NULLs on the right in the first column, then the second
		"SELECT count(*) FROM sp WHERE id < 3000 AND (g, x) NOT IN (SELECT " + na + ", x + 1 FROM sp WHERE id < 40)",
		"SELECT id, g, x FROM sp WHERE id < 3000 AND (g, x) NOT IN (SELECT g, x FROM sp WHERE id BETWEEN 1 AND 60 AND id <> 26)",
		"SELECT id FROM sp WHERE id < 3000 AND (g, id) NOT IN (SELECT g, x FROM sp WHERE id < 3000)",
		"SELECT count(*), count(x) FROM sp WHERE id < 3000 AND (g, x) NOT IN (SELECT g, x FROM sp WHERE id < 0)",
		"SELECT count(*) FROM sp WHERE id < 2000 AND (x, t) NOT IN (SELECT x, t FROM sp WHERE id % 3 = 0 AND id < 3000)",
		// correlated
		"SELECT id FROM sp a WHERE a.id < 700 AND a.x NOT IN (SELECT b.x FROM sp b WHERE b.g = a.g AND b.id < 60)",
		"SELECT count(*) FROM sp a WHERE a.id < 1000 AND a.x NOT IN (SELECT b.id FROM sp b WHERE b.g = a.g AND b.id < 2000)",
		// outside a WHERE conjunct: the NULL is the answer's
		"SELECT id, x NOT IN (SELECT id FROM sp WHERE id % 5 = 0 AND id < 400) FROM sp WHERE id < 600",
		"SELECT id FROM sp WHERE id < 3000 AND (x NOT IN (SELECT x + 1 FROM sp WHERE id < 20) OR g = 3)",
		"SELECT count(*) FROM sp WHERE id < 3000 AND (x NOT IN (SELECT id FROM sp WHERE id < 500)) IS NULL",
	}
	for _, q := range stmts {
		want := pgAnswer(ctx, conn, q)
		if strings.HasPrefix(want, "error") {
			t.Fatalf("%s: PostgreSQL: %s", q, want)
		}
		if mem := runSQL(cat, src, q, 1<<34); normalize(mem) != normalize(want) {
			t.Errorf("%s: answer in memory differs:\n%.600s\npostgres:\n%.600s", q, mem, want)
		}
		got := runSQLWith(cat, src, q, exec.Options{WorkMem: 200 << 10, TempDir: tmp})
		if g := normalize(got); g != normalize(want) && !strings.HasPrefix(g, "error 53200") {
			t.Errorf("%s: answer at 200kB is neither PostgreSQL's nor 53200:\n%.600s\npostgres:\n%.600s", q, got, want)
		}
		if es, _ := os.ReadDir(tmp); len(es) != 0 {
			t.Errorf("%s: %d entries left in the temporary directory", q, len(es))
		}
	}
}
