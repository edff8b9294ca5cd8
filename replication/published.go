package replication

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// PublishedTables returns the ordinary and partitioned tables publication
// name publishes now (FOR ALL TABLES, listed, or of a listed schema): the
// daemon asks whether a followed table re-created under its name is
// published again.
func PublishedTables(ctx context.Context, conn *pgx.Conn, name string) (map[wal.TableName]bool, error) {
	return publishedTables(ctx, conn, name)
}

// AddToPublication adds t to publication name (a publication the sidecar
// manages), waiting at most 5 s for the table's lock.
func AddToPublication(ctx context.Context, conn *pgx.Conn, name string, t wal.TableName) error {
	return addToPublication(ctx, conn, name, t)
}
