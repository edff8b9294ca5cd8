package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/daemon"
)

func newResyncCmd(g *globals) *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "resync [<table>…]",
		Short: "Copy tables again at a new exact LSN (after a repair, or drift found by verify)",
		Long: `resync copies the named tables (all when none are named) again under a fresh
snapshot from a temporary slot; their changes below that snapshot's LSN are
dropped from the stream, those after it applied on top, so no change is lost
or doubled. History before the resync keeps the old trees.

With a daemon running it asks the daemon and waits (--wait) until the tables
are ready again; without one it marks them, and the next sidecar run copies
them before streaming.

Exit status: 0; 2 on error (unknown table, timeout).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, logger, err := g.loadConfig()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			conn, err := client.Connect(ctx, cfg, logger)
			if err != nil {
				return usageError(err, "")
			}
			defer conn.Close()
			if conn.Local != nil {
				tables, err := daemon.MarkResync(ctx, conn.Local.Mirror, args)
				if err != nil {
					return usageError(err, "sidecar status")
				}
				fmt.Fprintf(g.stdout, "marked %v; no daemon is running: `sidecar run` copies them again before streaming\n", tables)
				return nil
			}
			var resp daemon.ResyncRequest
			if err := conn.Daemon.PostJSON(ctx, "/api/resync", daemon.ResyncRequest{Tables: args}, &resp); err != nil {
				return usageError(err, "sidecar status")
			}
			fmt.Fprintf(g.stdout, "resync of %v requested\n", resp.Tables)
			if wait <= 0 {
				return nil
			}
			wctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			for {
				var st daemon.Status
				if err := conn.Daemon.GetJSON(wctx, "/api/status", nil, &st); err == nil && allReady(st, resp.Tables) {
					fmt.Fprintf(g.stdout, "%v copied again; streaming\n", resp.Tables)
					return nil
				}
				select {
				case <-wctx.Done():
					if errors.Is(wctx.Err(), context.DeadlineExceeded) {
						return usageError(fmt.Errorf("resync of %v not done after %s (it goes on in the daemon)", resp.Tables, wait), "sidecar status")
					}
					return wctx.Err()
				case <-time.After(200 * time.Millisecond):
				}
			}
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 10*time.Minute, "wait this long for the copy to finish (0: do not wait)")
	return cmd
}

// allReady: the tables are ready again and the daemon streams.
func allReady(st daemon.Status, tables []string) bool {
	if st.Phase != "streaming" {
		return false
	}
	for _, t := range st.Tables {
		if slices.Contains(tables, t.Name) && t.State != "ready" {
			return false
		}
	}
	return true
}
