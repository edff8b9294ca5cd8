package exec_test

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
)

// TestPartialAggThroughProject: an aggregation reading its scan through
// projections and filters (a GROUP BY expression, a subquery in FROM)
// aggregates in the scan's workers (aggpipe.go), and answers over 30,000
// rows what the statement's goroutine alone answers — with the workers
// holding every group or handing most batches on, in memory or spilling,
// an error in a projection included. A chain the workers may not run (a
// LIMIT, a subquery) stays on the statement's goroutine.
func TestPartialAggThroughProject(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	src := &memSource{rows: map[string][][]*string{"w": spillRows(rand.New(rand.NewPCG(seed.New(t, seedFlag), 7)), 30000)}}
	tmp := t.TempDir()
	partial := []string{
		"SELECT id % 7, count(*), sum(y), avg(x), min(id) FROM w GROUP BY id % 7",
		"SELECT k / 10, grp IS NULL, sum(y * x), count(f) FROM w GROUP BY k / 10, grp IS NULL",
		"SELECT g, sum(v), avg(v), count(*) FROM (SELECT substr(grp, 1, 3) AS g, y * 2 - x AS v FROM w) s GROUP BY g",
		"SELECT g, count(*), sum(y) FROM (SELECT grp AS g, y FROM w WHERE x > 100) s GROUP BY g",
		"SELECT count(*), sum(v) FROM (SELECT x + k AS v FROM w) s",
		"SELECT g, sum(v) FROM (SELECT id % 5 AS g, x * 2 AS v FROM w) s WHERE g + v > 9 GROUP BY g",
		"SELECT g, sum(v) FROM (SELECT id % 3 AS g, 1000 / (k - 50) AS v FROM w) s GROUP BY g", // division by zero
	}
	sequential := []string{
		"SELECT g, sum(v) FROM (SELECT grp AS g, x AS v FROM w ORDER BY id LIMIT 700) s GROUP BY g",
		"SELECT g, count(*), sum(y) FROM (SELECT x IN (SELECT k FROM w w2 WHERE k < 5) AS g, y FROM w) s GROUP BY g",
	}
	for _, limit := range []int{16, 4096} {
		for _, q := range append(append([]string(nil), partial...), sequential...) {
			want := runSQL(cat, src, q, 1<<34)
			for _, opts := range []exec.Options{{WorkMem: 1 << 34}, {WorkMem: 200 << 10, TempDir: tmp}} {
				ps := &partialSource{memSource: src, per: 64, workers: 3, limit: limit}
				got := runSQLWith(cat, ps, q, opts)
				if g, w := sortedLines(got), sortedLines(want); !slices.Equal(g, w) {
					t.Errorf("%s (limit %d, work_mem %d): the workers' answer differs (%d lines, want %d): %.300s\nwant %.300s", q, limit, opts.WorkMem, len(g), len(w), got, want)
				}
				if in := slices.Contains(partial, q); in != (ps.partial > 0) {
					t.Errorf("%s: scans aggregated in the workers %d, want them to (%v)", q, ps.partial, in)
				}
				if es, _ := os.ReadDir(tmp); len(es) != 0 {
					t.Errorf("%s: %d entries left in the temporary directory", q, len(es))
				}
			}
		}
	}
	if want := runSQL(cat, src, partial[len(partial)-1], 1<<34); !strings.Contains(want, "division by zero") {
		t.Fatalf("the error statement answered: %.200s", want)
	}
}
