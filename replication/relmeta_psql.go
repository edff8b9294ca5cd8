package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readPsql reads what psql's describe commands need of the database
// beyond the other facts (wal.PsqlFacts): every schema's ACL (nspacl's
// elements as text) and comment, for \dn+; and the functions outside
// pg_catalog and information_schema (at most wal.MaxPsqlFunctions, else
// not read) with pg_get_functiondef under search_path public, for \sf.
// pg_namespace, pg_description and pg_proc are readable by PUBLIC.
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
	funcs, err := readPsqlFunctions(ctx, conn)
	if err != nil {
		return nil, err
	}
	p.Functions = funcs
	return p, nil
}

// readPsqlFunctions reads the user functions (nil when more than
// wal.MaxPsqlFunctions).
func readPsqlFunctions(ctx context.Context, conn *pgx.Conn) ([]wal.FunctionDetail, error) {
	const user = `FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')`
	var count int64
	if err := conn.QueryRow(ctx, `SELECT count(*) `+user).Scan(&count); err != nil {
		return nil, fmt.Errorf("functions: %w", err)
	}
	if count > wal.MaxPsqlFunctions {
		return nil, nil
	}
	out := []wal.FunctionDetail{}
	err := underPublicPath(ctx, conn, func() error { // relmeta_schema.go
		rows, err := conn.Query(ctx, `SELECT p.oid::int8, n.nspname::text, p.proname::text, p.proargtypes::oid[]::int8[],
				CASE WHEN p.prokind = 'a' THEN '' ELSE pg_catalog.pg_get_functiondef(p.oid) END, p.prokind::text,
				(SELECT count(*) FROM pg_catalog.pg_proc b WHERE b.proname = p.proname AND b.pronamespace = 'pg_catalog'::pg_catalog.regnamespace)
			`+user+` ORDER BY 1`)
		if err != nil {
			return err
		}
		var oid, same int64
		var args []int64
		var kind string
		var f wal.FunctionDetail
		_, err = pgx.ForEachRow(rows, []any{&oid, &f.Schema, &f.Name, &args, &f.Def, &kind, &same}, func() error {
			x := f
			x.OID, x.BuiltinSameName, x.ArgTypes = uint32(oid), int(same), make([]uint32, len(args))
			for i, a := range args {
				x.ArgTypes[i] = uint32(a)
			}
			if kind != "" {
				x.Kind = kind[0]
			}
			out = append(out, x)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("functions: %w", err)
	}
	return out, nil
}
