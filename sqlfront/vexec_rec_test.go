package sqlfront_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// diffCase is a statement compared with PostgreSQL on the vectorized
// path: its rows (or its SQLSTATE when PostgreSQL raises an error), or
// — refuse — a 0A000 from sidecar.
type diffCase struct {
	sql    string
	refuse bool
}

// diffVectorized runs each case against PostgreSQL and the SQL
// port in the simple and extended protocols: the same columns and rows,
// or the same SQLSTATE; a case marked refuse must be refused (0A000).
func diffVectorized(t *testing.T, r *rig, cases []diffCase) {
	t.Helper()
	ctx := context.Background()
	code := sqlState
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheDescribe} {
		pgc := connectMode(t, r.pgURL, mode)
		scc := connectMode(t, r.sqlURL, mode)
		for _, c := range cases {
			got, gerr := rowsOf(ctx, scc, c.sql)
			if c.refuse {
				if code(gerr) != "0A000" {
					t.Errorf("mode %v: %s: want a refusal (0A000), got %q %v", mode, c.sql, got, gerr)
				}
				continue
			}
			want, werr := rowsOf(ctx, pgc, c.sql)
			switch {
			case werr != nil || gerr != nil:
				if code(werr) != code(gerr) {
					t.Errorf("mode %v: %s:\n PostgreSQL %q %v\n sidecar    %q %v", mode, c.sql, want, werr, got, gerr)
				}
			case !slices.Equal(want, got):
				t.Errorf("mode %v: %s:\n PostgreSQL %q\n sidecar    %q", mode, c.sql, want, got)
			}
		}
		pgc.Close(ctx)
		scc.Close(ctx)
	}
}

// recTables are NULL-heavy tables for the function, WITH RECURSIVE and
// LATERAL tests.
var recTables = []string{
	"CREATE TABLE fa (id int PRIMARY KEY, name text, amount numeric(10,2), f float8, d date, ts timestamp)",
	"INSERT INTO fa SELECT g, CASE WHEN g % 5 = 0 THEN NULL ELSE 'Name' || g || CASE WHEN g % 3 = 0 THEN ' x' ELSE '' END END, " +
		"CASE WHEN g % 4 = 0 THEN NULL ELSE g * 1.25 - 7 END, CASE WHEN g % 6 = 0 THEN NULL ELSE g / 3.0 - 2 END, " +
		"CASE WHEN g % 7 = 0 THEN NULL ELSE date '2024-01-30' + g * 11 END, " +
		"CASE WHEN g % 8 = 0 THEN NULL ELSE timestamp '2023-12-31 22:10:05' + g * interval '7 hours 3 minutes' END FROM generate_series(1, 40) g",
	"CREATE TABLE fb (k int PRIMARY KEY, parent int, label varchar(10))",
	"INSERT INTO fb VALUES (1, NULL, 'root'), (2, 1, 'a'), (3, 1, NULL), (4, 2, 'aa'), (5, 2, 'ab'), (6, 4, NULL), (7, 6, 'deep'), (8, NULL, 'r2'), (9, 8, 'b')",
}

// TestVectorizedFunctions: function calls on the vectorized path (a
// subquery in FROM sends the statement there) answer as PostgreSQL's
// function library — values, result types, NULLs and errors.
func TestVectorizedFunctions(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb"}, recTables)
	from := " FROM (SELECT * FROM fa) s"
	cases := []diffCase{
		{sql: "SELECT id, upper(name), lower(name), length(name), substr(name, 2, 3), lpad(name, 9, '*'), md5(name), split_part(name, ' ', 1)" + from + " ORDER BY id"},
		{sql: "SELECT id, replace(name, 'me', 'ME'), reverse(name), initcap(name), position('1' in name), strpos(name, '2'), left(name, -2), repeat(name, 2)" + from + " ORDER BY id"},
		{sql: "SELECT id, concat(name, '/', amount), concat_ws('-', name, NULL, id), format('%s|%L|%I', name, amount, name), quote_literal(name), btrim(name, 'N')" + from + " ORDER BY id"},
		{sql: "SELECT id, round(amount, 1), trunc(amount), ceil(f), floor(f), abs(amount), sign(f), mod(id, 7), power(id, 2)" + from + " ORDER BY id"},
		{sql: "SELECT id, round(f), round(f::numeric, 3), width_bucket(f, -2, 12, 5), gcd(id, 12), div(amount, 3), to_hex(id)" + from + " ORDER BY id"},
		{sql: "SELECT id, date_trunc('month', ts), date_part('dow', ts), extract(year from d), extract(epoch from ts), to_char(ts, 'YYYY-MM-DD HH24:MI Dy'), make_date(2020, 1 + id % 12, 1)" + from + " ORDER BY id"},
		{sql: "SELECT id, regexp_replace(name, '[0-9]+', '#'), coalesce(name, 'none'), nullif(id % 3, 0), greatest(f, amount), least(f, id)" + from + " ORDER BY id"},
		{sql: "SELECT s.id, upper(b.label), length(b.label) FROM (SELECT * FROM fa) s JOIN fb b ON b.k = s.id ORDER BY 1"},
		// Errors: PostgreSQL's SQLSTATE, raised only on the rows that
		// reach the call.
		{sql: "SELECT ln(f)" + from + " WHERE id = 3"},
		{sql: "SELECT sqrt(f)" + from + " ORDER BY id"},
		{sql: "SELECT repeat(name, id) FROM (SELECT * FROM fa WHERE id < 4) s ORDER BY id"},
		// 42883 at bind: the flat planner's refusal stands.
		{sql: "SELECT nosuchfunction(id)" + from, refuse: true},
		{sql: "SELECT upper(id)" + from, refuse: true},
		// The library refuses what it cannot compute exactly.
		{sql: "SELECT log(id)" + from, refuse: true},
		{sql: "SELECT id, CASE WHEN id > 100 THEN ln(0) END" + from + " ORDER BY id"},
	}
	diffVectorized(t, r, cases)
}

// rowsOf is resultOf that survives a statement failing before its
// column descriptions (pgx's FieldDescriptions has none to give then).
func rowsOf(ctx context.Context, conn *pgx.Conn, q string) (out []string, err error) {
	defer func() {
		if recover() != nil {
			out, err = nil, errors.New("no result (the statement failed before its description)")
		}
	}()
	return resultOf(ctx, conn, q)
}

// TestVectorizedRecursive: WITH RECURSIVE (UNION and UNION ALL) over
// tables with NULLs answers as PostgreSQL; the shapes PostgreSQL
// rejects or sidecar does not run are refused.
func TestVectorizedRecursive(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb"}, recTables)
	cases := []diffCase{
		{sql: "WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t WHERE n < 100) SELECT sum(n), count(*) FROM t"},
		{sql: "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 10"},
		{sql: "WITH RECURSIVE t(k, parent, label, depth, path) AS (SELECT k, parent, label, 0, k::text FROM fb WHERE parent IS NULL " +
			"UNION ALL SELECT fb.k, fb.parent, fb.label, t.depth + 1, t.path || '/' || fb.k FROM fb JOIN t ON fb.parent = t.k) SELECT * FROM t ORDER BY path"},
		{sql: "WITH RECURSIVE t(k, label) AS (SELECT k, label FROM fb WHERE k = 7 UNION SELECT fb.k, fb.label FROM t, fb WHERE fb.k = (SELECT parent FROM fb x WHERE x.k = t.k)) SELECT * FROM t ORDER BY k"},
		{sql: "WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT (n * 7) % 11 FROM t) SELECT n FROM t ORDER BY n"},
		{sql: "WITH RECURSIVE t(a, b) AS (SELECT NULL::int, 1 UNION SELECT a, b + 1 FROM t WHERE b < 5) SELECT * FROM t ORDER BY b"},
		{sql: "WITH RECURSIVE t(id, name) AS (SELECT id, name FROM fa WHERE id = 1 UNION ALL SELECT fa.id, fa.name FROM t JOIN fa ON fa.id = t.id + 4 WHERE fa.id < 40) SELECT id, upper(name) FROM t ORDER BY id"},
		{sql: "WITH RECURSIVE t(x) AS (SELECT 'a' UNION ALL SELECT x || 'b' FROM t WHERE length(x) < 5) SELECT x, pg_typeof(x)::text FROM t"},
		{sql: "WITH RECURSIVE t(x) AS (SELECT 'a' UNION ALL SELECT x || 'b' FROM t WHERE length(x) < 5) SELECT x FROM t ORDER BY x"},
		{sql: "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3), u AS (SELECT n * 10 AS m FROM t) SELECT * FROM t, u ORDER BY 1, 2"},
		{sql: "WITH RECURSIVE t(n) AS (SELECT 1::numeric(5,1) UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t", refuse: true},
		{sql: "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT count(*) FROM t) SELECT * FROM t", refuse: true},
		{sql: "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT t.n + 1 FROM t LEFT JOIN fb ON fb.k = t.n WHERE t.n < 3) SELECT * FROM t", refuse: true},
		{sql: "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT a.n + 1 FROM t a, t b WHERE a.n < 3) SELECT * FROM t", refuse: true},
		{sql: "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (WITH z AS (SELECT * FROM t) SELECT n + 1 FROM z WHERE n < 3)) SELECT * FROM t"}, // run afresh each round (sql/exec recursive.go)
	}
	diffVectorized(t, r, cases)
}

// TestVectorizedLateral: LATERAL subqueries in a FROM list (a dependent
// join) over tables with NULLs answer as PostgreSQL.
func TestVectorizedLateral(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb"}, recTables)
	cases := []diffCase{
		{sql: "SELECT b.k, x.id, x.name FROM fb b, LATERAL (SELECT id, name FROM fa WHERE fa.id > b.k ORDER BY id LIMIT 2) x ORDER BY 1, 2"},
		{sql: "SELECT b.k, b.label, x.c, x.s FROM fb b, LATERAL (SELECT count(*) AS c, sum(amount) AS s FROM fa WHERE fa.id % 9 = b.k) x ORDER BY 1"},
		{sql: "SELECT b.k, x.l FROM fb b, LATERAL (SELECT upper(b.label) AS l) x ORDER BY 1"},
		{sql: "SELECT b.k, p.label, x.n FROM fb b, fb p, LATERAL (SELECT b.k + p.k AS n WHERE b.label IS NOT NULL) x WHERE p.k = b.parent ORDER BY 1"},
		{sql: "SELECT * FROM LATERAL (SELECT 1 AS one) x, fb WHERE fb.k < 3 ORDER BY k"},
		{sql: "SELECT b.k, x.* FROM fb b, LATERAL (SELECT fa.d, fa.f FROM fa WHERE fa.id = b.parent) x ORDER BY 1"},
		{sql: "SELECT count(*) FROM fa a, LATERAL (SELECT * FROM fb WHERE fb.parent = a.id OR a.name IS NULL) x"},
		{sql: "SELECT b.k, x.m FROM fb b JOIN LATERAL (SELECT b.k AS m) x ON true ORDER BY 1"},
		{sql: "SELECT b.k, x.id FROM fb b LEFT JOIN LATERAL (SELECT id FROM fa WHERE fa.id = b.parent) x ON x.id > 1 ORDER BY 1"},
	}
	diffVectorized(t, r, cases)
}
