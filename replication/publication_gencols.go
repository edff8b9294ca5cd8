package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// publishesGeneratedColumns reports whether publication name has
// publish_generated_columns on (PostgreSQL 18: pg_publication.pubgencols
// 's'; read through to_jsonb so that every major's catalog serves). The
// stream then carries generated columns in its Relation messages and
// rows while the copy (COPY TO) leaves them out, so every change of such
// a table looked like a schema change: a resync that copied the table
// again, over and over (seen on 18). The sidecar's own publications
// leave it off; a user's publication with it on is refused, as one with
// a column list is.
func publishesGeneratedColumns(ctx context.Context, conn *pgx.Conn, name string) (bool, error) {
	var v *string
	err := conn.QueryRow(ctx, `SELECT pg_catalog.to_jsonb(p)->>'pubgencols' FROM pg_catalog.pg_publication p WHERE p.pubname = $1`, name).Scan(&v)
	if err != nil {
		return false, fmt.Errorf("read publication %q: %w", name, err)
	}
	return v != nil && *v != "n" && *v != "false" && *v != "", nil
}
