package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Issue 23 item 3: `AS OF $1` takes its ref from a bound parameter (what
// psycopg 3 sends for `AS OF %s`), in every pgx execution mode that
// binds parameters; each Bind reads its own ref.
func TestAsOfParameter(t *testing.T) {
	r := historyRig(t)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
		pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec} {
		conn := connectMode(t, r.sqlURL, mode)
		for _, c := range []struct{ ref, want string }{{"HEAD~2", "n1"}, {"HEAD", "renamed"}, {"HEAD~2", "n1"}, {r.lsns[0], "renamed"}} {
			var name string
			if err := conn.QueryRow(ctx, "SELECT name FROM accounts AS OF $1 WHERE id = $2", c.ref, 1).Scan(&name); err != nil || name != c.want {
				t.Errorf("mode %v, AS OF $1 = %s: %q %v, want %q", mode, c.ref, name, err, c.want)
			}
		}
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM accounts AS OF $1 WHERE id = $2", r.lsns[0], 2).Scan(&n); err != nil || n != 1 {
			t.Errorf("mode %v: count AS OF $1: %d %v", mode, n, err)
		}
		_, err := conn.Exec(ctx, "SELECT * FROM accounts AS OF $1", "nosuchref")
		if pgCode(err) != "22023" {
			t.Errorf("mode %v: AS OF $1 = nosuchref: want 22023, got %v", mode, err)
		}
		conn.Close(ctx)
	}
}
