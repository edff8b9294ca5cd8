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
}

var valueSetup = []string{
	`CREATE TABLE fl (id int PRIMARY KEY, r real, x int, k int)`,
	`INSERT INTO fl SELECT g, CASE WHEN g > 60 THEN 0.1 ELSE (g * 1.37 + 0.0123)::real / 7 END,
		CASE WHEN g = 1 THEN -2147483648 ELSE g END, g % 3 FROM generate_series(1, 1060) g`,
}

func TestValuesMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.fl"}, valueSetup)
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
