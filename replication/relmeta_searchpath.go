package replication

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// The catalog readers print expressions, types and names through
// PostgreSQL's own functions (pg_get_expr, format_type, regclass text),
// whose output depends on the session's search_path: each runs its
// queries under the path the SQL port answers them under, and leaves
// the connection's own path as it found it.

// underSearchPath runs fn with the session's search_path set to path,
// and sets it back after (fn's error first).
func underSearchPath(ctx context.Context, conn *pgx.Conn, path string, fn func() error) error {
	var old string
	if err := conn.QueryRow(ctx, `SELECT pg_catalog.current_setting('search_path')`).Scan(&old); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `SELECT pg_catalog.set_config('search_path', $1, false)`, path); err != nil {
		return err
	}
	err := fn()
	if _, rerr := conn.Exec(ctx, `SELECT pg_catalog.set_config('search_path', $1, false)`, old); err == nil {
		err = rerr
	}
	return err
}

// underPublicPath runs fn under search_path public (the path the SQL
// port answers catalog text under).
func underPublicPath(ctx context.Context, conn *pgx.Conn, fn func() error) error {
	return underSearchPath(ctx, conn, "public", fn)
}
