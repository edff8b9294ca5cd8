package exec_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// countingSource is memSource counting the rows its scans hand out.
type countingSource struct {
	*memSource
	read int
}

func (c *countingSource) Scan(ctx context.Context, t *plan.TableDef, fn func(row []*string) error) error {
	return c.memSource.Scan(ctx, t, func(row []*string) error {
		c.read++
		return fn(row)
	})
}

// TestLimitOverAlikeRowsStops: a LIMIT whose rows are all alike (a
// constant projection over scans and a cross join that cannot fail)
// stops reading at the cut; it read the whole cross product to prove
// its rows alike (`SELECT pg_typeof(x) FROM users, subscriptions LIMIT
// 1`: 92 s on 300M rows). Where the rows differ or a row could fail,
// the input is still read to the end.
func TestLimitOverAlikeRowsStops(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	m := &memSource{rows: map[string][][]*string{}}
	for i := range n {
		name, v := "r"+strconv.Itoa(i), strconv.Itoa(i)
		m.rows["t1"] = append(m.rows["t1"], []*string{&name, &v})
		m.rows["t2"] = append(m.rows["t2"], []*string{&name, &v})
	}
	for _, c := range []struct {
		sql, want string
		maxRead   int // rows the scans may hand out
	}{
		{"SELECT 1 FROM t1 LIMIT 2", "?column? int4\n1\n1\n", n - 1},
		{"SELECT 'x'::text AS a, 2 FROM t1 a, t2 b LIMIT 3", "a text | ?column? int4\nx|2\nx|2\nx|2\n", 2*n - 1},
		{"SELECT 1 FROM t1 a CROSS JOIN t2 b OFFSET 5 LIMIT 1", "?column? int4\n1\n", 2*n - 1},
		// a filter that could fail on a row read later: read to the end
		{"SELECT 1 FROM t1 WHERE 10 / (n + 1) >= 0 LIMIT 1", "?column? int4\n1\n", n},
	} {
		src := &countingSource{memSource: m}
		got := runSQL(cat, src, c.sql, 0)
		if c.want != "" && got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.sql, got, c.want)
		}
		if src.read > c.maxRead || c.maxRead == n && src.read < n {
			t.Errorf("%s: the scans handed out %d rows (%d tables of %d rows), want at most %d", c.sql, src.read, 2, n, c.maxRead)
		}
	}
}
