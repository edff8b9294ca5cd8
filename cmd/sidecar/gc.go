package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/refs"
)

func newGCCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Expire versions older than history.retain and delete the nodes nothing needs",
		Long: `gc applies history.retain (versions committed longer ago than it are
expired; tagged versions are kept; 0 keeps every version), then marks every
node reachable from the retained versions, tags and branches and deletes the
rest (expired versions, deleted branches, abandoned spills), compacts
Badger's value log and reports the data directory's size before and after.

With a daemon running (at listen) it asks the daemon, which collects beside
replication and reads (POST /api/gc); the daemon also does this by itself
every history.gc_interval when garbage has grown. Without a daemon it opens
the data directory itself.

Exit status: 0; 2 on error.`,
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
			var st refs.GCStats
			if conn.Daemon != nil {
				err = conn.Daemon.PostJSON(cmd.Context(), "/api/gc", struct{}{}, &st)
			} else {
				// No daemon: nothing else uses the store, so compact Badger
				// first and return the space at once.
				req := daemon.GCRequest(cfg, time.Now())
				req.CompactFirst = true
				st, err = history.New(conn.Local.DB, conn.Local.Mirror).GC(cmd.Context(), req)
			}
			if err != nil {
				return usageError(fmt.Errorf("gc: %w", err), "")
			}
			if format == "json" {
				return json.NewEncoder(g.stdout).Encode(st)
			}
			e := st.Expired
			if e.Versions > 0 || e.Groups > 0 {
				fmt.Fprintf(g.stdout, "expired %d versions (%d group records); oldest retained version %s; %d tagged versions kept below it\n",
					e.Versions, e.Groups, e.Horizon, e.Islands)
			} else {
				fmt.Fprintln(g.stdout, "no version expired")
			}
			fmt.Fprintf(g.stdout, "roots %d, live nodes %d, scanned %d, deleted %d (mark %s, sweep %s, value log %s)\n",
				st.Roots, st.Live, st.Scanned, st.Deleted, st.Mark.Round(time.Millisecond), st.Sweep.Round(time.Millisecond), st.ValueLog.Round(time.Millisecond))
			fmt.Fprintf(g.stdout, "data directory: %d bytes before, %d after\n", st.BytesBefore, st.BytesAfter)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
