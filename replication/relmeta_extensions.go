package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readExtensions reads the database's extensions (pg_extension, every
// column), their comments and the schemas they are installed in, for
// the SQL port's pg_extension and psql's \dx. A database with more than
// wal.MaxExtensions is recorded without them (nil). One statement: the
// rows, comments and schemas are of one snapshot.
func readExtensions(ctx context.Context, conn *pgx.Conn) (*wal.ExtensionFacts, error) {
	rows, err := conn.Query(ctx, `SELECT e.oid::int8, e.extname::text, e.extowner::int8, e.extnamespace::int8, e.extrelocatable, e.extversion,
			e.extconfig::int8[], e.extcondition, d.description IS NOT NULL, coalesce(d.description, ''),
			n.nspname::text, n.nspowner::int8, coalesce(pg_catalog.pg_get_userbyid(n.nspowner)::text, ''), count(*) OVER ()
		FROM pg_catalog.pg_extension e
			JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
			LEFT JOIN pg_catalog.pg_description d ON d.objoid = e.oid AND d.classoid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.objsubid = 0
		ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("extensions: %w", err)
	}
	out := &wal.ExtensionFacts{}
	seen := map[uint32]bool{}
	var oid, owner, nsp, nspOwner, total int64
	var x wal.ExtensionRow
	var config []int64
	var cond []string
	var ns wal.NamespaceFacts
	_, err = pgx.ForEachRow(rows, []any{&oid, &x.Name, &owner, &nsp, &x.Relocatable, &x.Version, &config, &cond, &x.HasComment, &x.Comment,
		&ns.Name, &nspOwner, &ns.Owner, &total}, func() error {
		if total > wal.MaxExtensions {
			return nil
		}
		r := x
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
		return nil, fmt.Errorf("extensions: %w", err)
	}
	if total > wal.MaxExtensions {
		return nil, nil
	}
	return out, nil
}
