package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/membudget"
)

func newStatusCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Slot, received and durable LSN, lag, phase and copy progress, tables",
		Long: `status reports the daemon's state through its API, or, when no daemon runs,
the mirror in data_dir with the slot and lag read from PostgreSQL.

With no daemon the data directory is opened read-only: status never writes
it and never stands in the way of a daemon starting (a start waits for it),
so a monitoring loop may poll it. While a daemon starts, or after one was
killed until the next start recovers the directory, it says "daemon not
ready".

Exit status: 0; 2 when neither the daemon nor the data directory can be read
(including "daemon not ready").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "sidecar status --format json")
			}
			cfg, logger, err := g.loadConfig()
			if err != nil {
				return err
			}
			st, err := readStatus(cmd.Context(), cfg, logger)
			if err != nil {
				return err
			}
			if format == "json" {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			return writeStatus(g.stdout, st)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// readStatus asks the daemon, or reads the data directory read-only when
// none answers. A daemon that goes away between its health check and the
// status request (killed, stopping) is not an error of its own: status is
// read again, then from the directory.
func readStatus(ctx context.Context, cfg *config.Config, logger *slog.Logger) (daemon.Status, error) {
	var st daemon.Status
	for attempt := 0; ; attempt++ {
		conn, err := client.ConnectReadOnly(ctx, cfg, logger)
		if err != nil {
			hint := "sidecar run --config FILE"
			if errors.Is(err, client.ErrNotReady) {
				hint = "wait for the daemon to start (its log says \"sidecar ready\"), or start `sidecar run`"
			}
			return st, usageError(err, hint)
		}
		if conn.Local != nil {
			st = daemon.OfflineStatus(ctx, cfg, conn.Local.Mirror)
			if err := conn.Close(); err != nil {
				return st, usageError(err, "")
			}
			return st, nil
		}
		err = conn.Daemon.GetJSON(ctx, "/api/status", nil, &st)
		conn.Close()
		var apiErr *client.APIError
		if err == nil || errors.As(err, &apiErr) || attempt > 0 || ctx.Err() != nil {
			if err != nil {
				return st, usageError(err, "")
			}
			return st, nil
		}
	}
}

func writeStatus(w io.Writer, st daemon.Status) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	stopped := st.Phase == "stopped"
	if stopped {
		line("phase", "stopped (daemon not running; read from the data directory)")
	} else {
		line("phase", st.Phase)
	}
	conn := "no"
	if st.Connected {
		conn = "yes"
	}
	line("connected", conn)
	slot := st.Slot.Name
	if st.Slot.WALStatus != "" {
		slot += fmt.Sprintf(" (wal_status %s, confirmed %s, active %v)", st.Slot.WALStatus, st.Slot.ConfirmedFlush, st.Slot.Active)
	} else {
		slot += " (not found on the server)"
	}
	line("slot", slot)
	switch st.ReceivedLSN {
	case "":
	case "0/0":
		// Just started: the stream has delivered nothing yet.
		line("received", "nothing yet since the start (resumes after durable)")
	default:
		line("received", st.ReceivedLSN)
	}
	line("durable", st.DurableLSN)
	if st.ServerLSN != "" {
		line("server WAL", st.ServerLSN)
	}
	if stopped {
		// A stopped daemon's "lag in seconds" is only the age of its last
		// commit: it grows while nothing happens upstream, so say what is
		// known instead.
		if st.ServerLSN != "" {
			line("behind", fmt.Sprintf("%d bytes of server WAL not applied (not running: no time lag measured)", st.LagBytes))
		} else {
			line("behind", "unknown (not running, and PostgreSQL not reached)")
		}
	} else {
		line("lag", fmt.Sprintf("%d bytes, %.1f s", st.LagBytes, st.LagSeconds))
	}
	if st.LastCommit != nil {
		line("last commit", st.LastCommit.UTC().Format(time.RFC3339Nano))
	}
	line("commits applied", fmt.Sprint(st.Commits))
	if st.Reconnects > 0 {
		line("reconnects", fmt.Sprint(st.Reconnects))
	}
	if st.LastError != "" {
		line("last error", st.LastError)
	}
	if v := st.Verify; v != nil {
		desc := fmt.Sprintf("%s at %s (every %s)", v.Result, v.At.UTC().Format(time.RFC3339), v.Interval)
		if v.LSN != "" {
			desc += ", LSN " + v.LSN
		}
		if v.Error != "" {
			desc += ": " + v.Error
		}
		line("last verify", desc)
	}
	if h := st.History; h != nil {
		kept := "every version (history.retain " + h.Retain + ")"
		if h.OldestRetainedLSN != "" {
			kept = fmt.Sprintf("from %s on, and tagged versions (history.retain %s)", h.OldestRetainedLSN, h.Retain)
		}
		line("history", kept)
		if g := h.LastGC; g != nil {
			desc := fmt.Sprintf("%s: %d versions expired, %d nodes deleted, %d live; data dir %d → %d bytes (%.2fs)",
				g.At.Format(time.RFC3339), g.ExpiredVersions, g.DeletedNodes, g.LiveNodes, g.BytesBefore, g.BytesAfter, g.Seconds)
			if g.Error != "" {
				desc = g.At.Format(time.RFC3339) + ": failed: " + g.Error
			}
			line("last gc", desc)
		}
	}
	if r := st.Remote; r != nil {
		desc := fmt.Sprintf("%s (epoch %d): durable %s, backlog %d bytes / %d groups, %d uploads, %d failed", r.URL, r.Epoch, r.RemoteDurableLSN, r.BacklogBytes, r.BacklogGroups, r.Uploads, r.Failures)
		if r.LastError != "" {
			desc += "; last error: " + r.LastError
		}
		line("remote", desc)
	}
	if m := st.Memory; m != nil {
		line("memory", memoryLine(m))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(st.Copy) > 0 {
		fmt.Fprintln(w, "\ncopy:")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  table\trows\trows/s\tranges\tstate\teta")
		for _, c := range st.Copy {
			state, eta := "copying", ""
			if c.Done {
				state = "done"
			} else if c.ETASeconds > 0 {
				eta = (time.Duration(c.ETASeconds) * time.Second).String()
			}
			fmt.Fprintf(tw, "  %s\t%d\t%.0f\t%d/%d\t%s\t%s\n", c.Table, c.Rows, c.RowsPerSec, c.RangesDone, c.Ranges, state, eta)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\ntables:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  table\tstate\trows\tcopied at")
	for _, t := range st.Tables {
		state := t.State
		if t.HeldUntil != "" {
			state += " (copy held until the stream reaches " + t.HeldUntil + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", t.Name, state, t.Rows, t.CopiedAt)
	}
	tw.Flush()
	if len(st.NotFollowed) > 0 {
		fmt.Fprintln(w, "\nnot followed:")
		for _, n := range st.NotFollowed {
			fmt.Fprintf(w, "  %s: %s\n", n.Table, strings.TrimSpace(n.Reason))
		}
	}
	return nil
}

// memoryLine is the memory budget on one line: the limit and where it
// came from, then each part as used/budget.
func memoryLine(m *daemon.MemoryStatus) string {
	b := func(n int64) string { return membudget.FormatBytes(n) }
	var parts []string
	for _, p := range m.Parts {
		switch {
		case p.UsedBytes != nil && p.BudgetBytes > 0:
			parts = append(parts, fmt.Sprintf("%s %s/%s", p.Part, b(*p.UsedBytes), b(p.BudgetBytes)))
		case p.UsedBytes != nil:
			parts = append(parts, fmt.Sprintf("%s %s", p.Part, b(*p.UsedBytes)))
		case p.BudgetBytes > 0:
			parts = append(parts, fmt.Sprintf("%s -/%s", p.Part, b(p.BudgetBytes)))
		}
	}
	return fmt.Sprintf("limit %s (%s); %s", b(m.LimitBytes), m.LimitFrom, strings.Join(parts, ", "))
}
