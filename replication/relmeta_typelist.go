package replication

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readTypeList reads every pg_type row of the database but those of
// temporary schemas (whether there are some is recorded; at most
// wal.MaxListedTypes, else none: Types nil) with what pgjdbc's
// getTypeInfo, getUDTs and type cache read of it — name, schema,
// typtype, whether typinput is array_in, the relkind of its relation,
// its base type and comment — in ctid order: the order PostgreSQL's
// sequential scan, and so pgjdbc's getTypeInfo without ORDER BY, returns
// them in. pg_type, pg_class and pg_description are readable by PUBLIC.
func readTypeList(ctx context.Context, conn *pgx.Conn) (*wal.TypeListFacts, error) {
	var n int64
	l := &wal.TypeListFacts{}
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE NOT `+typeListTemp+`), count(*) FILTER (WHERE `+typeListTemp+`) > 0
		FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace`).Scan(&n, &l.TempTypes); err != nil {
		return nil, fmt.Errorf("pg_type rows: %w", err)
	}
	if n > wal.MaxListedTypes {
		return l, nil
	}
	rows, err := conn.Query(ctx, `SELECT t.oid::int8, t.typnamespace::int8, t.typname::text, t.typtype::text,
			t.typinput = 'pg_catalog.array_in'::pg_catalog.regproc, coalesce(c.relkind::text, ''), t.typbasetype::int8, coalesce(d.description, '')
		FROM pg_catalog.pg_type t
		JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
		LEFT JOIN pg_catalog.pg_class c ON c.oid = t.typrelid
		LEFT JOIN pg_catalog.pg_description d ON d.objoid = t.oid AND d.classoid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.objsubid = 0
		WHERE NOT `+typeListTemp+`
		ORDER BY t.ctid`)
	if err != nil {
		return nil, fmt.Errorf("pg_type rows: %w", err)
	}
	l.Types = []wal.TypeListEntry{}
	var oid, nsp, base int64
	var typ, relkind string
	var t wal.TypeListEntry
	_, err = pgx.ForEachRow(rows, []any{&oid, &nsp, &t.Name, &typ, &t.IsArray, &relkind, &base, &t.Comment}, func() error {
		if len(l.Types) >= wal.MaxListedTypes {
			return errTooManyTypes // created since the count: not read
		}
		x := t
		x.OID, x.Namespace, x.BaseType, x.Type, x.RelKind = uint32(oid), uint32(nsp), uint32(base), charByte(typ), charByte(relkind)
		l.Types = append(l.Types, x)
		return nil
	})
	if errors.Is(err, errTooManyTypes) {
		return &wal.TypeListFacts{TempTypes: l.TempTypes}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pg_type rows: %w", err)
	}
	return l, nil
}

// typeListTemp is true of a type in a temporary schema (n: its
// pg_namespace row): another session's temporary table's row type.
const typeListTemp = `(n.nspname ~ '^pg_(toast_)?temp_')`

// errTooManyTypes stops readTypeList's scan past wal.MaxListedTypes.
var errTooManyTypes = errors.New("more pg_type rows than read")
