package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readAccess reads, per table of out, what psql's \dp and \d of an
// index read (wal.AccessFacts): relacl of the table, of the sequences it
// owns and of the views listed with it (readSequences and readViews ran
// before) and of the system catalogs sidecar's pg_class lists, their
// columns' attacl, the table's row security policies
// (pg_get_expr under the caller's search_path public) and its indexes'
// own columns (readIndexes ran before). The catalogs are readable by
// PUBLIC.
func readAccess(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	if len(oids) == 0 {
		return nil
	}
	owner := map[uint32]uint32{} // relation (table, sequence, view) → the table whose facts list it
	var rels, indexes []int64
	for _, o := range oids {
		t := uint32(o)
		s := out[t]
		s.Access = &wal.AccessFacts{}
		owner[t] = t
		for _, q := range s.OwnedSequences {
			owner[q.OID] = t
		}
		for _, v := range s.Views {
			owner[v.OID] = t
		}
		for _, x := range s.Indexes {
			owner[x.OID] = t
			indexes = append(indexes, int64(x.OID))
		}
	}
	// The system catalogs pg_class lists (sqlfront/pgcatalog_sysclass.go)
	// go with the table of least OID: their relacl names the bootstrap
	// superuser and differs by major.
	least := uint32(oids[0])
	for _, o := range oids {
		least = min(least, uint32(o))
	}
	for _, sys := range []uint32{1247, 1249, 1255, 1259} {
		owner[sys] = least
	}
	for r := range owner {
		rels = append(rels, int64(r))
	}
	rows, err := conn.Query(ctx, `SELECT c.oid::int8, c.relacl::text[] FROM pg_catalog.pg_class c
		WHERE c.oid = ANY($1::int8[]::oid[]) AND c.relkind <> 'i' ORDER BY 1`, rels)
	if err != nil {
		return fmt.Errorf("relacl: %w", err)
	}
	var oid int64
	var acl []string
	_, err = pgx.ForEachRow(rows, []any{&oid, &acl}, func() error {
		a := out[owner[uint32(oid)]].Access
		a.ACLs = append(a.ACLs, wal.RelationACL{OID: uint32(oid), ACL: acl})
		return nil
	})
	if err != nil {
		return fmt.Errorf("relacl: %w", err)
	}
	rows, err = conn.Query(ctx, `SELECT a.attrelid::int8, a.attname::text, a.attacl::text[] FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = ANY($1::int8[]::oid[]) AND a.attacl IS NOT NULL ORDER BY 1, a.attnum`, rels)
	if err != nil {
		return fmt.Errorf("attacl: %w", err)
	}
	var col string
	_, err = pgx.ForEachRow(rows, []any{&oid, &col, &acl}, func() error {
		a := out[owner[uint32(oid)]].Access
		a.ColumnACLs = append(a.ColumnACLs, wal.ColumnACL{Rel: uint32(oid), Column: col, ACL: acl})
		return nil
	})
	if err != nil {
		return fmt.Errorf("attacl: %w", err)
	}
	if err := readPolicies(ctx, conn, oids, out); err != nil {
		return err
	}
	return readIndexColumns(ctx, conn, indexes, owner, out)
}

// readPolicies reads the tables' pg_policy rows.
func readPolicies(ctx context.Context, conn *pgx.Conn, oids []int64, out map[uint32]*wal.SchemaFacts) error {
	rows, err := conn.Query(ctx, `SELECT p.polrelid::int8, p.oid::int8, p.polname::text, p.polcmd::text, p.polpermissive, p.polroles::int8[],
			p.polqual IS NOT NULL, p.polwithcheck IS NOT NULL,
			coalesce(pg_catalog.pg_get_expr(p.polqual, p.polrelid), ''), coalesce(pg_catalog.pg_get_expr(p.polqual, p.polrelid, true), ''),
			coalesce(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid), ''), coalesce(pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid, true), '')
		FROM pg_catalog.pg_policy p WHERE p.polrelid = ANY($1::int8[]::oid[]) ORDER BY 1, p.ctid`, oids)
	if err != nil {
		return fmt.Errorf("policies: %w", err)
	}
	var rel, oid int64
	var cmd string
	var roles []int64
	var p wal.PolicyFacts
	_, err = pgx.ForEachRow(rows, []any{&rel, &oid, &p.Name, &cmd, &p.Permissive, &roles, &p.HasQual, &p.HasWithCheck,
		&p.Qual, &p.QualPretty, &p.WithCheck, &p.CheckPretty}, func() error {
		x := p
		x.OID, x.Cmd, x.Roles = uint32(oid), charByte(cmd), make([]uint32, len(roles))
		for i, r := range roles {
			x.Roles[i] = uint32(r)
		}
		a := out[uint32(rel)].Access
		a.Policies = append(a.Policies, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("policies: %w", err)
	}
	return nil
}

// readIndexColumns reads the indexes' own pg_attribute rows as psql's
// \d+ of an index reads them (format_type and pg_get_indexdef under the
// caller's search_path public), and its footer's deferrability.
func readIndexColumns(ctx context.Context, conn *pgx.Conn, indexes []int64, owner map[uint32]uint32, out map[uint32]*wal.SchemaFacts) error {
	rows, err := conn.Query(ctx, `SELECT i.indexrelid::int8, c.reltablespace::int8,
			(NOT i.indimmediate) AND EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x') AND condeferrable),
			(NOT i.indimmediate) AND EXISTS (SELECT 1 FROM pg_catalog.pg_constraint WHERE conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x') AND condeferred),
			coalesce((SELECT pg_catalog.array_agg(pg_catalog.jsonb_build_array(a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod),
				pg_catalog.pg_get_indexdef(a.attrelid, a.attnum, true), a.attstorage::text,
				(CASE WHEN a.attstattarget = -1 THEN NULL ELSE a.attstattarget END)::text) ORDER BY a.attnum)
				FROM pg_catalog.pg_attribute a WHERE a.attrelid = i.indexrelid AND a.attnum > 0 AND NOT a.attisdropped), '{}')
		FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
		WHERE i.indexrelid = ANY($1::int8[]::oid[]) ORDER BY 1`, indexes)
	if err != nil {
		return fmt.Errorf("index columns: %w", err)
	}
	var oid, space int64
	var x wal.IndexColumns
	var cols [][]*string
	_, err = pgx.ForEachRow(rows, []any{&oid, &space, &x.Deferrable, &x.Deferred, &cols}, func() error {
		y := x
		y.OID, y.Tablespace, y.Columns = uint32(oid), uint32(space), nil
		for _, c := range cols {
			if len(c) != 5 || c[0] == nil || c[1] == nil || c[2] == nil || c[3] == nil {
				return fmt.Errorf("index %d: a column read as %v", oid, c)
			}
			st := ""
			if c[4] != nil {
				st = *c[4]
			}
			y.Columns = append(y.Columns, wal.IndexColumn{Name: *c[0], Type: *c[1], Def: *c[2], Storage: charByte(*c[3]), StatTarget: st})
		}
		a := out[owner[uint32(oid)]].Access
		a.Indexes = append(a.Indexes, y)
		return nil
	})
	if err != nil {
		return fmt.Errorf("index columns: %w", err)
	}
	return nil
}
