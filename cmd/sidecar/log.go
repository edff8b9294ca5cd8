package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/refs"
)

// logFlush is how many versions `sidecar log` writes between flushes.
const logFlush = 1000

// withHistory runs fn against the history API: the running daemon's, or
// the data directory opened in-process as its writer when no daemon runs.
// Both give the same structs, so commands print the same either way.
// Errors exit 2.
func withHistory(cmd *cobra.Command, g *globals, fn func(api history.API) error) error {
	return historyConn(cmd, g, client.Connect, fn)
}

// readHistory is withHistory for commands that only read: with no daemon
// the data directory is opened read-only (client.ConnectReadOnly).
func readHistory(cmd *cobra.Command, g *globals, fn func(api history.API) error) error {
	return historyConn(cmd, g, client.ConnectReadOnly, fn)
}

func historyConn(cmd *cobra.Command, g *globals, connect func(context.Context, *config.Config, *slog.Logger) (*client.Conn, error), fn func(api history.API) error) error {
	cfg, logger, err := g.loadConfig()
	if err != nil {
		return err
	}
	conn, err := connect(cmd.Context(), cfg, logger)
	if err != nil {
		return usageError(err, "sidecar status")
	}
	var api history.API
	if conn.Local != nil {
		api = history.New(conn.Local.DB, conn.Local.Mirror)
	} else {
		api = &history.Remote{T: conn.Daemon}
	}
	err = fn(api)
	if cerr := conn.Close(); err == nil && cerr != nil {
		err = usageError(cerr, "")
	}
	return err
}

// historyError turns an error of the history API into exit status 2 with
// a hint matching the kind of problem.
func historyError(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	hint := ""
	var ae *client.APIError
	switch {
	case errors.Is(err, refs.ErrBadRef), errors.Is(err, refs.ErrUnknownRef):
		hint = "sidecar log -n 10; sidecar tag (refs: HEAD, HEAD~N, an LSN, @<RFC 3339 time>, a tag or branch)"
	case errors.Is(err, history.ErrUnknownTable):
		hint = "sidecar status (lists the followed tables)"
	case errors.As(err, &ae) && (ae.Status == 400 || ae.Status == 404):
		hint = "sidecar log -n 10; sidecar tag"
	}
	return usageError(err, hint)
}

func newLogCmd(g *globals) *cobra.Command {
	var req history.LogRequest
	var format string
	cmd := &cobra.Command{
		Use:   "log",
		Short: "List versions (commits): LSN, commit time, xid, rows changed per table",
		Long: `log lists the mirror's versions, newest first: every committed transaction
is one, addressed by its end LSN. Tags are shown beside their commit. The
oldest entry is the initial copy when it is a version (a copy under one
snapshot, not expired): its copy LSN, no commit time or xid, and the rows
of each table copied ("initial_copy": true in JSON). A table's latest resync
(after a schema change or sidecar resync) is listed where its copy landed,
as "resync copy: TABLE ROWS" ("resync": true in JSON); the versions below it
that list the table as held for resync are the window the resync replaced.

--format json prints one object per line:
  {"lsn":"0/16B3748","commit_lsn":"0/16B3720","commit_time":"…","xid":750,
   "tables":[{"table":"public.t","rows":3}],"tags":["before-migration"]}

Exit status: 0; 2 on error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "sidecar log --format json")
			}
			if req.Limit < 0 {
				return usageError(fmt.Errorf("-n %d: want a positive count", req.Limit), "sidecar log -n 10")
			}
			if req.Table != "" {
				table, err := tableArg(req.Table)
				if err != nil {
					return err
				}
				req.Table = table
			}
			return readHistory(cmd, g, func(api history.API) error {
				// Buffered (the tabwriter writes cell by cell) and flushed
				// every logFlush versions, so a long log streams.
				bw := bufio.NewWriterSize(g.stdout, 64<<10)
				enc := json.NewEncoder(bw)
				tw := tabwriter.NewWriter(bw, 1, 4, 2, ' ', 0)
				header := false
				n := 0
				flush := func() error {
					if err := tw.Flush(); err != nil {
						return err
					}
					return bw.Flush()
				}
				err := api.Log(cmd.Context(), req, func(e history.LogEntry) error {
					if n++; n%logFlush == 0 {
						if err := flush(); err != nil {
							return err
						}
					}
					if format == "json" {
						return enc.Encode(e)
					}
					if !header {
						header = true
						fmt.Fprintln(tw, "LSN\tCOMMIT TIME\tXID\tCHANGES\tTAGS\t")
					}
					var ch []string
					for _, t := range e.Tables {
						s := fmt.Sprintf("%s %d", t.Table, t.Rows)
						if t.Truncated {
							s += " (truncated)"
						}
						ch = append(ch, s)
					}
					for _, t := range e.HeldForResync {
						ch = append(ch, t+" (held for resync: no per-commit history)")
					}
					when, xid, changes := e.CommitTime.Format("2006-01-02T15:04:05.000000Z07:00"), strconv.FormatUint(uint64(e.Xid), 10), strings.Join(ch, ", ")
					switch {
					case e.InitialCopy:
						when, xid, changes = "-", "-", "initial copy: "+changes
					case e.Resync:
						when, xid, changes = "-", "-", "resync copy: "+changes+" (versions below holding it for resync have no per-commit history of it)"
					}
					_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", e.LSN, when, xid, changes, strings.Join(e.Tags, ", "))
					return err
				})
				if ferr := flush(); err == nil {
					err = ferr
				}
				if err != nil {
					return historyError(err)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Table, "table", "", "only versions that changed this table (schema.name, quoted as in SQL where needed)")
	f.IntVarP(&req.Limit, "n", "n", 0, "at most N versions (default all)")
	f.StringVar(&req.Since, "since", "", "only versions after this ref")
	f.StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}
