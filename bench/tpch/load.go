package tpch

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgconn"
)

// Load creates the eight tables on c, copies their rows in (generated on
// the fly at scale factor sf), analyzes them and returns the row counts.
func Load(ctx context.Context, c *pgconn.PgConn, sf float64, seed uint64) (map[string]int64, error) {
	if _, err := c.Exec(ctx, Schema).ReadAll(); err != nil {
		return nil, fmt.Errorf("create the TPC-H tables: %w", err)
	}
	rows := map[string]int64{}
	for _, t := range Tables {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(Write(pw, t, sf, seed)) }()
		tag, err := c.CopyFrom(ctx, pr, "COPY "+t+" FROM STDIN")
		pr.CloseWithError(err) // stops the writer if COPY failed first
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", t, err)
		}
		rows[t] = tag.RowsAffected()
	}
	if _, err := c.Exec(ctx, "ANALYZE").ReadAll(); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	return rows, nil
}

// PublicTables is Tables qualified with the public schema (what a
// sidecar following them is configured with).
func PublicTables() []string {
	out := make([]string, len(Tables))
	for i, t := range Tables {
		out[i] = "public." + t
	}
	return out
}
