package exec_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
)

var seedFlag = seed.Flag()

// spillRows fills table w (id, grp, k, x, y numeric, f) with n rows of
// text, numeric and NULL keys from rng.
func spillRows(rng *rand.Rand, n int) [][]*string {
	str := func(s string) *string { return &s }
	var rows [][]*string
	for i := 1; i <= n; i++ {
		row := []*string{str(fmt.Sprint(i)), nil, str(fmt.Sprint(i % 97)), str(fmt.Sprint(rng.IntN(n))), nil, nil}
		if rng.IntN(10) > 0 {
			row[1] = str(fmt.Sprintf("g%05d", rng.IntN(n/4)))
		}
		if rng.IntN(8) > 0 {
			row[4] = str(fmt.Sprintf("%d.%d", rng.IntN(500), rng.IntN(3)*5)) // 1.5 and 1.50 alike
		}
		if rng.IntN(9) > 0 {
			row[5] = str(fmt.Sprint(rng.IntN(64)))
		}
		rows = append(rows, row)
	}
	return rows
}

// TestHashSpillMatchesMemory: hash aggregation, every kind of hash join,
// DISTINCT and the set operations answer the same rows when they partition to temporary files
// (200kB of working memory: two levels of partitions for most) as when they hold
// everything, and leave no file behind.
func TestHashSpillMatchesMemory(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed.New(t, seedFlag), 0))
	src := &memSource{rows: map[string][][]*string{"w": spillRows(rng, 30000)}}
	tmp := t.TempDir()
	stmts := []string{
		"SELECT grp, count(*), sum(y), min(f), max(x), avg(y) FROM w GROUP BY grp",
		"SELECT id, y, count(*) FILTER (WHERE f > 10), sum(x) FROM w GROUP BY id, y",
		"SELECT grp, k, count(*), sum(y) FROM w GROUP BY GROUPING SETS ((grp), (k), (grp, k), ())",
		// one integer key: found through intGroups (aggintkey.go) in
		// memory, in the partitions' replay and at every level
		"SELECT x, count(*), sum(y), min(grp) FROM w GROUP BY x",
		"SELECT CASE WHEN id % 7 = 0 THEN NULL ELSE x - 15000 END AS nx, count(*), sum(id) FROM w GROUP BY 1",
		"SELECT x::int8 * 1000000000000 AS big, count(*), max(f) FROM w GROUP BY 1",
		"SELECT k, count(DISTINCT x), sum(DISTINCT x), count(DISTINCT grp) FROM w GROUP BY k",
		"SELECT count(DISTINCT x), count(DISTINCT y), count(DISTINCT f) FROM w",
		"SELECT a.id, b.id, b.grp, b.y FROM w a JOIN w b ON a.grp = b.grp AND a.x = b.id",
		"SELECT a.id, b.id, b.y FROM w a LEFT JOIN w b ON a.y = b.y AND a.x = b.id",
		"SELECT a.id, b.id FROM w a RIGHT JOIN w b ON a.grp = b.grp AND a.id = b.x",
		"SELECT a.id, b.id FROM w a FULL JOIN w b ON a.y = b.y AND a.id = b.x AND a.k <> b.k",
		"SELECT a.id FROM w a WHERE EXISTS (SELECT 1 FROM w b WHERE b.grp = a.grp AND b.x = a.id)",
		"SELECT a.id FROM w a WHERE NOT EXISTS (SELECT 1 FROM w b WHERE b.grp = a.grp AND b.x = a.id)",
		// built on the left (estimated smaller), which does not fit: the join
		// builds (and spills) its right side instead (semibuild.go)
		"SELECT a.id FROM w a WHERE a.x > 5 AND EXISTS (SELECT 1 FROM w b WHERE b.grp = a.grp AND b.x = a.id AND b.k <> a.k)",
		"SELECT a.id FROM w a WHERE a.x > 5 AND NOT EXISTS (SELECT 1 FROM w b WHERE b.grp = a.grp AND b.x = a.id AND b.k <> a.k)",
		"SELECT a.grp, count(*), sum(b.y) FROM w a JOIN w b ON a.id = b.x GROUP BY a.grp",
		"SELECT DISTINCT grp, y FROM w",
		"SELECT DISTINCT x FROM w",
		"SELECT grp, x FROM w UNION SELECT grp, k FROM w",
		"SELECT x FROM w INTERSECT SELECT id FROM w",
		"SELECT y, k FROM w INTERSECT ALL SELECT y, k FROM w WHERE f > 5",
		"SELECT x FROM w EXCEPT SELECT id FROM w",
		"SELECT y, k FROM w EXCEPT ALL SELECT y, k FROM w WHERE f > 5",
	}
	lines := func(s string) []string {
		l := strings.Split(s, "\n")
		slices.Sort(l)
		return l
	}
	for _, q := range stmts {
		want := runSQL(cat, src, q, 1<<34)
		if strings.Contains(want, "error") {
			t.Fatalf("%s in memory: %.300s", q, want)
		}
		got := runSQLWith(cat, src, q, exec.Options{WorkMem: 200 << 10, TempDir: tmp})
		if g, w := lines(got), lines(want); !slices.Equal(g, w) {
			t.Errorf("%s: spilled answer differs (%d lines, want %d): %.300s", q, len(g), len(w), got)
		}
		if es, _ := os.ReadDir(tmp); len(es) != 0 {
			t.Errorf("%s: %d entries left in the temporary directory", q, len(es))
		}
	}
	// The temporary-file cap: 53400, nothing left.
	got := runSQLWith(cat, src, stmts[3], exec.Options{WorkMem: 200 << 10, TempDir: tmp, TempFileLimit: 100 << 10})
	if !strings.Contains(got, "error 53400") {
		t.Errorf("past a 100kB cap: %.300s", got)
	}
	if es, _ := os.ReadDir(tmp); len(es) != 0 {
		t.Errorf("after 53400: %d entries left in the temporary directory", len(es))
	}
}
