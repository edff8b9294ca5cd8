package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readCasts reads the database's pg_cast rows as psql's \dC and \dC+
// print them (wal.CastFacts): the formatted source and target types,
// psql's Function and Implicit? texts computed by the server with
// psql's own CASE, and the comment, in psql's order (ORDER BY 1, 2
// under the database's collation, which the SQL port's session has
// too). format_type runs under search_path pg_catalog alone, and a row
// with a type outside pg_catalog is marked: its formatting and
// visibility depend on the session's path (the SQL port refuses it).
// At most wal.MaxCasts rows, else Rows is nil. pg_cast, pg_type,
// pg_proc and pg_description are readable by PUBLIC.
func readCasts(ctx context.Context, conn *pgx.Conn) (*wal.CastFacts, error) {
	out := &wal.CastFacts{Rows: []wal.CastRow{}}
	err := underSearchPath(ctx, conn, "pg_catalog", func() error {
		rows, err := conn.Query(ctx, `SELECT pg_catalog.format_type(castsource, NULL), pg_catalog.format_type(casttarget, NULL),
			coalesce(ts.typname::text, ''), coalesce(tt.typname::text, ''),
			CASE WHEN c.castmethod = 'b' THEN '(binary coercible)'
				WHEN c.castmethod = 'i' THEN '(with inout)'
				ELSE p.proname END,
			CASE WHEN c.castcontext = 'e' THEN 'no'
				WHEN c.castcontext = 'a' THEN 'in assignment'
				ELSE 'yes' END,
			d.description,
			coalesce(ts.typnamespace <> 'pg_catalog'::pg_catalog.regnamespace OR tt.typnamespace <> 'pg_catalog'::pg_catalog.regnamespace, true)
		FROM pg_catalog.pg_cast c LEFT JOIN pg_catalog.pg_proc p ON c.castfunc = p.oid
			LEFT JOIN pg_catalog.pg_type ts ON c.castsource = ts.oid
			LEFT JOIN pg_catalog.pg_type tt ON c.casttarget = tt.oid
			LEFT JOIN pg_catalog.pg_description d ON d.classoid = c.tableoid AND d.objoid = c.oid AND d.objsubid = 0
		ORDER BY 1, 2 LIMIT $1`, wal.MaxCasts+1)
		if err != nil {
			return err
		}
		var r wal.CastRow
		var fn, comment *string
		_, err = pgx.ForEachRow(rows, []any{&r.Source, &r.Target, &r.SourceName, &r.TargetName, &fn, &r.Implicit, &comment, &r.UserTypes}, func() error {
			x := r
			if fn != nil {
				x.Function = *fn
			}
			if comment != nil {
				x.Description, x.HasComment = *comment, true
			}
			out.Rows = append(out.Rows, x)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read casts: %w", err)
	}
	if len(out.Rows) > wal.MaxCasts {
		out.Rows = nil
	}
	return out, nil
}
