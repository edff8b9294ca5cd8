package exec_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
)

// TestDifferentialTopNBound runs topnbound.diff.sql (and the files of
// LIMIT under ORDER BY) through late sources handing batches of 1, 2 and
// 3 rows, so that a top-N fills its heap within the first batches and
// its bound on the scan (topn_filter.go) judges the rows after them: with the top-N's bound on the scan, the answers, the refusals of
// rows tied across the cut and the errors are PostgreSQL's.
func TestDifferentialTopNBound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	var files []string
	for _, name := range []string{"topnbound", "limitorder", "sortties"} {
		files = append(files, filepath.Join("testdata", name+".diff.sql"))
	}
	for _, size := range []int{1, 2, 3} {
		compareFiles(ctx, t, conn, cat, &lateMemSource{memSource: src, size: size}, files)
	}
	// The refusals are those of the full input: a bound never drops a
	// row tied on the keys with a kept one.
	for _, sql := range append(readStatements(t, filepath.Join("testdata", "limitorder.diff.sql")), readStatements(t, filepath.Join("testdata", "topnbound.diff.sql"))...) {
		whole := runSQL(cat, src, sql, 0)
		got := runSQL(cat, &lateMemSource{memSource: src, size: 1}, sql, 0)
		if strings.Contains(whole, "error 0A000") != strings.Contains(got, "error 0A000") {
			t.Errorf("%s: refused differently with the bound:\n%s\nwithout:\n%s", sql, got, whole)
		}
	}
}

// TestTopNBoundDropsRows: ORDER BY id LIMIT 2 over jv (ids 1…14 in
// order), read two rows a batch: once the first batch fills the heap,
// the bound (id ≤ 2) drops every later row in the scan, which hands on
// 2 rows instead of 14; a computed projection between keeps the bound
// off (every row is handed on).
func TestTopNBoundDropsRows(t *testing.T) {
	src := loadData(t)
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sql, want string
		handed    int
	}{
		{"SELECT id, k FROM jv ORDER BY id LIMIT 2", "id int4 | k int4\n1|1\n2|1\n", 2},
		{"SELECT id, k + 1 AS k1 FROM jv ORDER BY id LIMIT 2", "id int4 | k1 int4\n1|2\n2|2\n", len(src.rows["jv"])},
	} {
		late := &lateMemSource{memSource: src, handed: map[string]int{}, size: 2}
		got := runSQL(cat, late, tc.sql, 0)
		if got != tc.want {
			t.Fatalf("%s:\n%s", tc.sql, got)
		}
		if n := late.handed["jv"]; n != tc.handed {
			t.Errorf("%s: the scan handed on %d rows, want %d", tc.sql, n, tc.handed)
		}
	}
}
