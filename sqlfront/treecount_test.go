package sqlfront_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestAggregatesWhileHeadLoads (issue 21 item 11): with the in-memory HEAD
// loading (reads on the trees), count(*) of a whole table is the tree's
// row count at the version asked for — the same as PostgreSQL at HEAD and
// the table's count at each earlier version — and any other full-table
// aggregate of a large table at HEAD is refused at once with 57P03 saying
// how far the load is (before, it read every row of the tree: 73–97 s for
// 3M rows); a key-range aggregate, one AS OF an earlier version, and every
// aggregate once the HEAD no longer loads are answered as PostgreSQL does.
func TestAggregatesWhileHeadLoads(t *testing.T) {
	defer sqlfront.SetLoadingTreeRows(10)()
	r := newRig(t, []string{"public.tc"},
		[]string{"CREATE TABLE tc (id int PRIMARY KEY, n int)", "INSERT INTO tc SELECT g, g * 10 FROM generate_series(1, 50) g"},
		[]string{"DELETE FROM tc WHERE id <= 10"},
		[]string{"INSERT INTO tc SELECT g, g FROM generate_series(100, 129) g", "UPDATE tc SET n = n + 1 WHERE id > 40"})
	loading := "the in-memory HEAD is loading (42 % restored)"
	var why = loading
	src := &sqlfront.HistorySource{H: r.hist, M: r.mirror, HeadLoading: func() string { return why }}
	url := "postgres://app@" + r.serve(t, sqlfront.Options{Source: src, StatementTimeout: 30 * time.Second, MaxConnections: 20}) + "/app?sslmode=disable"
	ctx := context.Background()
	sc, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	one := func(q string) (string, error) {
		res, err := sc.Exec(ctx, q).ReadAll()
		if err != nil {
			return "", err
		}
		if len(res) != 1 || len(res[0].Rows) == 0 {
			return "", nil
		}
		return string(res[0].Rows[0][0]), nil
	}
	// count(*) at HEAD and at each step's version.
	for _, c := range []struct{ q, want string }{
		{"SELECT count(*) FROM tc", "70"},
		{"SELECT count(*) FROM tc AS OF '" + r.lsns[0] + "'", "40"},
		{"SELECT count(*) FROM tc AS OF '" + r.lsns[1] + "'", "70"},
		{"SELECT count(*) FROM tc AS OF 'HEAD~1'", "40"},
		{"SELECT count(*) FROM tc HAVING count(*) > 100", ""},
		{"SELECT count(*) FROM tc HAVING count(*) > 60", "70"},
		{"SELECT count(*) FROM tc WHERE id > 45", "35"},
	} {
		if got, err := one(c.q); err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.q, got, err, c.want)
		}
	}
	// Answered while loading: a key range, an earlier version.
	stmts := []string{"SELECT count(*), sum(n) FROM tc WHERE id BETWEEN 20 AND 30", "SELECT count(*) FROM tc",
		"SELECT count(*), count(*) FROM tc", "SELECT max(id) FROM tc WHERE id < 45"}
	compareWithPostgres(t, r.pgURL, url, stmts, nil, "HEAD loading")
	if got, err := one("SELECT sum(n) FROM tc AS OF '" + r.lsns[0] + "'"); err != nil || got != "12200" {
		t.Errorf("sum AS OF the first step: %q, %v; want 12200", got, err)
	}
	// Refused while loading: the whole table's other aggregates at HEAD.
	for _, q := range []string{"SELECT sum(n) FROM tc", "SELECT count(*), min(n) FROM tc", "SELECT n, count(*) FROM tc GROUP BY n", "SELECT count(*) FROM tc WHERE n > 5"} {
		_, err := one(q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57P03" || !strings.Contains(pe.Message, "42 % restored") || !strings.Contains(pe.Message, "public.tc") {
			t.Errorf("%s while the HEAD loads: want 57P03 with the progress, got %v", q, err)
		}
	}
	// Loaded (or not loading): answered.
	why = ""
	compareWithPostgres(t, r.pgURL, url, []string{"SELECT sum(n) FROM tc", "SELECT count(*), min(n) FROM tc", "SELECT count(*) FROM tc WHERE n > 5"}, nil, "HEAD not loading")
}
