package sqlfront_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Bytea parameters (a content hash compared with `h = $1`, `= ANY($1)`)
// were refused 0A000 "cannot read a literal of type bytea" in text and
// binary format; an EXECUTE of a bytea or jsonb argument closed the
// connection (FATAL internal error: the argument's value was the
// engine's output cell, not the evaluator's). Compared with PostgreSQL.
func TestByteaParamsAndExecuteArgs(t *testing.T) {
	r := newRig(t, []string{"public.blobs"}, []string{
		"CREATE TABLE blobs (id int PRIMARY KEY, h bytea, doc jsonb)",
		`INSERT INTO blobs VALUES (1, '\x0102', '{"a": 1}'), (2, '\xdeadbeef', '{"a": [2]}'), (3, NULL, NULL), (4, '', '{}')`,
	})
	ctx := context.Background()
	run := func(url string) string {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var b strings.Builder
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
			for _, c := range []struct {
				q    string
				args []any
			}{
				{"SELECT id FROM blobs WHERE h = $1", []any{[]byte{0xde, 0xad, 0xbe, 0xef}}},
				{"SELECT id, length(h) FROM blobs WHERE h = $1 OR id = $2 ORDER BY id", []any{[]byte{1, 2}, 3}},
				{"SELECT id FROM blobs WHERE h = $1", []any{[]byte{}}},
				{"SELECT id FROM blobs WHERE h = ANY($1) ORDER BY id", []any{[][]byte{{1, 2}, {0xde, 0xad, 0xbe, 0xef}}}},
				{"SELECT $1::bytea, md5($1::bytea)", []any{[]byte{0, 1, 0xff}}},
				{"SELECT id FROM blobs WHERE h > $1 ORDER BY id", []any{[]byte{1}}},
			} {
				rows, err := conn.Query(ctx, c.q, append([]any{mode}, c.args...)...)
				if err != nil {
					fmt.Fprintf(&b, "%v %s: error %v\n", mode, c.q, err)
					continue
				}
				for rows.Next() {
					vals, err := rows.Values()
					fmt.Fprintf(&b, "%v %s: %#v %v\n", mode, c.q, vals, err)
				}
				if err := rows.Err(); err != nil {
					fmt.Fprintf(&b, "%v %s: error %v\n", mode, c.q, err)
				}
			}
		}
		return b.String()
	}
	if got, want := run(r.sqlURL), run(r.pgURL); got != want {
		t.Errorf("sidecar:\n%s\nPostgreSQL:\n%s", got, want)
	}
	script := `PREPARE p(bytea) AS SELECT $1, length($1);
EXECUTE p('\x0102');
PREPARE p2(bytea) AS SELECT id FROM blobs WHERE h = $1;
EXECUTE p2('\xdeadbeef');
PREPARE p3(jsonb) AS SELECT $1->'a', $1;
EXECUTE p3('{"a": 1}');
PREPARE p4(jsonb) AS SELECT id FROM blobs WHERE doc = $1;
EXECUTE p4('{"a": [2]}');
PREPARE p5(float8) AS SELECT $1 * 2;
EXECUTE p5('NaN');
`
	if got, want := psqlScript(t, r.sqlURL, script), psqlScript(t, r.pgURL, script); got != want {
		t.Errorf("psql:\n%s\nPostgreSQL:\n%s", got, want)
	}
}
