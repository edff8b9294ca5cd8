package replication

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// readListings reads what psql's listings need of the database beyond
// its tables (wal.ListingFacts): the number of event triggers (\dy),
// of operators outside pg_catalog and information_schema (\do), and
// the languages' comments (\dL). The catalogs are readable by PUBLIC.
func readListings(ctx context.Context, conn *pgx.Conn) (*wal.ListingFacts, error) {
	var triggers, operators int64
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_catalog.pg_event_trigger),
			(SELECT count(*) FROM pg_catalog.pg_operator o JOIN pg_catalog.pg_namespace n ON n.oid = o.oprnamespace
				WHERE n.nspname NOT IN ('pg_catalog', 'information_schema'))`).Scan(&triggers, &operators); err != nil {
		return nil, fmt.Errorf("listings: %w", err)
	}
	l := &wal.ListingFacts{EventTriggers: int(triggers), UserOperators: int(operators), LanguageComments: []wal.ObjectComment{}}
	rows, err := conn.Query(ctx, `SELECT d.objoid::int8, d.description FROM pg_catalog.pg_description d
		WHERE d.classoid = 'pg_catalog.pg_language'::pg_catalog.regclass AND d.objsubid = 0 ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("languages' comments: %w", err)
	}
	var oid int64
	var c wal.ObjectComment
	_, err = pgx.ForEachRow(rows, []any{&oid, &c.Comment}, func() error {
		l.LanguageComments = append(l.LanguageComments, wal.ObjectComment{OID: uint32(oid), Comment: c.Comment})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("languages' comments: %w", err)
	}
	return l, nil
}
