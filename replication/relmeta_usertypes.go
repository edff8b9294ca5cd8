package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// userTypesWhere selects the source database's own domains and enums:
// every schema but pg_catalog and information_schema (information_schema's
// domains are read with the schemas, relmeta_namespaces.go).
const userTypesWhere = `d.typtype IN ('d', 'e') AND d.typnamespace NOT IN (SELECT oid FROM pg_catalog.pg_namespace
	WHERE nspname IN ('pg_catalog', 'information_schema'))`

// readUserTypes reads the database's domains and enums, their array
// types, their enums' labels (pg_enum), their schemas and the other
// pg_type rows sharing their names (which can hide one on a search
// path) for the SQL port's pg_type, pg_enum and pg_namespace: pg_type
// lists them whether or not a followed column uses them, and SQLAlchemy
// reflects them whole. A database with more than wal.MaxUserTypes is
// recorded without them (nil: the port refuses what they answer).
func readUserTypes(ctx context.Context, conn *pgx.Conn) (*wal.UserTypeFacts, error) {
	var n int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_type d WHERE `+userTypesWhere).Scan(&n); err != nil {
		return nil, fmt.Errorf("user types: %w", err)
	}
	if n > wal.MaxUserTypes {
		return nil, nil
	}
	rows, err := conn.Query(ctx, `WITH u AS (SELECT d.oid, d.typarray FROM pg_catalog.pg_type d WHERE `+userTypesWhere+`)
		SELECT t.oid::int8, t.typnamespace::int8, t.typowner::int8, t.typname::text, t.typlen, t.typbyval, t.typtype::text,
			t.typcategory::text, t.typdelim::text, t.typalign::text, t.typstorage::text, t.typelem::int8, t.typarray::int8, t.typnotnull,
			t.typbasetype::int8, t.typtypmod, t.typcollation::int8, coalesce(t.typdefault, ''), t.typdefault IS NOT NULL, t.typndims
		FROM pg_catalog.pg_type t
		WHERE t.oid IN (SELECT oid FROM u) OR t.oid IN (SELECT typarray FROM u)
		ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("user types: %w", err)
	}
	u := &wal.UserTypeFacts{}
	var oid, elem, array, base, coll, nsp, owner int64
	var typ, cat, delim, align, storage string
	var t wal.TypeFacts
	_, err = pgx.ForEachRow(rows, []any{&oid, &nsp, &owner, &t.Name, &t.Len, &t.ByVal, &typ, &cat, &delim, &align, &storage, &elem, &array,
		&t.NotNull, &base, &t.TypMod, &coll, &t.Default, &t.HasDefault, &t.NDims}, func() error {
		x := t
		x.OID, x.Namespace, x.Owner, x.Elem, x.Array, x.BaseType, x.Collation = uint32(oid), uint32(nsp), uint32(owner), uint32(elem), uint32(array), uint32(base), uint32(coll)
		x.Type, x.Category, x.Delim, x.Align, x.Storage = charByte(typ), charByte(cat), charByte(delim), charByte(align), charByte(storage)
		u.Types = append(u.Types, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("user types: %w", err)
	}
	rows, err = conn.Query(ctx, `SELECT e.oid::int8, e.enumtypid::int8, e.enumsortorder, e.enumlabel::text FROM pg_catalog.pg_enum e
		WHERE e.enumtypid IN (SELECT d.oid FROM pg_catalog.pg_type d WHERE `+userTypesWhere+`) ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("enum labels: %w", err)
	}
	var typOID int64
	var l wal.EnumLabel
	_, err = pgx.ForEachRow(rows, []any{&oid, &typOID, &l.SortOrder, &l.Label}, func() error {
		x := l
		x.OID, x.TypeOID = uint32(oid), uint32(typOID)
		u.Labels = append(u.Labels, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("enum labels: %w", err)
	}
	rows, err = conn.Query(ctx, `SELECT n.oid::int8, n.nspname::text, n.nspowner::int8, coalesce(pg_catalog.pg_get_userbyid(n.nspowner)::text, '')
		FROM pg_catalog.pg_namespace n WHERE n.oid IN (SELECT d.typnamespace FROM pg_catalog.pg_type d WHERE `+userTypesWhere+`) ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("user types' schemas: %w", err)
	}
	var ns wal.NamespaceFacts
	_, err = pgx.ForEachRow(rows, []any{&oid, &ns.Name, &owner, &ns.Owner}, func() error {
		x := ns
		x.OID, x.OwnerOID = uint32(oid), uint32(owner)
		u.Namespaces = append(u.Namespaces, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("user types' schemas: %w", err)
	}
	rows, err = conn.Query(ctx, `WITH u AS (SELECT d.oid, d.typname, d.typarray FROM pg_catalog.pg_type d WHERE `+userTypesWhere+`),
			names AS (SELECT typname FROM u UNION SELECT a.typname FROM pg_catalog.pg_type a WHERE a.oid IN (SELECT typarray FROM u))
		SELECT n.nspname::text, t.typname::text FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
		WHERE t.typname IN (SELECT typname FROM names) AND t.oid NOT IN (SELECT oid FROM u) AND t.oid NOT IN (SELECT typarray FROM u)
		ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("user types' namesakes: %w", err)
	}
	var tn wal.TypeName
	_, err = pgx.ForEachRow(rows, []any{&tn.Namespace, &tn.Name}, func() error {
		u.Namesakes = append(u.Namesakes, tn)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("user types' namesakes: %w", err)
	}
	return u, nil
}
