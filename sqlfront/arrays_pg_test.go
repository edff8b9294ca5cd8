package sqlfront_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestArraysMatchPostgres (issues 22/23): array columns and array
// expressions over the SQL port — whichever path answers (the flat
// planner for plain column reads and = ANY, sql/exec for the rest) —
// in text and binary format, as PostgreSQL answers: constructors,
// '{…}' input, quoting on output, subscripts, ANY/ALL with NULLs and
// empty arrays, the array functions, ||. What sidecar does not build is
// refused with 0A000.
func TestArraysMatchPostgres(t *testing.T) {
	r := newRig(t, []string{"public.arr"}, []string{
		"CREATE TABLE arr (id int PRIMARY KEY, ia int[], ta text[], na numeric[], fa float8[], da date[], tsa timestamptz[], ba bool[])",
		`INSERT INTO arr VALUES
			(1, '{1,2,3}', '{a,"b c",NULL}', '{1.50,2}', '{0.1,NaN}', '{2020-01-01,infinity}', '{"2020-01-01 10:00:00+02"}', '{t,f}'),
			(2, '{}', '{}', '{}', '{}', '{}', '{}', '{}'),
			(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			(4, '{NULL,5}', '{"",NULL,"NULL","x\\y","q\"r"}', '{NaN,-0.5}', '{-Infinity,1e300}', '{NULL}', '{NULL}', '{NULL,t}'),
			(5, '{3,2,1}', '{"{",",","}"," "}', '{1e-3}', '{3}', '{1999-12-31}', '{"1999-12-31 23:00:00+00",infinity}', '{f}')`,
	})
	stmts := []string{
		"SELECT id, ia, ta, na, fa, da, tsa, ba FROM arr ORDER BY id",
		"SELECT id, ia[1], ia[3], ia[0], ta[2], na[1], fa[2], da[1], tsa[1], ba[2] FROM arr ORDER BY id",
		"SELECT id, array_length(ia, 1), cardinality(ta), array_upper(na, 1), array_lower(fa, 1), array_ndims(da), array_dims(ta) FROM arr ORDER BY id",
		"SELECT id, array_to_string(ia, ','), array_to_string(ta, '|', '-') FROM arr ORDER BY id",
		"SELECT id, 2 = ANY(ia), 2 <> ALL(ia), NULL::int = ANY(ia), 1.5 = ANY(na), 'a' = ANY(ta) FROM arr ORDER BY id",
		"SELECT id FROM arr WHERE 3 = ANY(ia) ORDER BY id",
		"SELECT id FROM arr WHERE id = ANY(ARRAY[1, 4, NULL]) ORDER BY id",
		"SELECT id, ia = '{1,2,3}', ia = ARRAY[]::int[], ia || 9, ta || ARRAY['z'] FROM arr ORDER BY id",
		"SELECT ARRAY[1, 2], ARRAY['a b', NULL, ''], ARRAY[1.5, 2], ARRAY[]::text[], '{x,\"y z\"}'::text[], ARRAY['2020-01-01'::date]",
		"SELECT id, ARRAY[id, id * 10] FROM arr ORDER BY id",
		"SELECT ia, count(*) FROM arr GROUP BY ia ORDER BY 2, 1",
		"SELECT a.id, b.id FROM arr a JOIN arr b ON a.ia = b.ia ORDER BY 1, 2",
		"SELECT id, ia::text, ia::bigint[] FROM arr ORDER BY id",
		"SELECT array_agg(id ORDER BY id DESC), array_agg(ia[1] ORDER BY id), array_agg(fa[1] ORDER BY id) FILTER (WHERE id > 2) FROM arr",
		"SELECT id % 2, array_agg(na[1] ORDER BY id) FROM arr GROUP BY 1 ORDER BY 1",
		"SELECT * FROM unnest(ARRAY['a', NULL, 'b c']) WITH ORDINALITY AS u(v, n)",
		"SELECT arr.id, u FROM arr JOIN unnest(ARRAY[1, 4]) u ON u = arr.id ORDER BY 1",
		"SELECT * FROM generate_series(0.5, 2, 0.25)",
		"SELECT current_schemas(false), current_schemas(true), 'public' = ANY(current_schemas(false)), (current_schemas(true))[1]",
		"SELECT id FROM arr WHERE 'public' = ANY(current_schemas(false)) ORDER BY id",
		"SELECT id, concat(ia, '|', ta), format('%s/%s', na, ba), ia::text || '!' FROM arr ORDER BY id",
		"SELECT id, coalesce(ia, '{0}'), ia IS NULL FROM arr WHERE ia IS NOT NULL OR id = 3 ORDER BY id",
		"SELECT g, count(*) FROM generate_series('2024-01-30'::timestamp, '2024-06-01', '1 month') g GROUP BY g ORDER BY g",
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, stmts, nil, "HEAD")
	// Array parameters on the sql/exec path (before, one read as NULL).
	params := map[string]string{
		"SELECT id FROM arr WHERE ia = $1 ORDER BY id":                           "{1,2,3}",
		"SELECT id, $1::int[] = ia, cardinality($1::int[]) FROM arr ORDER BY id": "{3,2,1}",
		"SELECT id FROM arr WHERE ia[1] = ANY($1) ORDER BY id":                   "{1,NULL,3}",
		"SELECT id, ta || $1::text[] FROM arr ORDER BY id":                       `{"x y",NULL}`,
	}
	var ps []string
	for q := range params {
		ps = append(ps, q)
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, ps, func(q string) []byte { return []byte(params[q]) }, "HEAD, parameter")

	// Errors: PostgreSQL's SQLSTATE; refusals: 0A000.
	ctx := context.Background()
	codes := map[string][2]string{ // statement → PostgreSQL's code, sidecar's
		"SELECT '{1,2'::int[]":                    {"22P02", "22P02"},
		"SELECT '{a}'::int[] FROM arr":            {"22P02", "22P02"},
		"SELECT ARRAY[]":                          {"42P18", "42P18"},
		"SELECT ARRAY[ARRAY[1, 2]] FROM arr":      {"", "0A000"},
		"SELECT ia[1:2] FROM arr":                 {"", ""}, // slices answered since session 14 (sql/exec arrayslice.diff.sql)
		"SELECT ia[1:2][1] FROM arr":              {"", "0A000"},
		"SELECT id FROM arr WHERE ia @> ARRAY[1]": {"", ""}, // answered since session 12 (its rows: sql/exec arraycontain.diff.sql)
		"SELECT '{{1},{2}}'::int[] FROM arr":      {"", "0A000"},
	}
	for q, want := range codes {
		for i, u := range []string{r.pgURL, r.sqlURL} {
			c, err := pgconn.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			err = c.ExecParams(ctx, q, nil, nil, nil, nil).Read().Err
			c.Close(ctx)
			code := ""
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				code = pe.Code
			}
			if code != want[i] {
				t.Errorf("%s on %s: SQLSTATE %q (%v), want %q", q, []string{"PostgreSQL", "sidecar"}[i], code, err, want[i])
			}
		}
	}
}
