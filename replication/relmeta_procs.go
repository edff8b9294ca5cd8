package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readProcs reads the pg_proc columns psql's \df and \df+ print of the
// functions outside pg_catalog and information_schema (wal.ProcFacts;
// the same functions readPsqlFunctions reads, Functions nil when more
// than wal.MaxPsqlFunctions): owner, language, kind, volatility,
// parallel safety, security, ACL, prosrc, comment, prosqlbody and
// pg_get_function_sqlbody, pg_get_function_result/arguments/identity_arguments under search_path
// public (how sidecar prints them back: answered only under a path that
// prints alike). pg_proc and pg_description are readable by PUBLIC.
func readProcs(ctx context.Context, conn *pgx.Conn) (*wal.ProcFacts, error) {
	const from = `FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace`
	const user = ` WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')`
	var count int64
	if err := conn.QueryRow(ctx, `SELECT count(*) `+from+user).Scan(&count); err != nil {
		return nil, fmt.Errorf("functions' details: %w", err)
	}
	if count > wal.MaxPsqlFunctions {
		return &wal.ProcFacts{}, nil
	}
	out := &wal.ProcFacts{Functions: []wal.ProcDetail{}}
	err := underPublicPath(ctx, conn, func() error { // relmeta_schema.go
		rows, err := conn.Query(ctx, `SELECT p.oid::int8, p.pronamespace::int8, p.proowner::int8, p.prolang::int8,
				p.prokind::text, p.provolatile::text, p.proparallel::text, p.prosecdef, p.proretset, p.prorettype::int8,
				pg_catalog.pg_get_function_result(p.oid) IS NOT NULL, coalesce(pg_catalog.pg_get_function_result(p.oid), ''),
				coalesce(pg_catalog.pg_get_function_arguments(p.oid), ''), coalesce(pg_catalog.pg_get_function_identity_arguments(p.oid), ''),
				p.proacl IS NOT NULL, coalesce(p.proacl::text[], '{}'), p.prosrc,
				d.description IS NOT NULL, coalesce(d.description, ''),
				p.prosqlbody IS NOT NULL, coalesce(p.prosqlbody::text, ''), coalesce(pg_catalog.pg_get_function_sqlbody(p.oid), '')
			`+from+` LEFT JOIN pg_catalog.pg_description d
				ON d.objoid = p.oid AND d.classoid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objsubid = 0
			`+user+` ORDER BY 1`)
		if err != nil {
			return err
		}
		var oid, ns, owner, lang, ret int64
		var kind, vol, par string
		var acl []string
		var f wal.ProcDetail
		_, err = pgx.ForEachRow(rows, []any{&oid, &ns, &owner, &lang, &kind, &vol, &par, &f.SecDef, &f.RetSet, &ret,
			&f.HasResult, &f.Result, &f.Arguments, &f.IdentityArguments, &f.HasACL, &acl, &f.Src, &f.HasComment, &f.Comment, &f.HasBody, &f.BodyTree, &f.Body}, func() error {
			x := f
			x.OID, x.Namespace, x.Owner, x.Lang, x.RetType = uint32(oid), uint32(ns), uint32(owner), uint32(lang), uint32(ret)
			x.Kind, x.Volatile, x.Parallel = firstByte([]byte(kind)), firstByte([]byte(vol)), firstByte([]byte(par)) // decode.go
			x.ACL = nil
			if x.HasACL {
				x.ACL = append([]string{}, acl...)
			}
			out.Functions = append(out.Functions, x)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("functions' details: %w", err)
	}
	return out, nil
}
