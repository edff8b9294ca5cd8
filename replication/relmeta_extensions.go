package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// extensionMembers are the descriptions of extension e's objects as
// psql's \dx+ lists them (its query's ORDER BY 1, on the server).
const extensionMembers = `ARRAY(SELECT pg_catalog.pg_describe_object(dp.classid, dp.objid, 0) FROM pg_catalog.pg_depend dp
	WHERE dp.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND dp.refobjid = e.oid AND dp.deptype = 'e' ORDER BY 1)`

// readExtensions reads the database's extensions (pg_extension, every
// column), their comments, the schemas they are installed in, the
// descriptions of their objects (search_path public) and every schema's
// name, for the SQL port's pg_extension and psql's \dx and \dx+. A
// database with more than wal.MaxExtensions is recorded without them
// (nil), one with more than wal.MaxExtensionMembers members or schemas
// without those (MembersRead false). One statement: the rows, comments,
// members and schemas are of one snapshot.
func readExtensions(ctx context.Context, conn *pgx.Conn) (*wal.ExtensionFacts, error) {
	var out *wal.ExtensionFacts
	err := underPublicPath(ctx, conn, func() error { // relmeta_schema.go
		var err error
		out, err = queryExtensions(ctx, conn)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("extensions: %w", err)
	}
	return out, nil
}

// queryExtensions is readExtensions' statement.
func queryExtensions(ctx context.Context, conn *pgx.Conn) (*wal.ExtensionFacts, error) {
	rows, err := conn.Query(ctx, `WITH s AS (SELECT count(*) AS n, array_agg(nspname::text ORDER BY nspname::text COLLATE "C") AS names FROM pg_catalog.pg_namespace),
			m AS (SELECT count(*) AS n FROM pg_catalog.pg_depend WHERE refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND deptype = 'e')
		SELECT e.oid::int8, e.extname::text, e.extowner::int8, e.extnamespace::int8, e.extrelocatable, e.extversion,
			e.extconfig::int8[], e.extcondition, d.description IS NOT NULL, coalesce(d.description, ''),
			n.nspname::text, n.nspowner::int8, coalesce(pg_catalog.pg_get_userbyid(n.nspowner)::text, ''), count(*) OVER (),
			s.n + m.n <= $1, CASE WHEN s.n + m.n <= $1 THEN `+extensionMembers+` END, CASE WHEN s.n + m.n <= $1 THEN s.names END
		FROM pg_catalog.pg_extension e
			JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
			LEFT JOIN pg_catalog.pg_description d ON d.objoid = e.oid AND d.classoid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.objsubid = 0
			CROSS JOIN s CROSS JOIN m
		ORDER BY 1`, wal.MaxExtensionMembers)
	if err != nil {
		return nil, err
	}
	out := &wal.ExtensionFacts{}
	seen := map[uint32]bool{}
	var oid, owner, nsp, nspOwner, total int64
	var x wal.ExtensionRow
	var config []int64
	var cond, members, schemas []string
	var ns wal.NamespaceFacts
	_, err = pgx.ForEachRow(rows, []any{&oid, &x.Name, &owner, &nsp, &x.Relocatable, &x.Version, &config, &cond, &x.HasComment, &x.Comment,
		&ns.Name, &nspOwner, &ns.Owner, &total, &out.MembersRead, &members, &schemas}, func() error {
		if total > wal.MaxExtensions {
			return nil
		}
		r := x
		if out.MembersRead {
			r.Members = append([]string{}, members...)
			out.Schemas = append([]string{}, schemas...)
		}
		r.OID, r.Owner, r.Namespace = uint32(oid), uint32(owner), uint32(nsp)
		if config != nil {
			r.Config = make([]uint32, len(config))
			for i, c := range config {
				r.Config[i] = uint32(c)
			}
		}
		if cond != nil {
			r.Condition = append([]string{}, cond...)
		}
		out.Extensions = append(out.Extensions, r)
		if !seen[r.Namespace] {
			seen[r.Namespace] = true
			n := ns
			n.OID, n.OwnerOID = uint32(nsp), uint32(nspOwner)
			out.Namespaces = append(out.Namespaces, n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if total > wal.MaxExtensions {
		return nil, nil
	}
	return out, nil
}
