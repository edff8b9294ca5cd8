package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// columnTypesSQL describes each column's type for wal.ColumnType: its
// format_type, the typtype and array-ness of the type under its domains,
// and whether pg_cast has a cast from that type to text or varchar that is
// not its output function: one WITH FUNCTION, or WITHOUT FUNCTION (the
// stored bytes read as text) from a type whose output function is not
// the internal textout (citext's is; xml's xml_out rewrites an XML
// declaration). PostgreSQL looks a domain's casts up on its base type.
// The base type and typmod are getBaseTypeAndTypmod's (what
// RowDescription says of the column): each domain level replaces the
// typmod with its typtypmod.
const columnTypesSQL = `WITH RECURSIVE ch(relid, attnum, o, m) AS (
		SELECT a.attrelid, a.attnum, a.atttypid, a.atttypmod FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = ANY ($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL
		SELECT ch.relid, ch.attnum, t.typbasetype, t.typtypmod FROM ch JOIN pg_catalog.pg_type t ON t.oid = ch.o WHERE t.typtype = 'd'),
	base AS (SELECT ch.relid, ch.attnum, t.oid, ch.m, t.typtype, t.typelem <> 0 AND t.typlen = -1 AS arr,
			EXISTS (SELECT 1 FROM pg_catalog.pg_proc p WHERE p.oid = t.typoutput AND p.prolang = 12 AND p.prosrc = 'textout') AS textout
		FROM ch JOIN pg_catalog.pg_type t ON t.oid = ch.o WHERE t.typtype <> 'd')
	SELECT a.attrelid::int8, a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod),
		coalesce(b.typtype::text, ''), coalesce(b.arr, false),
		EXISTS (SELECT 1 FROM pg_catalog.pg_cast c WHERE c.castsource = b.oid AND c.casttarget IN (25, 1043)
			AND (c.castmethod = 'f' OR c.castmethod = 'b' AND NOT b.textout)),
		coalesce(b.oid::int8, 0), coalesce(b.m, -1)
	FROM pg_catalog.pg_attribute a LEFT JOIN base b ON b.relid = a.attrelid AND b.attnum = a.attnum
	WHERE a.attrelid = ANY ($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped`

// readColumnTypes reads, per table and column name, what wal.ColumnType
// says of the column's type.
func readColumnTypes(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32]map[string]wal.ColumnType, error) {
	rows, err := conn.Query(ctx, columnTypesSQL, oids)
	if err != nil {
		return nil, fmt.Errorf("column types: %w", err)
	}
	out := map[uint32]map[string]wal.ColumnType{}
	var rel int64
	var name, kind string
	var ct wal.ColumnType
	var base int64
	_, err = pgx.ForEachRow(rows, []any{&rel, &name, &ct.Name, &kind, &ct.Array, &ct.StringCast, &base, &ct.BaseMod}, func() error {
		c := ct
		c.BaseType = uint32(base)
		if kind != "" {
			c.Kind = kind[0]
		}
		m := out[uint32(rel)]
		if m == nil {
			m = map[string]wal.ColumnType{}
			out[uint32(rel)] = m
		}
		m[name] = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("column types: %w", err)
	}
	return out, nil
}

// columnTypesOf are r's columns' types in its column order.
func columnTypesOf(r *wal.Relation, m map[string]wal.ColumnType) []wal.ColumnType {
	out := make([]wal.ColumnType, len(r.Columns))
	for i, c := range r.Columns {
		out[i] = m[c.Name]
	}
	return out
}
