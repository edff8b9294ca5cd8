package replication

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// Middle-level partitioned tables (issue 21). A partition that is itself
// partitioned (root → mid → leaves) holds no rows, like the root: `FROM
// mid` reads its leaves. ReadPartRoots describes every such table under a
// followed root as it describes the root (its columns, its leaves at
// every level below it), so the mirror records it under its own name
// and the SQL port answers `FROM mid` by the root's rules.

// partitioned is a partitioned table by OID and name.
type partitioned struct {
	oid  int64
	name wal.TableName
}

// midLevels returns the partitioned tables below the partitioned table
// root at every level (not root itself), ordered by name.
func midLevels(ctx context.Context, conn *pgx.Conn, root int64) ([]partitioned, error) {
	rows, err := conn.Query(ctx, `SELECT pt.relid::int8, n.nspname::text, c.relname::text FROM pg_catalog.pg_partition_tree($1::int8::oid) pt
		JOIN pg_catalog.pg_class c ON c.oid = pt.relid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE NOT pt.isleaf AND pt.level > 0 AND c.relkind = 'p' ORDER BY 2, 3`, root)
	if err != nil {
		return nil, err
	}
	var out []partitioned
	var p partitioned
	_, err = pgx.ForEachRow(rows, []any{&p.oid, &p.name.Schema, &p.name.Name}, func() error {
		out = append(out, p)
		return nil
	})
	return out, err
}
