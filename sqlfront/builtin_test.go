package sqlfront_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// builtinSetup is a table with a column of each type the function
// library is asked about, including a name column (LIKE and upper() on
// name were 42804 before).
var builtinSetup = []string{
	`CREATE TABLE metrics (id int PRIMARY KEY, host name, label varchar(20), note text, v float8, amount numeric(12,3),
		n int4, big int8, at timestamp, atz timestamptz, day date)`,
	`INSERT INTO metrics VALUES
		(1, 'web-1', 'cpu', 'Hello World', 0.5, 12.345, 7, 9000000000, '2024-02-29 12:34:56.789', '2024-02-29 12:34:56+00', '2024-02-29'),
		(2, 'web-2', 'mem', 'a,b,,c', -2.5, -0.005, -3, -1, '2021-01-03 23:59:59', '2021-01-03 23:59:59+00', '2021-01-03'),
		(3, 'db-1', 'cpu', '', 100, 0, 0, 0, '1999-12-31 00:00:00', '1999-12-31 00:00:00+00', '1999-12-31'),
		(4, 'db-2', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		(5, 'web-1', 'disk', 'héllo wörld', 1e15, 99999.999, 2147483647, 42, '2024-03-01 00:00:00', '2024-03-01 06:00:00+00', '2024-03-01')`,
}

// TestBuiltinFunctionsMatchPostgres runs the function library through
// the SQL port over a followed table and wants PostgreSQL's rows. Before
// the library, every statement here but the LIKE without a name column
// was refused (42883, or 42804 for name columns).
func TestBuiltinFunctionsMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.metrics"}, builtinSetup)
	compareWithPostgres(t, r.pgURL, r.sqlURL, []string{
		"SELECT id, upper(host), lower(host), length(host), host LIKE 'web%' FROM metrics ORDER BY id",
		"SELECT id FROM metrics WHERE host LIKE 'db%' ORDER BY id",
		"SELECT id, abs(v), round(v), ceil(v), floor(v), trunc(v), sign(v), sqrt(abs(v)) FROM metrics ORDER BY id",
		"SELECT id, round(amount, 1), trunc(amount, 2), abs(amount), mod(n, 4), power(v, 2), exp(1.5::float8), ln(abs(v) + 1) FROM metrics ORDER BY id",
		"SELECT id, substr(note, 2, 3), position('l' in note), split_part(note, ',', 2), lpad(label, 6, '*'), rpad(label, 6), repeat(label, 2) FROM metrics ORDER BY id",
		"SELECT id, concat(label, '-', n, '-', v), concat_ws('/', host, label, note), format('%s=%L (%I)', label, note, host) FROM metrics ORDER BY id",
		"SELECT id, replace(note, 'l', 'L'), reverse(note), left(note, 3), right(note, -2), md5(note), initcap(label), translate(label, 'cp', 'CP') FROM metrics ORDER BY id",
		"SELECT id, date_trunc('day', at), date_trunc('month', atz), date_trunc('week', at), extract(year from at), date_part('dow', at), extract(epoch from atz) FROM metrics ORDER BY id",
		"SELECT id, to_char(at, 'YYYY-MM-DD HH24:MI:SS'), to_char(atz, 'Dy, DD Mon YYYY HH12:MI AM'), at::date, atz::date, day::timestamp FROM metrics ORDER BY id",
		"SELECT id, extract(dow from day), extract(week from day), make_date(2024, 2, 29), atz AT TIME ZONE 'UTC' FROM metrics ORDER BY id",
		"SELECT id FROM metrics WHERE note ~ '^[a-h]' ORDER BY id",
		"SELECT id, regexp_replace(label, 'c.u', 'CPU') FROM metrics ORDER BY id",
		"SELECT id, gcd(n, 12), lcm(n, 1), div(amount, 3), width_bucket(v, 0, 100, 4) FROM metrics ORDER BY id",
		"SELECT quote_ident(label), quote_literal(note), quote_nullable(amount) FROM metrics ORDER BY id",
		"SELECT id, note LIKE 'a#,%' ESCAPE '#' FROM metrics ORDER BY id",
		"SELECT id, n & 6, n | 1, n # 3, ~n, big & 255, @ v, @ n, |/ abs(v), v ^ 2, 2 ^ 10, n ^ 2 FROM metrics ORDER BY id",
		// Grafana-style time series (GROUP BY 1 over an expression is the
		// planner's, not yet: 42803)
		"SELECT date_trunc('day', atz) AS time, v FROM metrics WHERE atz BETWEEN to_timestamp(0) AND to_timestamp(2000000000) ORDER BY 1",
		"SELECT floor(extract(epoch from atz) / 300) * 300 AS time, v FROM metrics ORDER BY 1",
		"SELECT to_char(date_trunc('hour', atz), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM metrics ORDER BY 1",
	}, func(string) []byte { return nil }, "functions")
}

// TestBuiltinRefusals: a function PostgreSQL has and sidecar does not
// compute exactly is refused with 0A000; one PostgreSQL does not have
// either is 42883; an ambiguous call is 42725; a Go-vs-C difference
// (sin) is refused, not answered with another last digit.
func TestBuiltinRefusals(t *testing.T) {
	r := newRig(t, []string{"public.metrics"}, builtinSetup)
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for q, code := range map[string]string{
		"SELECT sin(v) FROM metrics":        "0A000",
		"SELECT nosuchfunc(v) FROM metrics": "0A000", // the database may define it (sidecar does not follow pg_proc)
		"SELECT trunc('1.5')":               "42725",
		"SELECT note ~ '\\d' FROM metrics":  "0A000",
		"SELECT abs(note) FROM metrics":     "42883",
	} {
		_, err := conn.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != code {
			t.Errorf("%s: got %v, want SQLSTATE %s", q, err, code)
		}
	}
}

// TestNowFixedPerTransaction: now() and current_timestamp are the
// transaction's start: equal across statements of one transaction, and
// later in the next.
func TestNowFixedPerTransaction(t *testing.T) {
	r := newRig(t, []string{"public.metrics"}, builtinSetup)
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	one := func(q string) string {
		t.Helper()
		res, err := conn.Exec(ctx, q).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if rows := res[len(res)-1].Rows; len(rows) > 0 {
			return string(rows[0][0])
		}
		return ""
	}
	one("BEGIN")
	a := one("SELECT now()")
	time.Sleep(5 * time.Millisecond) // the clock moves; the transaction's time must not
	b := one("SELECT current_timestamp")
	if a != b {
		t.Errorf("now() %s and current_timestamp %s differ inside one transaction", a, b)
	}
	if s := one("SELECT statement_timestamp()"); s == a {
		t.Errorf("statement_timestamp() %s is the transaction's start", s)
	}
	one("COMMIT")
	if c := one("SELECT now()"); c <= a {
		t.Errorf("now() after the transaction %s is not later than %s", c, a)
	}
}

// TestStatAggregatesMatchPostgres: stddev/variance and their _pop/_samp
// forms over integers, numeric and floats, grouped and not, give
// PostgreSQL's values and scales (they were 42883 before).
func TestStatAggregatesMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.metrics"}, builtinSetup)
	var stmts, float []string
	for _, f := range []string{"stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"} {
		stmts = append(stmts,
			"SELECT "+f+"(n), "+f+"(big), "+f+"(amount), "+f+"(id) FROM metrics",
			"SELECT label, "+f+"(amount) FROM metrics GROUP BY label ORDER BY label",
			"SELECT "+f+"(amount) FROM metrics WHERE id = 1",
			"SELECT "+f+"(DISTINCT n) FROM metrics WHERE id > 10",
			// Two float rows: the same in either order (types.FloatAccumGuard).
			"SELECT "+f+"(v) FROM metrics WHERE id <= 2")
		// More float rows: PostgreSQL's answer depends on the order it
		// adds them in; identical or refused, never different.
		float = append(float, "SELECT "+f+"(v) FROM metrics", "SELECT label, "+f+"(v) FROM metrics GROUP BY label ORDER BY label")
	}
	identicalOrOrderRefused(t, r.pgURL, r.sqlURL, float)
	stmts = append(stmts,
		"SELECT bool_and(n > 0), bool_or(n > 0), every(v > 0), bit_and(n), bit_or(big), bit_xor(n) FROM metrics",
		"SELECT label, bool_and(n >= 0), bit_or(n) FROM metrics GROUP BY label ORDER BY label",
		"SELECT bool_or(n > 0), bit_and(n) FROM metrics WHERE id > 10")
	compareWithPostgres(t, r.pgURL, r.sqlURL, stmts, func(string) []byte { return nil }, "aggregates")
}

// identicalOrOrderRefused runs each statement on both servers: the
// sidecar's rows must equal PostgreSQL's, or the statement be refused
// (0A000) as a float aggregate whose value depends on the order of the
// rows (types.FloatSumGuard / FloatAccumGuard).
func identicalOrOrderRefused(t *testing.T, pgURL, sqlURL string, stmts []string) {
	t.Helper()
	ctx := context.Background()
	pgc, err := pgconn.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	sc, err := pgconn.Connect(ctx, sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	for _, q := range stmts {
		want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if want.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
		}
		got := sc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if pe, ok := got.Err.(*pgconn.PgError); ok && pe.Code == "0A000" && strings.Contains(pe.Message, "depend on the order") {
			t.Logf("refused: %s", q)
			continue
		}
		if g, w := strings.Join(rowsText(got), "\n"), strings.Join(rowsText(want), "\n"); got.Err != nil || g != w {
			t.Errorf("%s: %q (%v), PostgreSQL %q", q, g, got.Err, w)
		}
	}
}
