package sqlfront_test

import (
	"context"
	"math"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestVectorizedClock: now(), the SQL-standard CURRENT_… and LOCAL…
// values, statement_timestamp(), clock_timestamp() and random() on
// sql/exec (a subquery in FROM sends the statement there) answer as
// PostgreSQL: the transaction's start for every call of the transaction,
// the column names and types PostgreSQL gives, the precision rounding,
// and random() in [0, 1), evaluated per row and once per subquery row.
func TestVectorizedClock(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb"}, recTables)
	from := " FROM (SELECT * FROM fa) s"
	cases := []diffCase{
		{sql: "SELECT now() = transaction_timestamp(), now() = current_timestamp, current_date = now()::date, localtimestamp = now()::timestamp, " +
			"localtime = now()::time, statement_timestamp() >= now(), clock_timestamp() >= statement_timestamp()" + from + " WHERE id < 3"},
		{sql: "SELECT count(DISTINCT now()), count(DISTINCT current_timestamp), count(DISTINCT localtimestamp)" + from},
		{sql: "SELECT current_date, current_timestamp, localtimestamp, current_time, localtime, current_timestamp(2), localtime(0)" + from + " WHERE false"},
		{sql: "SELECT extract(microseconds from localtimestamp(0))::int % 1000000, extract(microseconds from current_timestamp(0))::int % 1000000, " +
			"length(localtime(0)::text), length(localtime(3)::text) <= 12" + from + " WHERE id = 1"},
		{sql: "SELECT id, ts < localtimestamp, ts::date <= current_date" + from + " ORDER BY id"},
		{sql: "SELECT count(*), count(*) FILTER (WHERE r >= 0 AND r < 1), count(DISTINCT r) > 30 FROM (SELECT random() AS r FROM fa) s"},
		// One value per subquery row, read twice.
		{sql: "SELECT count(*) FROM (SELECT r, r AS r2 FROM (SELECT random() AS r FROM fa) x) y WHERE r = r2"},
		// A volatile condition is not pushed below DISTINCT.
		{sql: "SELECT count(*) <= 2 FROM (SELECT DISTINCT id % 2 AS k FROM fa) s WHERE random() < 2"},
		{sql: "SELECT count(*) FROM (SELECT * FROM fa) s WHERE random() < 0"},
	}
	diffVectorized(t, r, cases)

	// The clock is the real one (UTC, as PostgreSQL's), and one
	// transaction's statements share its start.
	ctx := context.Background()
	pgc := connectMode(t, r.pgURL, pgx.QueryExecModeSimpleProtocol)
	defer pgc.Close(ctx)
	var pgNow float64
	if err := pgc.QueryRow(ctx, "SELECT extract(epoch FROM now())::float8").Scan(&pgNow); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheDescribe} {
		scc := connectMode(t, r.sqlURL, mode)
		var now float64
		if err := scc.QueryRow(ctx, "SELECT extract(epoch FROM max(now()))::float8 FROM (SELECT * FROM fa) s").Scan(&now); err != nil || math.Abs(now-pgNow) > 600 {
			t.Errorf("mode %v: now() on sql/exec (%f) is not within 10 minutes of PostgreSQL's (%f): %v", mode, now, pgNow, err)
		}
		tx, err := scc.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var a, b, c string
		q := "SELECT max(now())::text, max(statement_timestamp())::text FROM (SELECT * FROM fa) s"
		if err := tx.QueryRow(ctx, q).Scan(&a, &c); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRow(ctx, q).Scan(&b, &c); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("mode %v: now() differs between two statements of one transaction: %s, %s", mode, a, b)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		scc.Close(ctx)
	}
}
