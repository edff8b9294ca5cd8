package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// relationsSQL is columnsSQL (copy.go) for many tables at once, with
// each table's replica identity: the description a Relation message
// would give of each table now.
const relationsSQL = `SELECT a.attrelid, c.relreplident::text, ` + columnDescSQL + `
	WHERE a.attrelid = ANY ($1::oid[])` + publishedColumnsSQL + `
	ORDER BY a.attrelid, a.attnum`

// ReadRelations describes the tables of rels as the copy would now
// (columns, types, typmods, key flags, replica identity), by OID, in
// one query: the daemon's catalog poll compares them with the mirror's
// to see schema changes no row change has carried (mirror.PolledRelation).
// A table PostgreSQL no longer has (or with no column left) is absent
// from the map. Schema and Name are rels'.
func ReadRelations(ctx context.Context, conn *pgx.Conn, rels []*wal.Relation) (map[uint32]*wal.Relation, error) {
	if len(rels) == 0 {
		return nil, nil
	}
	byOID := make(map[uint32]*wal.Relation, len(rels))
	oids := make([]uint32, 0, len(rels))
	for _, r := range rels {
		byOID[r.OID] = r
		oids = append(oids, r.OID)
	}
	rows, err := conn.Query(ctx, relationsSQL, oids)
	if err != nil {
		return nil, fmt.Errorf("read the followed tables' columns: %w", err)
	}
	defer rows.Close()
	out := make(map[uint32]*wal.Relation, len(rels))
	for rows.Next() {
		var oid uint32
		var ident string
		var c wal.Column
		if err := rows.Scan(&oid, &ident, &c.Name, &c.TypeOID, &c.TypeName, &c.TypeMod, &c.Key); err != nil {
			return nil, fmt.Errorf("read the followed tables' columns: %w", err)
		}
		r := out[oid]
		if r == nil {
			old := byOID[oid]
			r = &wal.Relation{OID: oid, Schema: old.Schema, Name: old.Name, Identity: wal.ReplicaIdentity(ident[0])}
			out[oid] = r
		}
		r.Columns = append(r.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the followed tables' columns: %w", err)
	}
	return out, nil
}
