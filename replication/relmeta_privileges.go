package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readPrivileges reads the column ACLs (attacl) of the relation list's
// relations (readRelationList's: relationListFrom/Where), the
// non-dropped user columns that have one (wal.PrivilegeFacts): what the
// SQL port needs, with relacl, nspacl and the roles, to evaluate
// has_column_privilege and has_any_column_privilege for a session's
// role (information_schema.tables, .columns, .key_column_usage filter
// their rows by them). At most wal.MaxColumnACLs, else none (ColumnACLs
// nil: what needs them stays refused). pg_attribute is readable by
// PUBLIC.
func readPrivileges(ctx context.Context, conn *pgx.Conn) (*wal.PrivilegeFacts, error) {
	rows, err := conn.Query(ctx, `SELECT a.attrelid::int8, a.attname::text, a.attacl::text[]
		`+relationListFrom+`
		JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attacl IS NOT NULL
		`+relationListWhere+` ORDER BY 1, a.attnum LIMIT $1`, wal.MaxColumnACLs+1)
	if err != nil {
		return nil, fmt.Errorf("column privileges: %w", err)
	}
	p := &wal.PrivilegeFacts{ColumnACLs: []wal.ColumnACL{}}
	var rel int64
	var c wal.ColumnACL
	var acl []string
	_, err = pgx.ForEachRow(rows, []any{&rel, &c.Column, &acl}, func() error {
		p.ColumnACLs = append(p.ColumnACLs, wal.ColumnACL{Rel: uint32(rel), Column: c.Column, ACL: append([]string{}, acl...)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("column privileges: %w", err)
	}
	if len(p.ColumnACLs) > wal.MaxColumnACLs {
		p.ColumnACLs = nil
	}
	return p, nil
}
