package history

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgident"
)

// Querier is what ForeignKeys needs of a PostgreSQL connection
// (*pgx.Conn, *pgxpool.Pool).
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// foreignKeysSQL lists every foreign key of the database (referencing
// table, referenced table), each name as the catalog stores it. The
// mirror's history has no foreign keys of its own (logical replication
// does not send constraints): a patch asks PostgreSQL when it is written.
const foreignKeysSQL = `
SELECT cn.nspname, c.relname, pn.nspname, p.relname,
  ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i),
  ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i)
FROM pg_catalog.pg_constraint k
JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
JOIN pg_catalog.pg_namespace cn ON cn.oid = c.relnamespace
JOIN pg_catalog.pg_class p ON p.oid = k.confrelid
JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace
WHERE k.contype = 'f'
ORDER BY 1, 2, 3, 4, k.conname`

// ForeignKeys reads the foreign keys between tables from PostgreSQL, with
// canonical table names, for SQLOptions.ForeignKeys.
func ForeignKeys(ctx context.Context, q Querier) ([]ForeignKey, error) {
	rows, err := q.Query(ctx, foreignKeysSQL)
	if err != nil {
		return nil, fmt.Errorf("read foreign keys: %w", err)
	}
	defer rows.Close()
	var out []ForeignKey
	for rows.Next() {
		var cs, cn, ps, pn string
		var cols, refCols []string
		if err := rows.Scan(&cs, &cn, &ps, &pn, &cols, &refCols); err != nil {
			return nil, fmt.Errorf("read foreign keys: %w", err)
		}
		out = append(out, ForeignKey{
			Table:      pgident.Table{Schema: cs, Name: cn}.String(),
			Columns:    cols,
			References: pgident.Table{Schema: ps, Name: pn}.String(),
			RefColumns: refCols,
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read foreign keys: %w", err)
	}
	return out, nil
}
