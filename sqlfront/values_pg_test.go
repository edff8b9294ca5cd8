package sqlfront_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// valueCases are the value-level answers issue 23 found wrong, each
// compared with PostgreSQL's answer (rows, or the SQLSTATE of its error)
// in text and binary format.
var valueCases = []string{
	"SELECT true::text, false::text, (1 = 1)::text, true::varchar",
	"SELECT -('-2147483648'::int4)",
	"SELECT -('-32768'::int2)",
	"SELECT -('-9223372036854775808'::int8)",
	"SELECT -x FROM fl WHERE id = 1",
	"SELECT -2147483648, - 2147483648, -(2147483648), -(2147483648::int8), -9223372036854775808",
	"SELECT 1::int2 + 1::int4, 1::int4 * 2::int8, 1::int8 - 1.5, 1::float8 / 3::int4",
	"SELECT 32767::int2 + 1::int2",
	"SELECT '1.5'::numeric::float8, 0.1::float8::numeric, 2.5::int4, (-2.5)::int4, 3.5::int2",
	"SELECT 'NaN'::float8 = 'NaN'::float8, 'NaN'::float8 > 1e308::float8, '-0'::float8 = 0::float8",
	"SELECT 'ab'::\"char\", 'x'::name, '1 day'::interval, '12:34:56.5'::time",
	"SELECT '10e-400'::float8",
	"SELECT '1e-50'::float4",
	"SELECT '1e309'::float8",
	"SELECT sum(r) FROM fl",
	"SELECT sum(r) FROM fl WHERE id < 50",
	"SELECT sum(r), avg(r) FROM fl WHERE x + 0 > 0",
	"SELECT k, sum(r) FROM fl WHERE x + 0 > 0 GROUP BY k ORDER BY k",
	"SELECT k, sum(r), avg(r) FROM fl GROUP BY k ORDER BY k",
	"SELECT 'nan'::float8 / 0",
	"SELECT 1::float8 / 0",
	"SELECT 'inf'::numeric, '-inf'::numeric, 'Infinity'::numeric, 'nan'::numeric",
	"SELECT bool 'of'",
	"SELECT bool 'o'",
	"SELECT -('nan'::numeric), -('-inf'::numeric)",
	"SELECT 0.1::float8::numeric, 1e300::float8::numeric::float8, 'inf'::float8::numeric",
	"SELECT 'of'::bool, ' TRUE '::bool, 'ye'::bool",
	"SELECT ''::bool",
	"SELECT x::text, (-x)::text FROM fl WHERE id < 3 ORDER BY id",
	"SELECT id, d FROM dt ORDER BY d, id",
	"SELECT id FROM dt WHERE d < '1000-01-01' ORDER BY id",
	"SELECT id FROM dt WHERE d > '0001-01-01 BC' ORDER BY id",
	"SELECT id, t FROM dt ORDER BY t DESC, id",
	"SELECT id FROM dt WHERE iv = '1 day' ORDER BY id",
	"SELECT count(*) FROM dt WHERE iv = '24:00:00'",
	"SELECT id FROM dt WHERE iv IN ('1 day', '-1 mons') ORDER BY id",
	"SELECT id FROM dt WHERE iv <> '30 days' ORDER BY id",
	"SELECT count(DISTINCT iv) FROM dt",
	"SELECT iv, count(*) FROM dt WHERE id <> 2 GROUP BY iv ORDER BY count(*), iv::text",
	"SELECT min(d), max(d) FROM dt WHERE id + 0 > 0",
	// a subquery's TRUE is named bool before 15, as at the top; a
	// scalar subquery's name is strong in a CASE's ELSE and a cast
	"SELECT (SELECT true), (SELECT (SELECT false)), (SELECT true)::int4, CASE WHEN id > 0 THEN 1 ELSE (SELECT 1) END FROM dt WHERE id = 1",
	"SELECT * FROM (SELECT (SELECT false)) s",
}

var valueSetup = []string{
	`CREATE TABLE dt (id int PRIMARY KEY, d date, t timestamptz, iv interval)`,
	`INSERT INTO dt VALUES (1, '0044-03-15 BC', '0044-03-15 12:00:00+00 BC', '1 day'), (2, '2020-01-01', '2020-01-01 00:00:00+00', '24:00:00'),
		(3, '10000-01-01', '10000-01-01 00:00:00+00', '-1 mon'), (4, '0500-06-01', '0500-06-01 00:00:00+00', '30 days'),
		(5, '0001-01-01 BC', '0001-12-31 23:59:59+00 BC', '1 mon'), (6, '0001-01-01', '0001-01-01 00:00:00+00', '00:00:00')`,
	`CREATE TABLE fl (id int PRIMARY KEY, r real, x int, k int)`,
	// r: multiples of 1/64 (a float4 sum of them is exact, so the same in
	// PostgreSQL's order of rows: TestFloatSumOrder has the others).
	`INSERT INTO fl SELECT g, CASE WHEN g > 60 THEN 0.25 ELSE (g * 37 % 101) / 64.0 END,
		CASE WHEN g = 1 THEN -2147483648 ELSE g END, g % 3 FROM generate_series(1, 1060) g`,
}

func TestValuesMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.fl", "public.dt"}, valueSetup)
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	for _, q := range valueCases {
		for _, format := range []int16{0, 1} {
			want := pgc.ExecParams(ctx, q, nil, nil, nil, []int16{format}).Read()
			got := sc.ExecParams(ctx, q, nil, nil, nil, []int16{format}).Read()
			var we, ge *pgconn.PgError
			switch {
			case want.Err != nil:
				if !asPgErr(want.Err, &we) {
					t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
				}
				if !asPgErr(got.Err, &ge) || ge.Code != we.Code {
					t.Errorf("%s (format %d): PostgreSQL %s %q; sidecar rows %v, error %v", q, format, we.Code, we.Message, rowsText(got), got.Err)
				}
			case got.Err != nil:
				t.Errorf("%s (format %d): PostgreSQL answered %v; sidecar %v", q, format, rowsText(want), got.Err)
			default:
				if d, w := describe(got), describe(want); d != w {
					t.Errorf("%s (format %d): columns\n got %s\nwant %s", q, format, d, w)
				}
				if g, w := rowsText(got), rowsText(want); !slices.Equal(g, w) {
					t.Errorf("%s (format %d): rows\n got %q\nwant %q", q, format, g, w)
				}
			}
		}
	}
}
