package sqlfront_test

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestOutputSettingsMatchPostgres runs one session through PostgreSQL
// and the sidecar: under extra_float_digits < 1 and bytea_output =
// escape, statements sql/exec runs (a subquery in FROM, UNION) print
// their float and bytea columns as PostgreSQL does, in text and binary
// format; one that prints a value inside itself (a cast to text, ||,
// concat, an array) is refused, never answered in the other format.
func TestOutputSettingsMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.fb"}, []string{
		`CREATE TABLE fb (id int PRIMARY KEY, f float8, r real, b bytea)`,
		`INSERT INTO fb VALUES (1, 0.1, 0.1, '\x00ff5c41'), (2, 1.2345678901234567e200, 3.14159274, 'abc'), (3, -1e-300, -0, ''),
			(4, 'NaN', 'Infinity', '\x0a7f80'), (5, 1.0/3, 2.0/3, NULL), (6, NULL, 1e-7, 'x\\y'), (7, 123456789012345678, 0.000123456789, '\x1f20')`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	answered := []string{
		`SELECT id, f, r, b FROM (SELECT * FROM fb) s ORDER BY id`,
		`SELECT f * 3, r + 1, sqrt(abs(f)) FROM (SELECT * FROM fb WHERE f <> 'NaN') s ORDER BY id`,
		`SELECT f FROM fb UNION SELECT 0.7 ORDER BY 1`,
		`SELECT sum(f), avg(r), corr(f, r), b FROM (SELECT * FROM fb) s GROUP BY b ORDER BY b`,
		`SELECT substring(b from 2), btrim(b, '\x00'::bytea), encode(b, 'escape'), b = 'abc'::bytea FROM (SELECT * FROM fb) s ORDER BY id`,
		`SELECT sinh(float8 '1'), cosh(float8 '1'), tanh(float8 '1'), 1.0::float8 / 7 FROM (SELECT 1) s`,
		`SELECT E'\\xDeAdBeEf'::bytea, E'De\\000dBeEf'::bytea, E'De\\123dBeEf'::bytea FROM (SELECT 1) s`,
		`SELECT id, b FROM fb WHERE b LIKE '%b%' OR b NOT LIKE '_' ORDER BY id`,
		`SELECT sinh(float8 '1')`,
		`SELECT cosh(float8 '1'), tanh(float8 '-0.5')`,
	}
	refused := []string{
		`SELECT f::text FROM (SELECT * FROM fb) s ORDER BY id`,
		`SELECT concat(f, 'x') FROM (SELECT * FROM fb) s ORDER BY id`,
		`SELECT b::text FROM (SELECT * FROM fb) s ORDER BY id`,
		`SELECT 'x' || b FROM (SELECT * FROM fb) s ORDER BY id`,
		`SELECT ARRAY[f] FROM (SELECT * FROM fb) s ORDER BY id`,
	}
	for _, setting := range [][]string{
		{`SET extra_float_digits = 0`, `SET bytea_output = escape`},
		{`SET extra_float_digits = -3`, `RESET bytea_output`},
		{`SET extra_float_digits = -15`, `SET bytea_output = 'escape'`},
		{`RESET extra_float_digits`, `SET bytea_output = hex`},
	} {
		for _, q := range setting {
			simpleExec(ctx, conns["postgresql"], q)
			simpleExec(ctx, conns["sidecar"], q)
		}
		for _, q := range answered {
			want := simpleExec(ctx, conns["postgresql"], q)
			got := simpleExec(ctx, conns["sidecar"], q)
			if !slices.Equal(got, want) {
				t.Errorf("%v %s\n got %q\nwant %q", setting, q, got, want)
			}
			// Binary format: the values' own bytes.
			rw := conns["postgresql"].ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()
			rg := conns["sidecar"].ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()
			if rw.Err != nil || rg.Err != nil || !slices.EqualFunc(rw.Rows, rg.Rows, func(a, b [][]byte) bool {
				return slices.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) && (x == nil) == (y == nil) })
			}) {
				t.Errorf("%v %s in binary format: sidecar %v %q, PostgreSQL %v %q", setting, q, rg.Err, rg.Rows, rw.Err, rw.Rows)
			}
		}
		if setting[0] == `RESET extra_float_digits` {
			continue
		}
		for _, q := range refused {
			got := simpleExec(ctx, conns["sidecar"], q)
			want := simpleExec(ctx, conns["postgresql"], q)
			if !slices.Equal(got, want) && (len(got) == 0 || !strings.HasPrefix(got[0], "ERROR 0A000")) {
				t.Errorf("%v %s: sidecar %q, want PostgreSQL's %q or a refusal", setting, q, got, want)
			}
		}
	}
}

// TestRegrAggregatesMatchPostgres: corr, covar_* and regr_* beside
// other aggregates over a table reach sql/exec (the flat planner refuses
// them instead of judging their arguments ungrouped) and answer as
// PostgreSQL does.
func TestRegrAggregatesMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.regr_test"}, []string{
		`CREATE TABLE regr_test (id int PRIMARY KEY, x float8, y float8)`,
		`INSERT INTO regr_test VALUES (1, 10, 150), (2, 20, 250), (3, 30, 350), (4, 80, 540), (5, 100, 200)`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	for _, q := range []string{
		`SELECT count(*), sum(x), regr_sxx(y, x), sum(y), regr_syy(y, x), regr_sxy(y, x) FROM regr_test WHERE x IN (10, 20, 30, 80)`,
		`SELECT count(*), sum(x), regr_sxx(y, x), sum(y), regr_syy(y, x), regr_sxy(y, x) FROM regr_test`,
		`SELECT regr_count(y, x), corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM regr_test`,
		`SELECT id > 2, corr(y, x) FROM regr_test GROUP BY id > 2 ORDER BY 1`,
		// Two rows: the same in either order, always answered.
		`SELECT count(*), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), corr(y, x), covar_pop(y, x), regr_slope(y, x) FROM regr_test WHERE id <= 2`,
	} {
		want := simpleExec(ctx, conns["postgresql"], q)
		got := simpleExec(ctx, conns["sidecar"], q)
		// More rows: PostgreSQL's float accumulation depends on the order
		// it reads them in (types.FloatAccumGuard): refused, or identical.
		if len(got) > 0 && strings.Contains(got[0], "ERROR 0A000") && strings.Contains(got[0], "depend on the order") && !strings.Contains(q, "id <= 2") {
			t.Logf("refused: %s", q)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s\n got %q\nwant %q", q, got, want)
		}
	}
}

// TestByteaFunctionsMatchPostgres: the bytea functions called without a
// FROM list (the flat planner's statements) and over a table answer as
// PostgreSQL does, under bytea_output hex and escape.
func TestByteaFunctionsMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.bt"}, []string{
		`CREATE TABLE bt (a bytea PRIMARY KEY, b int)`,
		`INSERT INTO bt VALUES ('\x00', 1), ('abc', 2), ('\x5c31', 3), ('a1b', 4)`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	stmts := []string{
		`SELECT encode('\x1234567890abcdef00', 'hex')`,
		`SELECT decode('1234567890abcdef00', 'hex')`,
		`SELECT encode(('\x' || repeat('1234567890abcdef0001', 7))::bytea, 'base64')`,
		`SELECT encode('\x1234567890abcdef00', 'escape')`,
		`SELECT get_bit('\x1234567890abcdef00'::bytea, 43), get_byte('\x1234567890abcdef00'::bytea, 3)`,
		`SELECT set_bit('\x1234567890abcdef00'::bytea, 43, 0)`,
		`SELECT get_bit('\x1234567890abcdef00'::bytea, 99)`,
		`SELECT sha224('abc'::bytea), sha256(''::bytea), sha384('\x00'), sha512('x')`,
		`SELECT md5('abc'::bytea), length('\x0001'::bytea), bit_count('\x1234567890'::bytea)`,
		`SELECT SUBSTRING('1234567890'::bytea FROM 4 FOR 3) AS "456"`,
		`SELECT trim(E'\\000'::bytea from E'\\000Tom\\000'::bytea)`,
		`SELECT 'abc'::bytea LIKE '_b_'::bytea AS "true", 'a_c'::bytea LIKE 'a$__'::bytea ESCAPE '$'::bytea AS "true"`,
		`SELECT E'\\xDeAdBeEf'::bytea`,
		`SELECT E'De\\678dBeEf'::bytea`,
		`SELECT * FROM bt WHERE a LIKE '%1%' ORDER BY b`,
		`SELECT a, encode(a, 'hex'), position('1'::bytea in a) FROM bt ORDER BY b`,
		`SELECT b FROM bt WHERE a = 'abc'::bytea OR a > '\x5c'::bytea ORDER BY b`,
	}
	for _, out := range []string{`SET bytea_output = hex`, `SET bytea_output = escape`} {
		simpleExec(ctx, conns["postgresql"], out)
		simpleExec(ctx, conns["sidecar"], out)
		for _, q := range stmts {
			want := simpleExec(ctx, conns["postgresql"], q)
			got := simpleExec(ctx, conns["sidecar"], q)
			if !slices.Equal(got, want) && (len(got) == 0 || !strings.HasPrefix(got[0], "ERROR 0A000")) {
				t.Errorf("%s %s\n got %q\nwant %q", out, q, got, want)
			} else if !slices.Equal(got, want) {
				t.Logf("refused: %s %s: %q", out, q, got)
			}
		}
	}
}
