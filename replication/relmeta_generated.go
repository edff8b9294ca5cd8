package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// The attnums of a table's columns and the definitions of the columns
// the stream does not carry (wal.Facts.AttNums, NotCarriedColumns): the
// SQL port's catalog lists every column PostgreSQL's does, at its attnum
// (gaps where columns were dropped), generated columns included although
// the mirror holds no values for them.

// attInfo is pg_attribute's row of one column.
type attInfo struct {
	num      int16
	typ      uint32
	mod      int32
	typeName string
}

// readAttributes reads, per table and column name, each column's attnum,
// type and typmod (type names as columnsSQL gives them).
func readAttributes(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32]map[string]attInfo, error) {
	rows, err := conn.Query(ctx, `SELECT a.attrelid::int8, a.attname::text, a.attnum, a.atttypid::int8, a.atttypmod,
			(WITH RECURSIVE b(o) AS (SELECT a.atttypid UNION ALL
				SELECT bt.typbasetype FROM pg_catalog.pg_type bt JOIN b ON bt.oid = b.o WHERE bt.typtype = 'd')
			SELECT CASE WHEN tn.nspname = 'pg_catalog' THEN t.typname::text ELSE tn.nspname || '.' || t.typname END
			FROM b JOIN pg_catalog.pg_type t ON t.oid = b.o JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
			WHERE t.typtype <> 'd')
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = ANY($1::int8[]::oid[]) AND a.attnum > 0 AND NOT a.attisdropped`, oids)
	if err != nil {
		return nil, fmt.Errorf("read column numbers: %w", err)
	}
	out := map[uint32]map[string]attInfo{}
	var oid, typ int64
	var name string
	var a attInfo
	_, err = pgx.ForEachRow(rows, []any{&oid, &name, &a.num, &typ, &a.mod, &a.typeName}, func() error {
		if out[uint32(oid)] == nil {
			out[uint32(oid)] = map[string]attInfo{}
		}
		b := a
		b.typ = uint32(typ)
		out[uint32(oid)][name] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read column numbers: %w", err)
	}
	return out, nil
}

// columnNumbers sets f's AttNums for r's columns and NotCarriedColumns
// for f.NotCarried, from the attributes, column facts and collations
// read, and the schema facts' name/value pairs (before alignSchemaFacts).
// A column not found (dropped between the reads) leaves both unset: the
// catalog then lists the table as a record without them.
func columnNumbers(r *wal.Relation, f *wal.Facts, atts map[string]attInfo, dropped []wal.DroppedColumn, defs map[string]wal.ColumnFacts, colls map[string]wal.Collation, s *wal.SchemaFacts) {
	nums := make([]int16, len(r.Columns))
	for i, c := range r.Columns {
		a, ok := atts[c.Name]
		if !ok {
			return
		}
		nums[i] = a.num
	}
	var gen []wal.NotCarriedColumn
	for _, name := range f.NotCarried {
		a, ok := atts[name]
		if !ok {
			return
		}
		d := defs[name]
		c := wal.NotCarriedColumn{Name: name, AttNum: a.num, TypeOID: a.typ, TypeMod: a.mod, TypeName: a.typeName, Collation: colls[name],
			NotNull: d.NotNull, Generated: d.Generated, Expr: d.Default, ExprPretty: d.DefaultPretty}
		if s != nil {
			c.Comment, c.Storage = pairValue(s.ColumnComments, name), pairValue(s.ColumnStorage, name)
			c.Compression, c.StatTarget = pairValue(s.ColumnCompression, name), pairValue(s.ColumnStatTargets, name)
		}
		gen = append(gen, c)
	}
	f.AttNums, f.NotCarriedColumns, f.Dropped = nums, gen, dropped
}

// pairValue is name's value among readComments' name/value pairs.
func pairValue(pairs []string, name string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] == name {
			return pairs[i+1]
		}
	}
	return ""
}

// readDropped reads each table's dropped columns as pg_attribute keeps
// them.
func readDropped(ctx context.Context, conn *pgx.Conn, oids []int64) (map[uint32][]wal.DroppedColumn, error) {
	rows, err := conn.Query(ctx, `SELECT a.attrelid::int8, a.attnum, a.attlen, a.atttypmod, a.attidentity::text
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = ANY($1::int8[]::oid[]) AND a.attnum > 0 AND a.attisdropped ORDER BY 1, 2`, oids)
	if err != nil {
		return nil, fmt.Errorf("read dropped columns: %w", err)
	}
	out := map[uint32][]wal.DroppedColumn{}
	var oid int64
	var c wal.DroppedColumn
	var ident string
	_, err = pgx.ForEachRow(rows, []any{&oid, &c.AttNum, &c.Len, &c.TypeMod, &ident}, func() error {
		d := c
		if ident != "" {
			d.Identity = ident[0]
		}
		out[uint32(oid)] = append(out[uint32(oid)], d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read dropped columns: %w", err)
	}
	return out, nil
}
