package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readPartitions reads, per table, its partition bound
// (pg_get_expr(relpartbound, oid)) and partition constraint
// (pg_get_partition_constraintdef) — what psql's \d and \d+ print of a
// partition (wal.PartitionFacts). Every table gets facts, empty when it
// is not a partition. The constraint names types as the search path
// finds them: it is read with search_path public, as the column
// defaults are (readColumnFacts), and the SQL port answers it under
// that path only.
func readPartitions(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32]*wal.PartitionFacts, error) {
	out := map[uint32]*wal.PartitionFacts{}
	for _, o := range oids {
		out[uint32(o)] = &wal.PartitionFacts{}
	}
	err := underPublicPath(ctx, conn, func() error { // relmeta_searchpath.go
		rows, err := conn.Query(ctx, `SELECT c.oid::int8, coalesce(pg_catalog.pg_get_expr(c.relpartbound, c.oid), ''),
				coalesce(pg_catalog.pg_get_partition_constraintdef(c.oid), '')
			FROM pg_catalog.pg_class c WHERE c.oid = ANY($1::int8[]::oid[]) AND c.relispartition`, oids)
		if err != nil {
			return err
		}
		var oid int64
		var bound, constraint string
		_, err = pgx.ForEachRow(rows, []any{&oid, &bound, &constraint}, func() error {
			if p := out[uint32(oid)]; p != nil {
				p.Bound, p.Constraint = bound, constraint
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read partition bounds: %w", err)
	}
	return out, nil
}
