package sqlfront_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestAnyArrayMatchesPostgres (issue 21 item 7's rest): x = ANY (ARRAY
// [...]), = ANY ('{...}') and = ANY ($1) with an array parameter were
// refused on the SQL port; they are answered as PostgreSQL answers,
// NULLs included (an element NULL and no match: NULL; an empty array:
// false; a NULL array: NULL), and <> ALL too.
func TestAnyArrayMatchesPostgres(t *testing.T) {
	r := newRig(t, []string{"public.nums"}, []string{
		"CREATE TABLE nums (id int PRIMARY KEY, n int, s text, f float8)",
		"INSERT INTO nums SELECT g, CASE WHEN g % 5 = 0 THEN NULL ELSE g % 7 END, 's' || (g % 4), g / 3.0 FROM generate_series(1, 40) g",
	})
	stmts := []string{
		"SELECT id FROM nums WHERE id = ANY (ARRAY[1, 5, 9, 100])",
		"SELECT id FROM nums WHERE id = ANY (ARRAY[3, NULL])",
		"SELECT id, n = ANY (ARRAY[1, 2]) FROM nums ORDER BY id",
		"SELECT id, n = ANY (ARRAY[1, NULL]) FROM nums ORDER BY id",
		"SELECT id, n <> ALL (ARRAY[1, 2]) FROM nums ORDER BY id",
		"SELECT id, n <> ALL (ARRAY[1, NULL]) FROM nums ORDER BY id",
		"SELECT id FROM nums WHERE NOT (n = ANY (ARRAY[1, 2, NULL]))",
		"SELECT id FROM nums WHERE s = ANY (ARRAY['s1', 's3'])",
		"SELECT id FROM nums WHERE s = ANY ('{s0,s2}')",
		"SELECT id FROM nums WHERE id = ANY ('{1,2,3}'::int[])",
		"SELECT id FROM nums WHERE n = ANY ('{}'::int[])",
		"SELECT id, n = ANY (NULL::int[]) FROM nums ORDER BY id",
		"SELECT count(*) FROM nums WHERE n = ANY (ARRAY[1, 2, 3])",
		"SELECT id FROM nums WHERE n < ANY (ARRAY[2, 3])",
		"SELECT id FROM nums WHERE n >= ALL (ARRAY[2, 3])",
		"SELECT id FROM nums WHERE f = ANY (ARRAY[1, 2.0, 4])",
		"SELECT 2 = ANY (ARRAY[1, 2]), 3 = ANY (ARRAY[1, NULL]), 1 = ANY (ARRAY[]::int[])",
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, stmts, nil, "HEAD")
	params := map[string]string{
		"SELECT id FROM nums WHERE id = ANY ($1)":                    "{2,4,6,NULL}",
		"SELECT id FROM nums WHERE s = ANY ($1) ORDER BY id":         "{s1,s2}",
		"SELECT id, n = ANY ($1) FROM nums ORDER BY id":              "{1,NULL}",
		"SELECT id FROM nums WHERE id = ANY ($1::int[]) ORDER BY id": "{7,8}",
		"SELECT count(*) FROM nums WHERE n <> ALL ($1)":              "{1,2}",
		"SELECT id FROM nums WHERE id = ANY ($1) AND n IS NOT NULL":  "{}",
	}
	var ps []string
	for q := range params {
		ps = append(ps, q)
	}
	compareWithPostgres(t, r.pgURL, r.sqlURL, ps, func(q string) []byte { return []byte(params[q]) }, "HEAD, parameter")

	// Binary array parameters, as pgx sends a Go slice, and errors.
	ctx := context.Background()
	for _, u := range []string{r.pgURL, r.sqlURL} {
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		rows, _ := c.Query(ctx, "SELECT id FROM nums WHERE id = ANY ($1) ORDER BY id", []int32{4, 2, 99})
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil || !slices.Equal(ids, []int32{2, 4}) {
			t.Errorf("%s: binary int4[] parameter: %v %v", u, ids, err)
		}
		rows, _ = c.Query(ctx, "SELECT id FROM nums WHERE s = ANY ($1) AND id < 5 ORDER BY id", []string{"s1", "s 2", `q"x`})
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil || !slices.Equal(ids, []int32{1}) {
			t.Errorf("%s: binary text[] parameter: %v %v", u, ids, err)
		}
		var pe *pgconn.PgError
		if _, err := c.Exec(ctx, "SELECT id FROM nums WHERE id = ANY ('{1,2')"); !errors.As(err, &pe) || pe.Code != "22P02" {
			t.Errorf("%s: malformed array literal: %v, want 22P02", u, err)
		}
	}
	sc, err := pgx.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	var pe *pgconn.PgError
	if _, err := sc.Exec(ctx, "SELECT id FROM nums WHERE id = ANY ('{{1},{2}}')"); !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Errorf("a two-dimensional array: %v, want 0A000", err)
	}
}
