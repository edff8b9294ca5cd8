package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readPsql reads what psql's describe commands need of the database
// beyond the other facts (wal.PsqlFacts): every schema's ACL (nspacl's
// elements as text) and comment, for \dn+. pg_namespace and
// pg_description are readable by PUBLIC.
func readPsql(ctx context.Context, conn *pgx.Conn) (*wal.PsqlFacts, error) {
	rows, err := conn.Query(ctx, `SELECT n.oid::int8, n.nspname::text, n.nspacl IS NOT NULL, coalesce(n.nspacl::text[], '{}'),
			d.description IS NOT NULL, coalesce(d.description, '')
		FROM pg_catalog.pg_namespace n LEFT JOIN pg_catalog.pg_description d
			ON d.objoid = n.oid AND d.classoid = 'pg_catalog.pg_namespace'::pg_catalog.regclass AND d.objsubid = 0
		ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("schemas' ACLs and comments: %w", err)
	}
	p := &wal.PsqlFacts{Namespaces: []wal.NamespaceDetail{}}
	var oid int64
	var n wal.NamespaceDetail
	var acl []string
	_, err = pgx.ForEachRow(rows, []any{&oid, &n.Name, &n.HasACL, &acl, &n.HasComment, &n.Comment}, func() error {
		x := n
		x.OID = uint32(oid)
		if x.HasACL {
			x.ACL = append([]string{}, acl...)
		}
		p.Namespaces = append(p.Namespaces, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("schemas' ACLs and comments: %w", err)
	}
	return p, nil
}
