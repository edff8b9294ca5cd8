package sqlfront_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Issue 21 (wrong answers): a jsonb column in binary format (pgx's and
// asyncpg's default, psycopg's binary cursors) was decoded into a Go map
// and encoded again — `\x01{"amount":1.5,"items":[1,1]}` where
// PostgreSQL's jsonb_send gives `\x01{"items": [1, 1], "amount": 1.5}`
// (version 1, then jsonb_out's text: keys by length, then bytes).
func TestJSONBBinaryFormat(t *testing.T) {
	r := newRig(t, []string{"public.jb"}, []string{
		"CREATE TABLE jb (id int PRIMARY KEY, j jsonb, a jsonb[])",
		`INSERT INTO jb VALUES (1, '{"items": [1, 1], "amount": 1.5, "b": {"z": 1, "aa": null}}', NULL), (2, '[1, "x", true, null, 2.50]', NULL), (3, '"s"', NULL), (4, NULL, NULL), (5, '{}', NULL), (6, '12345678901234567890.50', NULL)`,
	})
	ctx := context.Background()
	conns := map[string]*pgconn.PgConn{}
	for name, url := range map[string]string{"postgresql": r.pgURL, "sidecar": r.sqlURL} {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		conns[name] = c
	}
	for _, q := range []string{"SELECT id, j FROM jb ORDER BY id", "SELECT j -> 'b', j -> 0 FROM jb ORDER BY id", "SELECT jsonb_build_object('k', id, 'a', 1) FROM jb WHERE id < 3 ORDER BY id"} {
		for _, args := range [][][]byte{nil} {
			rw := conns["postgresql"].ExecParams(ctx, q, args, nil, nil, []int16{1}).Read()
			rg := conns["sidecar"].ExecParams(ctx, q, args, nil, nil, []int16{1}).Read()
			if rw.Err != nil {
				t.Fatalf("%s on PostgreSQL: %v", q, rw.Err)
			}
			if rg.Err != nil || !slices.EqualFunc(rw.Rows, rg.Rows, func(a, b [][]byte) bool {
				return slices.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) && (x == nil) == (y == nil) })
			}) {
				t.Errorf("%s in binary format:\n  sidecar    %v %q\n  PostgreSQL %q", q, rg.Err, rg.Rows, rw.Rows)
			}
		}
	}
}
