package sqlfront_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestJSONParams: json and jsonb parameters (pgx's prepared, binary
// mode) answer as PostgreSQL. Before, a jsonb parameter was refused
// ("sidecar cannot read a literal of type jsonb"): `meta @> $1` from an
// application failed.
func TestJSONParams(t *testing.T) {
	r := newRig(t, []string{"public.docs"}, []string{
		"CREATE TABLE docs (id int PRIMARY KEY, meta jsonb, raw json)",
		`INSERT INTO docs SELECT i, jsonb_build_object('src', (ARRAY['web','app','api'])[1 + i % 3], 'n', i % 5, 'tags', jsonb_build_array('a', i % 4)), json_build_object('x', i) FROM generate_series(1, 40) i`,
	})
	ctx := context.Background()
	for _, c := range []struct {
		q    string
		args []any
	}{
		{"SELECT id, meta->>$1 FROM docs WHERE meta @> $2 ORDER BY id", []any{"src", `{"src":"api"}`}},
		{"SELECT id FROM docs WHERE meta = $1 ORDER BY id", []any{`{"n": 2.0, "src": "app", "tags": ["a", 2]}`}},
		{"SELECT id FROM docs WHERE meta->'n' = $1::jsonb ORDER BY id", []any{`2.00`}},
		{"SELECT $1::jsonb, $2::json", []any{`{"b":1, "a": [1.0, 2]}`, `{"b":1,  "a":2}`}},
		{"SELECT id FROM docs WHERE raw::text = $1", []any{`{"x" : 5}`}},
	} {
		run := func(url string) string { return pgxRowsText(t, ctx, url, nil, c.q, c.args...) }
		if got, want := run(r.sqlURL), run(r.pgURL); got != want {
			t.Errorf("%s %v:\n%s\nPostgreSQL:\n%s", c.q, c.args, got, want)
		}
	}
}

// pgxRowsText runs q with args over a pgx connection to url (configured
// by mode when not nil) and gives its rows as %#v lines, or its error.
func pgxRowsText(t *testing.T, ctx context.Context, url string, mode func(*pgx.ConnConfig), q string, args ...any) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	if mode != nil {
		mode(cfg)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		return "error " + err.Error()
	}
	var b strings.Builder
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return "error " + err.Error()
		}
		fmt.Fprintf(&b, "%#v\n", vals)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "error " + err.Error()
	}
	return b.String()
}
