package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// EmitMarker commits, over a plain (not replication) connection to
// connString, a transaction holding only a transactional logical decoding
// message with prefix and content. Its commit lies after everything
// committed before the call, and the stream carries it (the streamer asks
// pgoutput for messages): once the sink has taken it, every earlier
// commit is taken, without waiting for the next write or keepalive. It
// writes WAL only, no table. It fails on a standby (read-only).
func EmitMarker(ctx context.Context, connString, prefix, content string) error {
	cfg, err := pgconn.ParseConfig(connString)
	if err != nil {
		return fmt.Errorf("emit marker: %w", err)
	}
	delete(cfg.RuntimeParams, "replication")
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("emit marker: %w", err)
	}
	defer closeConn(conn)
	if _, _, err := simpleQuery(ctx, conn, fmt.Sprintf("SELECT pg_catalog.pg_logical_emit_message(true, %s, %s)", quoteLiteral(prefix), quoteLiteral(content))); err != nil {
		return fmt.Errorf("emit marker: %w", err)
	}
	return nil
}
