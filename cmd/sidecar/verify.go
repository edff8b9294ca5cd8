package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/server"
	"github.com/sidecar-dev/sidecar/verify"
)

func newVerifyCmd(g *globals) *cobra.Command {
	var (
		tables      []string
		format      string
		pinTimeout  time.Duration
		waitTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "verify [--table T]... [--format text|json]",
		Short: "Prove the mirror equals PostgreSQL at one exact LSN; name the differing rows",
		Long: `verify pins PostgreSQL at one exact WAL position C (a temporary logical slot's
snapshot), waits until the mirror has applied every commit up to C, and
compares each table's rows at that version through bucketed checksums
(count and sum of a 64-bit row hash); for differing buckets it names the
keys, with the mirror's and PostgreSQL's rows (missing, extra, changed).

When a daemon runs, the verification runs inside it (POST /api/verify),
beside the stream that lets the mirror catch up to C. With no daemon the
data directory is opened here: the mirror cannot catch up, so it is
compared only if no transaction of the publication committed after its
last commit (checked by peeking at the slot), and otherwise verify exits 2.

A table being copied (the initial copy) or resynced (after a schema change)
cannot be compared yet: with a daemon running, verify prints one line saying
what it waits for, waits up to --wait for the copy or resync to finish, then
verifies; when the wait runs out it exits 2 naming the table and since when.
A schema change that no row change has carried to the mirror yet (e.g. ALTER
TABLE … ADD COLUMN … DEFAULT alone) is found by verify, which has the daemon
resync the table and verifies again within the same wait.

Exit status: 0 every table equal; 1 differences found; 2 could not verify.`,
		Example: `  sidecar verify
  sidecar verify --table public.accounts --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageError(fmt.Errorf("--format %q: want text or json", format), "sidecar verify --format json")
			}
			cfg, logger, err := g.loadConfig()
			if err != nil {
				return err
			}
			names := append([]string(nil), tables...)
			if err := tableArgs(names); err != nil {
				return err
			}
			ctx := cmd.Context()
			conn, err := client.ConnectReadOnly(ctx, cfg, logger)
			if err != nil {
				return usageError(err, "sidecar run --config FILE")
			}
			defer conn.Close()
			var rep *verify.Report
			if conn.Daemon != nil {
				if what := busyWith(ctx, conn.Daemon, names); what != "" {
					fmt.Fprintf(g.stderr, "verify: waiting up to %s for %s to finish\n", waitTimeout, what)
				}
				rep = &verify.Report{}
				if err := conn.Daemon.PostJSON(ctx, "/api/verify", server.VerifyRequest{Tables: names, Wait: waitTimeout.String()}, rep); err != nil {
					return usageError(err, verifyHint(err))
				}
			} else {
				r := &verify.Runner{
					ConnString:     cfg.Postgres.ConnString(),
					Mirror:         conn.Local.Mirror,
					Publication:    cfg.Publication,
					Slot:           cfg.Slot,
					CatchUpTimeout: waitTimeout,
					BusyWait:       waitTimeout,
					Pin:            verify.PinOptions{Timeout: pinTimeout},
					Logger:         logger,
				}
				if rep, err = r.Run(ctx, names); err != nil {
					return usageError(err, verifyHint(err))
				}
			}
			if format == "json" {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if err := rep.WriteText(g.stdout); err != nil {
				return err
			}
			if code := rep.ExitCode(); code != exitOK {
				return silentExit(code)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&tables, "table", nil, "table to verify (schema.name, quoted as in SQL where needed; repeatable); default every followed table")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().DurationVar(&pinTimeout, "pin-timeout", verify.DefaultPinTimeout, "give up pinning PostgreSQL after this long (slot creation waits for open write transactions)")
	cmd.Flags().DurationVar(&waitTimeout, "wait", verify.DefaultCatchUpTimeout, "give up waiting for a table's initial copy or resync to finish, and then for the mirror to reach the pinned LSN, after this long (each)")
	return cmd
}

// busyWith says what the daemon is copying or resyncing among names (all
// when empty), from its status, or "" when nothing (or the status cannot
// be read: the verification request then says what is wrong).
func busyWith(ctx context.Context, d *client.Daemon, names []string) string {
	var st daemon.Status
	if err := d.GetJSON(ctx, "/api/status", nil, &st); err != nil {
		return ""
	}
	var resync, copying []string
	for _, t := range st.Tables {
		if t.State != mirror.StateReady.String() && wanted(names, t.Name) {
			resync = append(resync, t.Name)
		}
	}
	for _, c := range st.Copy {
		if !c.Done && wanted(names, c.Table) && !slices.Contains(resync, c.Table) {
			copying = append(copying, c.Table)
		}
	}
	var what []string
	if len(copying) > 0 {
		what = append(what, "the copy of "+strings.Join(copying, ", "))
	}
	if len(resync) > 0 {
		what = append(what, "the resync of "+strings.Join(resync, ", "))
	}
	if len(what) == 0 && (len(st.Tables) == 0 || st.Phase == "copying" || st.Phase == "starting") {
		what = append(what, "the initial copy")
	}
	return strings.Join(what, " and ")
}

// wanted: table is among names (config-style names accepted), or names
// is empty.
func wanted(names []string, table string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if tn, err := pgident.ParseTable(n); n == table || (err == nil && tn.String() == table) {
			return true
		}
	}
	return false
}

// verifyHint suggests the next step for a verification that could not run.
func verifyHint(err error) string {
	var apiErr *client.APIError
	switch {
	case errors.Is(err, verify.ErrPinTimeout):
		return "end or commit the transactions named above, or pass --pin-timeout 2m"
	case errors.Is(err, verify.ErrBusy), errors.As(err, &apiErr) && strings.Contains(apiErr.Message, verify.ErrBusy.Error()):
		return "sidecar status (copy progress); or pass a longer --wait, e.g. --wait 10m"
	case errors.Is(err, verify.ErrMirrorBehind):
		return "sidecar status (is the daemon running and connected?)"
	case errors.As(err, &apiErr) && apiErr.Status == 404 && strings.Contains(apiErr.Message, "no API endpoint"):
		return "this daemon predates POST /api/verify: stop it and run sidecar verify against the data directory, or upgrade it"
	}
	return ""
}
