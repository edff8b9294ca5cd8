package sqlfront_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestGroupByExpression (issue 21): a target that is a GROUP BY
// expression (Grafana's SELECT date_trunc('hour', ts), count(*) ... GROUP
// BY 1) answered 42803 "column must appear in the GROUP BY clause" on the
// flat path, a wrong SQLSTATE for a statement PostgreSQL answers. It is
// answered as PostgreSQL answers; a column outside every grouped
// expression is still 42803, as in PostgreSQL.
func TestGroupByExpression(t *testing.T) {
	r := newRig(t, []string{"public.ev"}, []string{
		"CREATE TABLE ev (id int PRIMARY KEY, ts timestamp, n int, s text)",
		"INSERT INTO ev SELECT g, timestamp '2026-01-01' + g * interval '7 minutes', g % 5, 'k' || (g % 3) FROM generate_series(1, 200) g",
	})
	stmts := []string{
		"SELECT date_trunc('hour', ts), count(*) FROM ev GROUP BY 1 ORDER BY 1",
		"SELECT date_trunc('hour', ts) AS h, count(*), sum(n) FROM ev GROUP BY h ORDER BY h",
		"SELECT date_trunc('day', ts), max(n) FROM ev GROUP BY date_trunc('day', ts) ORDER BY date_trunc('day', ts)",
		"SELECT n % 2, count(*) FROM ev GROUP BY n % 2 ORDER BY 1",
		"SELECT n + 1, count(*) FROM ev GROUP BY 1 HAVING count(*) > 10 ORDER BY 1",
		"SELECT upper(s), count(*) FROM ev GROUP BY upper(s) ORDER BY 1",
		"SELECT (n * 2) + 1 AS x, min(id) FROM ev GROUP BY (n * 2) + 1 ORDER BY x",
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, stmts, nil, "HEAD")
	ctx := context.Background()
	for _, u := range []string{r.pgURL, r.sqlURL} {
		c, err := pgconn.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		res := c.ExecParams(ctx, "SELECT date_trunc('hour', ts), n FROM ev GROUP BY 1", nil, nil, nil, nil).Read()
		var pe *pgconn.PgError
		if !errors.As(res.Err, &pe) || pe.Code != "42803" {
			t.Errorf("%s: an ungrouped column: %v, want 42803", u, res.Err)
		}
	}
}
