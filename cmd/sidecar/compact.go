package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/server"
)

func newCompactCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "compact [<table>…]",
		Short: "Full compaction of the in-memory HEAD's heaps (as VACUUM FULL)",
		Long: `compact rewrites the heap pages of the named tables (all when none are
named) densely, dropping the space of deleted and moved rows, and rebuilds
their radix index for the rows that moved. It runs in the daemon, which
holds the in-memory HEAD (POST /api/compact): one table at a time, each
under its write lock, so a read sees the table before or after, never
between; apply waits meanwhile. The next checkpoint of the in-memory HEAD
stores the compacted pages.

Dead space is also reclaimed without it: a page whose dead slots pass a
threshold is compacted in place as batches are applied (like lazy VACUUM).

Without a running daemon there is nothing to compact (the in-memory HEAD
lives only in the daemon; its checkpoint is rebuilt at the next start
from what the daemon holds), so compact says so and exits 2.

Exit status: 0; 2 on error (no daemon, unknown table).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "")
			}
			if err := tableArgs(args); err != nil {
				return err
			}
			cfg, logger, err := g.loadConfig()
			if err != nil {
				return err
			}
			conn, err := client.ConnectReadOnly(cmd.Context(), cfg, logger)
			if err != nil && !errors.Is(err, client.ErrNoMirror) {
				return usageError(err, "sidecar status")
			}
			if conn != nil {
				defer conn.Close()
			}
			if conn == nil || conn.Daemon == nil {
				return usageError(fmt.Errorf("compact: no daemon answers at %s: the in-memory HEAD it compacts lives in the running daemon", cfg.Listen), "sidecar run")
			}
			var resp server.CompactResponse
			if err := conn.Daemon.PostJSON(cmd.Context(), "/api/compact", server.CompactRequest{Tables: args}, &resp); err != nil {
				return usageError(fmt.Errorf("compact: %w", err), "sidecar status (lists the followed tables)")
			}
			if format == "json" {
				return json.NewEncoder(g.stdout).Encode(resp)
			}
			for _, t := range resp.Tables {
				fmt.Fprintf(g.stdout, "%s: %d rows, %d moved, pages %d -> %d, %s\n",
					t.Table, t.Rows, t.Moved, t.PagesBefore, t.PagesAfter, t.Took.Round(time.Microsecond))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
