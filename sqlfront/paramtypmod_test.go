package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestParamCastTypmod: a parameter cast to a type with a typmod
// ($1::char(3), $1::varchar(1), $1::numeric(5,1), $1::varchar(2)[]) is
// read as the type without it and then coerced to the length or scale,
// as PostgreSQL does (a parameter's type has no typmod). Before, the
// parameter took the typmod-carrying type itself and no coercion ran:
// 'ab' answered 'ab' (PostgreSQL 'ab '), '1.25' 1.25 (1.3), and
// `name = $1::varchar(3)` matched 'Books' (PostgreSQL compares 'Boo').
// psycopg 3 sends str parameters untyped, so `%s::char(3)` hit this.
func TestParamCastTypmod(t *testing.T) {
	r := newRig(t, []string{"public.cats"}, []string{
		"CREATE TABLE cats (id int PRIMARY KEY, name text, code char(4))",
		"INSERT INTO cats VALUES (1, 'Books', 'ab'), (2, 'Boo', 'abc'), (3, 'Garden', NULL)",
	})
	ctx := context.Background()
	cases := []struct {
		q   string
		arg string
	}{
		{"SELECT $1::char(3)", "ab"},
		{"SELECT $1::char(3) || '|', length($1::char(3))", "ab"},
		{"SELECT $1::char(3) FROM cats WHERE id = 1", "ab"},
		{"SELECT $1::varchar(1)", "ab"},
		{"SELECT $1::varchar(1) FROM cats WHERE id = 1", "ab"},
		{"SELECT $1::numeric(5,1)", "1.25"},
		{"SELECT $1::numeric(5,1) FROM cats WHERE id = 1", "1.25"},
		{"SELECT $1::numeric(3,1)", "123.4"},
		{"SELECT $1::varchar(2)[]", "{abc,d}"},
		{"SELECT id FROM cats WHERE name = $1::varchar(3) ORDER BY id", "Books"},
		{"SELECT id FROM cats WHERE code = $1::char(2) ORDER BY id", "abc"},
		{"SELECT $1::timestamp(0)", "2024-01-01 10:00:00.6"},
	}
	// QueryExecModeDescribeExec: pgx prepares the statement unnamed and
	// sends the argument as text in the type the server describes, as
	// psycopg 3 does with an untyped str.
	run := func(url, q, arg string) string {
		return pgxRowsText(t, ctx, url, func(c *pgx.ConnConfig) { c.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec }, q, arg)
	}
	for _, c := range cases {
		if got, want := run(r.sqlURL, c.q, c.arg), run(r.pgURL, c.q, c.arg); got != want {
			t.Errorf("%s [%s]:\n%s\nPostgreSQL:\n%s", c.q, c.arg, got, want)
		}
	}
}
