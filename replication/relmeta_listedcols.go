package replication

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readListedColumns reads the user columns (attnum > 0, dropped ones
// included) of every table, partitioned table, view, materialized view
// and foreign table of the relation list (readRelationList's relations)
// with their defaults (wal.ListedColumnsFacts): what the SQL port's
// pg_attribute, pg_attrdef and information_schema.columns list for the
// relations it does not follow. At most wal.MaxListedColumns, else none
// (Columns nil: what needs them stays refused). Defaults are printed
// with search_path public, as readColumnFacts prints the followed
// tables' (relmeta.go). pg_attribute and pg_attrdef are readable by
// PUBLIC.
func readListedColumns(ctx context.Context, conn *pgx.Conn) (*wal.ListedColumnsFacts, error) {
	const kinds = ` AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`
	l := &wal.ListedColumnsFacts{}
	var n int64
	if err := conn.QueryRow(ctx, `SELECT count(*) `+relationListFrom+` JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 `+
		relationListWhere+kinds).Scan(&n); err != nil {
		return nil, fmt.Errorf("columns of the listed relations: %w", err)
	}
	if n > wal.MaxListedColumns {
		return l, nil
	}
	l.Columns = []wal.ListedColumn{}
	err := underPublicPath(ctx, conn, func() error { // relmeta_searchpath.go
		rows, err := conn.Query(ctx, `SELECT a.attrelid::int8, a.attname::text, a.attnum, a.atttypid::int8, a.atttypmod, a.attlen, a.attndims,
				a.attnotnull, a.atthasdef, a.attisdropped, a.attislocal, a.attidentity::text, a.attgenerated::text, a.attinhcount::int4,
				a.attcollation::int8, coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), ''), coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid, true), '')
			`+relationListFrom+`
			JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
			LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			`+relationListWhere+kinds+` ORDER BY 1, 3`)
		if err != nil {
			return err
		}
		var rel, typ, coll int64
		var ident, gen string
		var c wal.ListedColumn
		_, err = pgx.ForEachRow(rows, []any{&rel, &c.Name, &c.Num, &typ, &c.TypeMod, &c.Len, &c.NDims, &c.NotNull, &c.HasDefault, &c.Dropped, &c.IsLocal,
			&ident, &gen, &c.InhCount, &coll, &c.Default, &c.DefaultPretty}, func() error {
			if len(l.Columns) >= wal.MaxListedColumns {
				return errTooManyColumns // added since the count: not read
			}
			x := c
			x.Rel, x.TypeOID, x.Collation, x.Identity, x.Generated = uint32(rel), uint32(typ), uint32(coll), charByte(ident), charByte(gen)
			l.Columns = append(l.Columns, x)
			return nil
		})
		return err
	})
	if errors.Is(err, errTooManyColumns) {
		return &wal.ListedColumnsFacts{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("columns of the listed relations: %w", err)
	}
	return l, nil
}

// errTooManyColumns stops readListedColumns' scan past
// wal.MaxListedColumns.
var errTooManyColumns = errors.New("more listed columns than read")
