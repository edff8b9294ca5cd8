package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/history"
)

func newGCCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Delete stored nodes no version, tag or branch needs, and report bytes on disk",
		Long: `gc marks every node reachable from the mirror's versions, tags and branches
and deletes the rest (deleted branches, abandoned spills), then compacts
Badger's value log and reports the data directory's size before and after.

It runs on the data directory with the daemon stopped: stop sidecar run
first. Versions are not yet expired by history.retain: every version is kept.

Exit status: 0; 2 on error (or when a daemon is running).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "")
			}
			cfg, logger, err := g.loadConfig()
			if err != nil {
				return err
			}
			conn, err := client.Connect(cmd.Context(), cfg, logger)
			if err != nil {
				return usageError(err, "")
			}
			defer conn.Close()
			if conn.Daemon != nil {
				return usageError(fmt.Errorf("a daemon is running at %s: garbage collection runs with the daemon stopped", cfg.Listen), "stop `sidecar run`, then run `sidecar gc`")
			}
			st, err := history.New(conn.Local.DB, conn.Local.Mirror).GC(cmd.Context(), history.GCRequest{Dir: cfg.DataDir, ValueLogGC: true})
			if err != nil {
				return usageError(fmt.Errorf("gc: %w", err), "")
			}
			if format == "json" {
				return json.NewEncoder(g.stdout).Encode(st)
			}
			fmt.Fprintf(g.stdout, "roots %d, live nodes %d, scanned %d, deleted %d\n", st.Roots, st.Live, st.Scanned, st.Deleted)
			fmt.Fprintf(g.stdout, "data directory: %d bytes before, %d after\n", st.BytesBefore, st.BytesAfter)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
