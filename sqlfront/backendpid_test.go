package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestBackendPID: pg_backend_pid() is the process ID the session's
// BackendKeyData gave the client (what its CancelRequest names), as
// PostgreSQL's is its backend's; two sessions have two. Tools select it
// when they connect (it was 0A000).
func TestBackendPID(t *testing.T) {
	r := newRig(t, nil, nil)
	ctx := context.Background()
	var pids []uint32
	for range 2 {
		c, err := pgx.Connect(ctx, r.sqlURL)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
			var pid int32
			var typ string
			if err := c.QueryRow(ctx, "SELECT pg_backend_pid(), pg_typeof(pg_backend_pid())::text", mode).Scan(&pid, &typ); err != nil {
				t.Fatal(err)
			}
			if uint32(pid) != c.PgConn().PID() || typ != "integer" {
				t.Fatalf("pg_backend_pid() = %d (%s), BackendKeyData said %d", pid, typ, c.PgConn().PID())
			}
		}
		pids = append(pids, c.PgConn().PID())
	}
	if pids[0] == pids[1] {
		t.Fatalf("two sessions, one pid %d", pids[0])
	}
}
