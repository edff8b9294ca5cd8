package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/history"
)

// patchOptions reads from the source PostgreSQL (postgres.* in the
// config) the foreign keys a SQL patch orders its statements by: the
// mirror has none of its own, logical replication does not send
// constraints. When PostgreSQL cannot be asked, the patch is still
// written, ordered without them, and a warning says so.
func patchOptions(ctx context.Context, g *globals) history.SQLOptions {
	cfg, _, err := g.loadConfig()
	if err != nil {
		return history.SQLOptions{} // the command reports the config error
	}
	// Bounded: a patch must not wait long on an unreachable server.
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	fks, err := func() ([]history.ForeignKey, error) {
		conn, err := pgx.Connect(ctx, cfg.Postgres.ConnString())
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		return history.ForeignKeys(ctx, conn)
	}()
	if err != nil {
		fmt.Fprintf(g.stderr, "sidecar: warning: foreign keys not read from PostgreSQL (%v): the patch's statements are ordered without them\n", err)
		return history.SQLOptions{}
	}
	return history.SQLOptions{ForeignKeys: fks}
}
